/// Where the winning copy of an observation from the open-data export came from: the export
/// file as ingest named it (for a table inside the export's tar, `export.tar.gz#folder/
/// observations.csv`) and the line.
///
/// Dedupe appends it to such an observation's deduped line, after the columns (where an ingest
/// line has its source): `[…, seen, ["…/observations.csv", 17]]`. An observation whose winner
/// is an API copy has none. The bundle stage reads it to tell an export observation from an API
/// one and to name the export's line in the findings of the export's whole-job rules
/// (`ExportObservationRules`); it loads nothing from it, so the bundle's bytes do not depend on it.
public struct ExportOrigin: Sendable, Equatable {
    public var path: String
    public var line: Int?

    public init(path: String, line: Int?) {
        self.path = path
        self.line = line
    }

    /// Resolves an ingest source (`3:17`, a loose table's line; `3:folder/observations.csv:17`, a
    /// line of a member of the export's tar) with each input's path by its index.
    init(source: String, sourceNames: [Int: String]) {
        let parts = source.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, let index = Int(parts[0]), let path = sourceNames[index] else {
            self.init(path: source, line: nil)
            return
        }
        let line = Int(parts[parts.count - 1])
        if parts.count == 2 {
            self.init(path: path, line: line)
        } else {
            self.init(path: "\(path)#\(parts[1..<(parts.count - 1)].joined(separator: ":"))", line: line)
        }
    }

    /// Whether it comes first by path, then line (an unknown line last): the origin of
    /// export copies that tie on everything else (`Winners.writeRecord`).
    func precedes(_ other: ExportOrigin) -> Bool {
        if path != other.path { return path.utf8.lexicographicallyPrecedes(other.path.utf8) }
        return (line ?? Int.max) < (other.line ?? Int.max)
    }

    /// Where a deduped observation line holds it: right after the last column.
    static let position = ObservationRecord.Column.allCases.count + 1

    /// The JSON element dedupe appends: `[path, line]` (line null when unknown).
    var json: [UInt8] {
        var writer = JSONWriter()
        writer.beginArray()
        writer.string(path)
        writer.int(line.map { Int64($0) })
        writer.endArray()
        return writer.bytes
    }

    /// The origin of a deduped observation line; nil for an observation whose winner came from
    /// the API (or a line without one).
    static func of(_ record: JSONColumns) -> ExportOrigin? {
        guard let origin = record[position], origin.isArray else { return nil }
        var elements = origin.elements.makeIterator()
        guard let path = elements.next()?.string else { return nil }
        return ExportOrigin(path: path, line: elements.next()?.int64.map { Int($0) })
    }
}
