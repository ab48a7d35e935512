/// The four tables of the iNaturalist open-data export, told by their header line (never the
/// file's name): tab-separated, one header row, no quoting or escaping (`'` and `"` are data),
/// an empty field is null.
enum OpenDataTable: String, CaseIterable, Sendable {
    case observations, photos, taxa, observers

    /// The columns a table must have, as the export names them.
    var required: [StaticString] {
        switch self {
        case .observations:
            ["observation_uuid", "observer_id", "latitude", "longitude", "positional_accuracy", "taxon_id",
             "quality_grade", "observed_on"]
        case .photos:
            ["photo_uuid", "photo_id", "observation_uuid", "observer_id", "extension", "license", "width", "height", "position"]
        case .taxa: ["taxon_id", "ancestry", "rank_level", "rank", "name", "active"]
        case .observers: ["observer_id", "login", "name"]
        }
    }

    /// The columns a table may have (`anomaly_score`, added to observations in 2024-12).
    var optional: [StaticString] {
        self == .observations ? ["anomaly_score"] : []
    }

    /// The input format's name in the records' `input` entries and the summary.
    var format: String { "open-data-\(rawValue)" }

    /// Whether an `input` entry's format is the export's: one of its tables (`gzip+` or not),
    /// or its tar archive (`archiveFormat`), not any other input.
    static func isTableFormat(_ format: String) -> Bool {
        let plain = withoutCompression(format)
        return plain == archiveFormat || allCases.contains { $0.format == plain }
    }

    /// Whether an `input` entry's format is the export's photos table (`gzip+` or not), or its
    /// tar archive, which holds it: an observation the export then gives no photo row for has
    /// no open photo (`Winners.writeRecord`).
    static func givesPhotos(_ format: String) -> Bool {
        let plain = withoutCompression(format)
        return plain == archiveFormat || plain == photos.format
    }

    /// An `input` entry's format without the `gzip+` ingest puts before a compressed input's.
    private static func withoutCompression(_ format: String) -> String {
        format.hasPrefix("gzip+") ? String(format.dropFirst(5)) : format
    }

    /// The input format's name of the export's tar archive.
    static let archiveFormat = "tar+open-data"

    /// A recognised header: the table, and where each of its columns is.
    struct Header: Equatable {
        var table: OpenDataTable
        /// How many fields every row must have.
        var fieldCount: Int
        /// Each column's field index by name (required and optional columns present).
        var positions: [String: Int]

        /// The field index of `column` (a required column, or an optional one: -1 when absent).
        func position(_ column: StaticString) -> Int { positions[column.description] ?? -1 }
    }

    /// The name of the table the export publishes beside the four that fieldpack does not read,
    /// if `head`'s first line is its header (INAT.md §4: `observations_projects`,
    /// `observation_uuid` and `project_id`; `projects`, `project_id`, `title` and `slug`, and
    /// whatever columns a later export adds): a folder of the export given as an input holds
    /// them, and they are passed over with a notice, as they are inside the export's archive.
    static func unreadExportTable(_ head: UnsafeRawBufferPointer) -> String? {
        // Told at its first bytes, as `header` tells a JSON page: every API page and JSON Lines
        // file is asked (splitting their first line was 16% of ingest's time on API pages).
        let text = withoutByteOrderMark(head)
        guard text.starts(with: "observation_uuid\t".utf8) || text.starts(with: "project_id\t".utf8) else { return nil }
        var line = text.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        let names = Set(line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) })
        // Its two columns and whatever a later export adds (`added_at`), but none of the
        // observations table's others: an observations table given a project_id stays one.
        if names.isSuperset(of: ["observation_uuid", "project_id"])
            && !OpenDataTable.observations.required.dropFirst().contains(where: { names.contains($0.description) })
        {
            return "observations_projects"
        }
        if names.isSuperset(of: ["project_id", "title", "slug"]) && !names.contains("observation_uuid") { return "projects" }
        return nil
    }

    /// The table whose columns `line` (a header row) names, or nil when it names no table's
    /// full set. Extra columns are allowed (a later export may add some) and ignored.
    ///
    /// - Throws: a message when the line is an export header missing a table's columns.
    static func header(_ line: UnsafeRawBufferPointer) throws -> Header? {
        // A header's first column name starts with a letter or `_`: a JSON page or line (`{`, `[`,
        // blanks), whose one line may be the whole file, is told at its first byte instead of
        // being split at every tab and decoded (16% of ingest's time on API pages).
        // A UTF-8 byte order mark before the first column name (a table saved by a spreadsheet).
        let line = withoutByteOrderMark(line)
        guard let first = line.first, first == UInt8(ascii: "_") || (first | 0x20 >= UInt8(ascii: "a") && first | 0x20 <= UInt8(ascii: "z"))
        else { return nil }
        var bytes = line
        if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
        // Lines that end in a carriage return alone (classic Mac OS): the whole table is its first
        // "line", which named every column with the rows glued to the last name, and the table
        // was read as no rows, silently. The export never writes them: refused, with the cure.
        if let cr = bytes.firstIndex(of: 0x0D), (try? header(UnsafeRawBufferPointer(rebasing: bytes[..<cr]))) != nil {
            throw FieldpackError(
                "an open-data table whose lines end in a carriage return alone (classic Mac OS line ends), which the export never writes: convert them to line feeds (tr '\\r' '\\n' < in > out)")
        }
        let names = bytes.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard names.count >= 3 else { return nil }
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() where positions[name] == nil { positions[name] = index }
        // The most specific table first: photos and observations both hold observation_uuid.
        for table in [OpenDataTable.photos, .observations, .taxa, .observers] {
            let missing = table.required.filter { positions[$0.description] == nil }
            if missing.isEmpty {
                let known = Set((table.required + table.optional).map(\.description))
                // The first copy was read and the other ignored, without a word.
                if let twice = names.enumerated().first(where: { known.contains($0.element) && positions[$0.element] != $0.offset }) {
                    throw FieldpackError(
                        "an open-data \(table.rawValue) table whose header names \(twice.element) twice (columns \(positions[twice.element]! + 1) and \(twice.offset + 1)): which one holds the value would be a guess")
                }
                return Header(table: table, fieldCount: names.count, positions: positions.filter { known.contains($0.key) })
            }
        }
        // A name with a space or tab around it is not the column: said so, or it looks absent.
        func trimmed(_ name: String) -> String {
            String(decoding: name.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed(), as: UTF8.self)
        }
        // An export header that lacks a column: say which, rather than "not iNaturalist" (or,
        // in the export's archive, a member passed over as a table fieldpack does not read,
        // and a guide built without its taxa or credits). A table's header when it has the
        // table's key column (its first) and another of its columns, spaces around them aside:
        // an observers table whose `name ` a spreadsheet saved with a space, a taxa table
        // whose `ancestry` is named otherwise.
        let bare = Set(names.map(trimmed))
        if [OpenDataTable.photos, .observations, .taxa, .observers].contains(where: { table in
            bare.contains(table.required[0].description) && table.required.filter { bare.contains($0.description) }.count >= 2
        }) {
            // The table that has the most of its columns here, spaces around them aside (the first
            // on a tie): the condition above makes one have two. (Counted by the exact names, a
            // header whose every name had spaces around it had none, and ingest crashed.)
            let closest = [OpenDataTable.photos, .observations, .taxa, .observers].reduce(nil as (OpenDataTable, Int)?) { best, table in
                let present = table.required.filter { bare.contains($0.description) }.count
                return present > (best?.1 ?? 0) ? (table, present) : best
            }!.0
            let missing = closest.required.filter { positions[$0.description] == nil }.map(\.description)
            let spaced = names.filter { trimmed($0) != $0 && missing.contains(trimmed($0)) }
            let hint = spaced.isEmpty ? "" : " (the header has \(spaced.map { "\"\($0)\"" }.joined(separator: ", ")), with spaces around the name)"
            throw FieldpackError("an open-data \(closest.rawValue) table without the column(s) \(missing.joined(separator: ", "))\(hint)")
        }
        return nil
    }
}
