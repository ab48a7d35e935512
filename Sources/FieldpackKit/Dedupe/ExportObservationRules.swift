/// What dedupe decides for an observation written from the open-data export: its id
/// (`ExportIDs`), and whether its observer and taxon exist.
///
/// The export's observations name their observer and taxon by id only, in tables of their own
/// (an API observation carries both inside it). An `observer_id` or `taxon_id` that no record of
/// any input has (the row was rejected, or the table is missing it) is dropped from the
/// observation, which is kept: a *salvaged* finding names the export file, the line and the id.
/// Without its observer, its photos have nobody to credit and do not ship. The bundle stage would
/// otherwise refuse the observation as a foreign key violation.
///
/// Read by both halves of the observations' write at once: nothing in it changes then.
struct ExportObservationRules: @unchecked Sendable {
    let ids: ExportIDs
    /// Taxa and users, sorted by id (dedupe's own arrays, alive while observations are written).
    let taxa: OccurrenceArray<RecordOccurrence>
    let users: OccurrenceArray<RecordOccurrence>
    /// Input index → path, to name the export file a finding is about.
    let sourceNames: [Int: String]

    func hasTaxon(_ id: Int64) -> Bool { Self.contains(id, taxa) }
    func hasUser(_ id: Int64) -> Bool { Self.contains(id, users) }

    private static func contains(_ id: Int64, _ array: OccurrenceArray<RecordOccurrence>) -> Bool {
        let sorted = UnsafeBufferPointer(array.buffer)
        let at = sorted.partitionPoint { $0.id < id }
        return at < sorted.count && sorted[at].id == id
    }

    /// Where an ingest source (`3:17`, a loose table's line; `3:folder/observations.csv:17`, a line
    /// of a member of the export's tar) points: the file as ingest named it, and the line.
    func location(_ source: String) -> (path: String, line: Int?) {
        let parts = source.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, let index = Int(parts[0]), let path = sourceNames[index] else { return (source, nil) }
        let line = Int(parts[parts.count - 1])
        if parts.count == 2 { return (path, line) }
        return ("\(path)#\(parts[1..<(parts.count - 1)].joined(separator: ":"))", line)
    }
}

/// The missing-parent findings of one half of the observations' write: all counted, the first
/// `limit` kept in full (in uuid order).
public struct MissingParents: Sendable {
    public var count = 0
    public var shown: [Finding] = []
    public static let limit = 100

    public init() {}

    mutating func add(_ finding: Finding) {
        count += 1
        if shown.count < Self.limit { shown.append(finding) }
    }

    mutating func merge(_ later: MissingParents) {
        count += later.count
        shown += later.shown.prefix(max(0, Self.limit - shown.count))
    }
}
