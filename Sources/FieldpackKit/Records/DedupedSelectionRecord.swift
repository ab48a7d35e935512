/// What dedupe's share of the selection removed (`Selection.dedupeRules`, see `DedupeSelection`):
/// a line of the deduped records file after the observations, only when the pipeline given to
/// dedupe has such rules. A sharded dedupe writes one per part, and one dedupe's spill partitions
/// are merged into one; the bundle adds up every one it reads.
///
/// Ingest writes lines of this shape too, marked `"ingest"` (`Column.stage`): what it counted
/// instead of writing (`ExportLinkPruning.Singles`). Dedupe adds them to its own line and
/// refuses any other `select` line in its input; the bundle refuses ingest's.
///
/// ```
/// ["select", "<Selection.dedupeFingerprint>", {"places": 945657}, <newest seen of those removed>, <photos not selected>, null, null, <taxa left out>, <users left out>]
/// ```
public struct DedupedSelectionRecord: Sendable, Equatable {
    public enum Column: Int, RecordColumnSet {
        /// The rules dedupe applied (`Selection.dedupeFingerprint(taxaKnown:)`, with the taxon
        /// rule when ingest applied it): the bundle refuses records deduped under rules that are
        /// not its pipeline's.
        case fingerprint = 1
        /// The observations removed, by rule (every rule applied, in `SelectionCounts.rules` order).
        case removed
        /// The newest `seen` of the observations removed (Unix ms), null if none: the bundle's
        /// newest seen counts every observation, kept or not.
        case seen
        /// Photos dedupe did not write because no observation it kept links them and no taxon
        /// refers to them (only a whole job's dedupe knows that; a shard's or a spill
        /// partition's writes every photo and counts here only the photos ingest left out), and
        /// those ingest left out: the bundle counts them as not selected, as it counts the ones
        /// that reach it.
        case photosNotSelected
        /// `"ingest"` on ingest's lines of the rows it left out, null on dedupe's.
        case stage
        /// On ingest's lines, the digest of the photos with measured sizes it always wrote
        /// (`measuredDigest`): dedupe refuses lines made under other measured sizes than its own,
        /// as a photo it must write could be missing. Null on dedupe's.
        case measured
        /// On ingest's lines, the export's taxa and users it did not write because no row it
        /// wrote needs them (`ExportParents`), each id counted once for the whole job; on
        /// dedupe's, their sum. The bundle counts them with the taxa it considered and the users
        /// it removed. Absent (a line before 2026-12-04): 0.
        case taxaLeftOut
        case usersLeftOut

        public static let kind = RecordKind.selection

        public var spec: ColumnSpec {
            switch self {
            case .fingerprint: .text()
            case .removed: .list  // an object: the nearest shape
            case .seen, .photosNotSelected, .taxaLeftOut, .usersLeftOut: .integer()
            case .stage, .measured: .text()
            }
        }
    }

    public var fingerprint: String
    public var removed: [String: Int]
    public var seen: Int64?
    public var photosNotSelected = 0
    public var stage: Stage = .dedupe
    /// `Column.measured`: ingest's lines only.
    public var measured: String? = nil
    /// `Column.taxaLeftOut`, `Column.usersLeftOut`.
    public var taxaLeftOut = 0
    public var usersLeftOut = 0

    /// The digest of a list of photos with measured sizes (order and repeats aside).
    public static func measuredDigest(_ photos: [Int64]) -> String {
        let sorted = Array(Set(photos)).sorted()
        return String(sorted.withUnsafeBytes { stableHash($0) }, radix: 16)
    }

    /// Which stage counted.
    public enum Stage: String, Sendable {
        /// Dedupe: what its selection removed (and the photos it did not write).
        case dedupe
        /// Ingest: the rows it did not write, which dedupe adds to its own counts.
        case ingest
    }

    public init(fingerprint: String, rules: [String], stage: Stage = .dedupe) {
        self.fingerprint = fingerprint
        removed = Dictionary(uniqueKeysWithValues: rules.map { ($0, 0) })
        seen = nil
        self.stage = stage
    }

    /// Counts one removed observation.
    package mutating func add(rule: String, seen observationSeen: Int64?) {
        removed[rule, default: 0] += 1
        if let observationSeen { seen = max(seen ?? observationSeen, observationSeen) }
    }

    /// Adds another part's counts (the same rules).
    mutating func add(_ other: DedupedSelectionRecord) {
        for (rule, count) in other.removed { removed[rule, default: 0] += count }
        if let otherSeen = other.seen { seen = max(seen ?? otherSeen, otherSeen) }
        photosNotSelected += other.photosNotSelected
        taxaLeftOut += other.taxaLeftOut
        usersLeftOut += other.usersLeftOut
    }

    /// The line, with its newline; rules in `SelectionCounts.rules` order.
    public func encoded() -> [UInt8] {
        var writer = JSONWriter()
        Column.encode(into: &writer, source: nil) { column, out in
            switch column {
            case .fingerprint: out.string(fingerprint)
            case .removed:
                out.beginObject()
                for rule in SelectionCounts.rules {
                    guard let count = removed[rule] else { continue }
                    out.key(dynamic: rule)
                    out.int(count)
                }
                out.endObject()
            case .seen: out.int(seen)
            case .photosNotSelected: out.int(photosNotSelected)
            case .stage: if stage == .ingest { out.string(Stage.ingest.rawValue) } else { out.null() }
            case .measured: if let measured { out.string(measured) } else { out.null() }
            case .taxaLeftOut: out.int(taxaLeftOut)
            case .usersLeftOut: out.int(usersLeftOut)
            }
        }
        return writer.bytes
    }

    /// Reads a deduped `select` line's columns; nil if they are not that shape.
    public init?(_ record: JSONColumns) {
        guard let fingerprint = record.string(Column.fingerprint), let removed = record[Column.removed], removed.isObject else {
            return nil
        }
        self.fingerprint = fingerprint
        self.removed = [:]
        for member in removed.members {
            let rule = member.key.string
            guard SelectionCounts.rules.contains(rule), let count = member.value.int64, count >= 0 else { return nil }
            self.removed[rule] = Int(count)
        }
        seen = record.int64(Column.seen)
        guard let photos = record.int64(Column.photosNotSelected), photos >= 0 else { return nil }
        photosNotSelected = Int(photos)
        // Absent (a dedupe's line before there were ingest's) or null: a dedupe's.
        if let stage = record[Column.stage], !stage.isNull {
            guard let text = record.text(Column.stage), text.bytes.elementsEqual(Stage.ingest.rawValue.utf8) else { return nil }
            self.stage = .ingest
        }
        if let value = record[Column.measured], !value.isNull {
            guard let digest = record.string(Column.measured) else { return nil }
            measured = digest
        }
        for column in [Column.taxaLeftOut, .usersLeftOut] {
            guard let value = record[column], !value.isNull else { continue }
            guard let count = value.int64, count >= 0 else { return nil }
            if column == .taxaLeftOut { taxaLeftOut = Int(count) } else { usersLeftOut = Int(count) }
        }
    }
}
