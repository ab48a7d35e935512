/// Puts the `observation_photos` rows into their table in key order (observation, then photo).
///
/// The links arrive with their photos, by photo id (`PhotoShippingLoad` decides a link with its
/// photo). The table is `WITHOUT ROWID`, keyed on (observation_id, photo_id): where photo order
/// is not observation order, each insert lands on a random page of a table larger than the
/// page cache. API observations mostly take photos with ids that grow with theirs, but an
/// observation known only from the open-data export has its uuid's hash for an id, so an
/// export's links come in random key order: on 5M links in random order SQLite took 56 s with
/// the bundle's 8 MiB page cache and 17 s with 64 MiB, against 3.5 s in key order.
///
/// So a link that comes after every link inserted so far (in key order) goes in at once, and
/// any other is held in an external sort (`ExternalSort`, spilling to the build folder in runs
/// of `SortSpace.runBytes`) and goes in, in key order, once the last link has come. Links that
/// come nearly in order go in as they come; links in random order go in as one sorted sweep.
/// The rows are the same either way, and `VACUUM INTO` copies the table by key; only `ANALYZE`'s
/// sampled row estimate for the table follows the scratch table's shape, so the order rows went
/// in, which depends only on the records (sharded or not, spilled or not).
///
/// A repeated link (two of one key) is always held, so the insert refuses it after every batch
/// is in, naming its line. Not thread-safe: the inserting thread alone uses it.
final class LinkOrder {
    /// A held link.
    struct Entry: BitwiseCopyable {
        var observation: Int64
        var photo: Int64
        var position: Int64
        /// The deduped records line it comes from.
        var line: Int32

        /// Key order; the line breaks a tie (two links of one key, which the insert refuses).
        static func before(_ a: Entry, _ b: Entry) -> Bool {
            if a.observation != b.observation { return a.observation < b.observation }
            if a.photo != b.photo { return a.photo < b.photo }
            return a.line < b.line
        }
    }

    /// The values an `observation_photos` row binds, in order.
    static let valuesPerRow = 3

    private let held: ExternalSort<Entry>
    /// The key of the link inserted last as it came; nil before the first.
    private var last: (observation: Int64, photo: Int64)? = nil
    /// Links inserted as they came.
    private(set) var insertedAsTheyCame = 0
    /// Links held for the sorted sweep.
    var heldCount: Int { held.count }

    init(space: SortSpace) {
        held = ExternalSort(space: space, by: Entry.before)
    }

    /// Inserts row `row` of `batch` (an `observation_photos` row) now if its key comes after
    /// every key inserted so far, else holds it.
    func add(_ batch: RecordBatch, _ row: RecordBatch.Row, with statement: Statement, places: RecordPlaces) throws {
        precondition(Int(row.count) == Self.valuesPerRow, "an observation_photos row holds \(row.count) of \(Self.valuesPerRow) values")
        let first = Int(row.first)
        let (observation, photo, position) = (batch.values[first], batch.values[first + 1], batch.values[first + 2])
        precondition(observation.tag == 1 && photo.tag == 1 && position.tag == 1, "a photo link's values are integers")
        if let last, observation.payload < last.observation || (observation.payload == last.observation && photo.payload <= last.photo) {
            try held.append(Entry(observation: observation.payload, photo: photo.payload, position: position.payload, line: row.line))
            return
        }
        try insert(observation.payload, photo.payload, position.payload, line: row.line, with: statement, places: places)
        last = (observation.payload, photo.payload)
        insertedAsTheyCame += 1
    }

    /// Inserts the held links, in key order.
    func insertHeld(with statement: Statement, places: RecordPlaces) throws {
        let cursor = try held.sorted()
        while let entry = cursor.peek {
            try insert(entry.observation, entry.photo, entry.position, line: entry.line, with: statement, places: places)
            try cursor.advance()
        }
    }

    private func insert(_ observation: Int64, _ photo: Int64, _ position: Int64, line: Int32, with statement: Statement, places: RecordPlaces) throws {
        do {
            try statement.bind(observation, at: 1)
            try statement.bind(photo, at: 2)
            try statement.bind(position, at: 3)
            try statement.run()
        } catch let error as SQLiteError {
            throw error.inserting([.integer(observation), .integer(photo), .integer(position)], at: Int(line), of: places)
        }
    }
}
