/// Puts the observations into their table in id order.
///
/// Observations arrive at the load in their dedupe key's order, the uuid (the export knows an
/// observation only by it), which is a random order of the table's key, the id. Inserted as they
/// came, each row landed on a random page of a table larger than the page cache: on 1M
/// observations, 190k page writes and as many reads of 64 KiB (12 GB each way) through the 64 MiB
/// cache, 20 of the load's 25 seconds. So the rows are held here as they come and inserted in id
/// order once the last has come, each appended after the last. The photos come after the
/// observations: the loader inserts the observations a few at a time while it waits for the
/// parse of the photos (`insert(upTo:with:path:)`), rather than after it.
///
/// They are held as an external sort of variable-length rows: a run of about `SortSpace.runBytes`
/// (encoded values and their sort entries; the row that fills it is the last) gathers in memory;
/// a full run is sorted by id and written to a nameless spill file in the build folder
/// (`SpillFile`, through its own 1 MiB buffer); `insert` merges the runs (k-way, through a heap),
/// reading each a chunk at a time. Below one run nothing touches the disk; with no folder
/// (`SortSpace.memory`, for inputs known to be small) nothing spills and every row stays in memory.
/// (Before, the rows went to a temporary SQLite table and an `INSERT … SELECT … ORDER BY id`:
/// SQLite's sorter took 4 of the 5 seconds that move took on 1M observations.)
///
/// An id that two rows have is refused naming both lines: equal ids meet in the merge, ordered by
/// line. The bundle's bytes do not change: the rows go in by key either way, and `VACUUM INTO`
/// copies them by key.
final class ObservationOrder {
    /// The columns the load binds, in order: the records' bundle columns, then the derived ones.
    static let columns = ObservationRecord.Column.bundleColumns.map { $0.spec.bundleColumn! } + ["coordinates_obscured"]

    /// The INSERT each observation runs, in id order.
    static let insertSQL = SQLText.insert(into: "observations", columns: columns)

    /// A row as the loader hands it over: the columns, then the deduped records line it comes from
    /// (for an error about it).
    static var valuesPerRow: Int { columns.count + 1 }
    private static let idIndex = columns.firstIndex(of: "id")!
    private static let uuidIndex = columns.firstIndex(of: "uuid")!

    /// One held row: its sort key (id, then line) and where its encoded values are.
    struct Entry: BitwiseCopyable {
        var id: Int64
        var line: Int32
        var length: UInt32
        var offset: Int
    }

    /// A spilled row starts with its id (8 bytes), line (4) and length (4), then its values.
    private static let headerBytes = 16

    private let space: SortSpace
    // Appended to for every value of every observation: unchecked at run time, like
    // `RecordBatch`'s storage. Nothing takes an `inout` to them across a call.
    /// The run gathering now: each row's encoded values, and their entries.
    @exclusivity(unchecked) private var bytes: [UInt8] = []
    @exclusivity(unchecked) private var entries: [Entry] = []
    private var spill: SpillFile? = nil
    private var runs: [SpillFile.Location] = []
    /// Whether rows may still be added (until `endAdding`).
    private var adding = true
    /// Once adding ended: the next entry of the run held in memory, or the spilled runs'
    /// readers and their merge.
    private var nextEntry = 0
    private var readers: [RunReader] = []
    private var heap = MergeHeap()
    /// The row inserted last: its id, line and uuid (nil: none), for the refusal of a second.
    private var previous: (id: Int64, line: Int32)? = nil
    private var previousUUID: [UInt8]? = nil

    init(space: SortSpace) {
        self.space = space
    }

    /// Holds row `row` of `batch` (an observations row of `valuesPerRow` values).
    func add(_ batch: RecordBatch, _ row: RecordBatch.Row) throws {
        precondition(adding, "an observation added after their adding ended")
        precondition(Int(row.count) == Self.valuesPerRow, "an observations row holds \(row.count) of \(Self.valuesPerRow) values")
        let first = Int(row.first)
        let idValue = batch.values[first + Self.idIndex]
        precondition(idValue.tag == 1, "an observation's id is an integer")
        let offset = bytes.count
        batch.arena.withUnsafeBytes { arena in
            for index in 0..<Self.columns.count {
                let value = batch.values[first + index]
                bytes.append(value.tag)
                switch value.tag {
                case 1, 2: Self.append(UInt64(bitPattern: value.payload), to: &bytes)
                case 3:
                    Self.append(UInt32(value.length), to: &bytes)
                    bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: arena[Int(value.payload)..<(Int(value.payload) + Int(value.length))]))
                default: break
                }
            }
        }
        let line = batch.values[first + Self.columns.count].payload
        entries.append(Entry(id: idValue.payload, line: Int32(clamping: line), length: UInt32(bytes.count - offset), offset: offset))
        if space.folder != nil && bytes.count + entries.count * MemoryLayout<Entry>.stride >= space.runBytes { try spillRun() }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        a.id != b.id ? a.id < b.id : a.line < b.line
    }

    private func sortRun() {
        entries.withUnsafeMutableBufferPointer { sortInPlace($0, by: Self.before) }
    }

    /// Writes the run, sorted, to the spill file: each row's header and values, appended one
    /// after the other (so they are one contiguous run), never a second copy of the run.
    private func spillRun() throws {
        sortRun()
        if spill == nil { spill = try SpillFile(in: space.folder!) }
        let spill = spill!
        let start = spill.count
        var header: [UInt8] = []
        header.reserveCapacity(Self.headerBytes)
        try bytes.withUnsafeBytes { held in
            for entry in entries {
                header.removeAll(keepingCapacity: true)
                Self.append(entry.id, to: &header)
                Self.append(entry.line, to: &header)
                Self.append(entry.length, to: &header)
                try header.withUnsafeBytes { _ = try spill.append($0) }
                try spill.append(UnsafeRawBufferPointer(rebasing: held[entry.offset..<(entry.offset + Int(entry.length))]))
            }
        }
        runs.append(SpillFile.Location(offset: start, count: Int(spill.count - start)))
        bytes.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// Ends the adding: the rows held are sorted, or their runs readied for the merge, so that
    /// `insert` can put them in, all at once or a few at a time.
    func endAdding() throws {
        precondition(adding, "the observations' adding ended twice")
        adding = false
        if runs.isEmpty {
            sortRun()
            return
        }
        if !entries.isEmpty { try spillRun() }
        bytes = []
        entries = []
        readers = runs.map { RunReader(spill: spill!, run: $0) }
        for run in readers.indices where try readers[run].advance() { heap.push(run, before: runBefore) }
    }

    /// By the runs' current rows' (id, line), ties to the earlier run.
    private func runBefore(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (readers[a], readers[b])
        if x.id != y.id { return x.id < y.id }
        if x.line != y.line { return x.line < y.line }
        return a < b
    }

    /// Inserts the next `limit` held rows (fewer at the end) into `observations` with
    /// `statement` (`insertSQL`), in id order, after `endAdding`. The loader calls it while it
    /// waits for the next batch, so that the observations go in while the photos are parsed.
    ///
    /// - Returns: whether rows are left.
    /// - Throws: naming the file and line (`places`) of an observation whose id an
    ///   earlier line's observation has (the table's key), or SQLite's error with the values.
    func insert(upTo limit: Int, with statement: Statement, places: RecordPlaces) throws -> Bool {
        precondition(!adding, "the observations inserted before their adding ended")
        var inserted = 0
        if runs.isEmpty {
            try bytes.withUnsafeBytes { held in
                while inserted < limit && nextEntry < entries.count {
                    let entry = entries[nextEntry]
                    try insert(entry.id, entry.line, UnsafeRawBufferPointer(rebasing: held[entry.offset..<(entry.offset + Int(entry.length))]), statement, places)
                    nextEntry += 1
                    inserted += 1
                }
            }
            guard nextEntry == entries.count else { return true }
            bytes = []
            entries = []
            nextEntry = 0
        } else {
            while inserted < limit, let top = heap.top {
                let reader = readers[top]
                try reader.withRow { try insert(reader.id, reader.line, $0, statement, places) }
                heap.topAdvanced(ended: try !reader.advance(), before: runBefore)
                inserted += 1
            }
            guard heap.top == nil else { return true }
            readers = []
            runs = []
            spill = nil
        }
        return false
    }

    /// Inserts every held row (ending the adding first if need be); see `insert(upTo:with:places:)`.
    func insert(with statement: Statement, places: RecordPlaces) throws {
        if adding { try endAdding() }
        while try insert(upTo: Int.max, with: statement, places: places) {}
    }

    /// Inserts one row, refusing an id the row before it had.
    private func insert(_ id: Int64, _ line: Int32, _ row: UnsafeRawBufferPointer, _ statement: Statement, _ places: RecordPlaces) throws {
        let uuid = Self.text(at: Self.uuidIndex, of: row)
        if let earlier = previous, earlier.id == id {
            func shown<Bytes: Collection<UInt8>>(_ uuid: Bytes) -> String { String(decoding: uuid, as: UTF8.self) }
            switch (uuid, previousUUID) {
            case (let uuid?, let previousUUID?):
                throw places.error(
                    at: Int(line),
                    "observation \(shown(uuid)) has the id \(id) of observation \(shown(previousUUID)) (\(places.name(Int(earlier.line), beside: Int(line)))): an id names one observation")
            case (nil, nil):
                throw places.error(
                    at: Int(line),
                    "observation \(id) is on \(places.name(Int(earlier.line), beside: Int(line))) too, neither with a uuid: an id names one observation")
            default:
                // One copy of the observation came without its uuid: dedupe keyed it on its id,
                // apart from the copies keyed on their uuid (`RecordKey`).
                let (with, without) = uuid != nil ? (Int(line), Int(earlier.line)) : (Int(earlier.line), Int(line))
                throw places.error(
                    at: Int(line),
                    "observation \(id) comes with the uuid \(uuid.map(shown) ?? previousUUID.map(shown) ?? "") on \(places.name(with, beside: Int(line))) and without one on \(places.name(without, beside: Int(line))): dedupe merges an "
                        + "observation's copies on their uuid, so a copy without one stays a second observation with the same id; "
                        + "every API copy of an observation must carry its uuid (a request whose `fields` leave it out drops it)")
            }
        }
        do {
            try statement.run { try Self.bind(row, to: statement) }
        } catch let error as SQLiteError {
            throw error.inserting(Self.values(of: row), at: Int(line), of: places)
        }
        previous = (id, line)
        if let uuid {
            // Its buffer reused from row to row.
            if previousUUID == nil { previousUUID = [] }
            previousUUID!.removeAll(keepingCapacity: true)
            previousUUID!.append(contentsOf: uuid)
        } else {
            previousUUID = nil
        }
    }

    /// Calls `body` with each value of an encoded row up to value `last` (all of them by
    /// default): its index, tag and payload (an integer's or a real's bits; a text's bytes).
    private static func forEachValue(
        of row: UnsafeRawBufferPointer, through last: Int = columns.count - 1,
        _ body: (Int, UInt8, UInt64, UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        var position = 0
        for index in 0...last {
            let tag = row[position]
            position += 1
            switch tag {
            case 1, 2:
                try body(index, tag, read(UInt64.self, row, at: position), UnsafeRawBufferPointer(start: nil, count: 0))
                position += 8
            case 3:
                let length = Int(read(UInt32.self, row, at: position))
                position += 4
                try body(index, tag, 0, UnsafeRawBufferPointer(rebasing: row[position..<(position + length)]))
                position += length
            default:
                try body(index, tag, 0, UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }
    }

    private static func bind(_ row: UnsafeRawBufferPointer, to statement: Statement) throws {
        try forEachValue(of: row) { index, tag, bits, text in
            switch tag {
            case 1: try statement.bind(Int64(bitPattern: bits), at: index + 1)
            case 2: try statement.bind(Double(bitPattern: bits), at: index + 1)
            case 3: try statement.bind(borrowing: text, at: index + 1)  // the row's buffer outlives its run
            default: try statement.bindNull(index + 1)
            }
        }
    }

    /// The text bytes of value `wanted`, nil when it is not text (read up to it, not past).
    private static func text(at wanted: Int, of row: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var found: UnsafeRawBufferPointer? = nil
        forEachValue(of: row, through: wanted) { index, tag, _, text in if index == wanted && tag == 3 { found = text } }
        return found
    }

    /// A row's values (for error messages).
    private static func values(of row: UnsafeRawBufferPointer) -> [SQLValue] {
        var values: [SQLValue] = []
        forEachValue(of: row) { _, tag, bits, text in
            switch tag {
            case 1: values.append(.integer(Int64(bitPattern: bits)))
            case 2: values.append(.real(Double(bitPattern: bits)))
            case 3: values.append(.text(String(decoding: text, as: UTF8.self)))
            default: values.append(.null)
            }
        }
        return values
    }

    /// The rows of one spilled run, read a chunk at a time; the current row stays readable until
    /// the next `advance`.
    final class RunReader {
        static let chunkBytes = 64 << 10
        let spill: SpillFile
        private var next: Int64
        private let end: Int64
        // Read for every row of the merge: unchecked at run time, as above.
        @exclusivity(unchecked) private var buffer: [UInt8] = []
        @exclusivity(unchecked) private var position = 0
        @exclusivity(unchecked) private(set) var id: Int64 = 0
        @exclusivity(unchecked) private(set) var line: Int32 = 0
        @exclusivity(unchecked) private var rowStart = 0
        @exclusivity(unchecked) private var rowLength = 0

        init(spill: SpillFile, run: SpillFile.Location) {
            self.spill = spill
            next = run.offset
            end = run.offset + Int64(run.count)
        }

        /// Makes the next row current; false at the run's end.
        func advance() throws -> Bool {
            position = rowStart + rowLength
            guard try ensure(ObservationOrder.headerBytes) else {
                guard buffer.count == position else {
                    throw FieldpackError(path: spill.folder, "a scratch file of the observations' order ended inside a row's header")
                }
                return false
            }
            (id, line, rowLength) = buffer.withUnsafeBytes { bytes in
                (ObservationOrder.read(Int64.self, bytes, at: position), ObservationOrder.read(Int32.self, bytes, at: position + 8),
                 Int(ObservationOrder.read(UInt32.self, bytes, at: position + 12)))
            }
            guard try ensure(ObservationOrder.headerBytes + rowLength) else {
                throw FieldpackError(path: spill.folder, "a scratch file of the observations' order ended inside a row")
            }
            rowStart = position + ObservationOrder.headerBytes
            return true
        }

        func withRow<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[rowStart..<(rowStart + rowLength)])) }
        }

        /// Whether `count` bytes from `position` are in the buffer, reading on if they are not
        /// (false: the run ends first).
        private func ensure(_ count: Int) throws -> Bool {
            if buffer.count - position >= count { return true }
            buffer.removeSubrange(0..<position)
            rowStart = 0
            position = 0
            while buffer.count < count {
                guard next < end else { return false }
                let take = Int(min(Int64(max(Self.chunkBytes, count - buffer.count)), end - next))
                try spill.withBytes(at: SpillFile.Location(offset: next, count: take)) { buffer.append(contentsOf: $0) }
                next += Int64(take)
            }
            return true
        }
    }
}
