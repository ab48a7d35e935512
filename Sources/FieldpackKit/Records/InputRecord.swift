/// An input file of ingest, and what it gave: a line of the ingest records file after the file's
/// records (for a table an unsharded run read in byte ranges, after the run's records). The
/// deduped file keeps each input once, without the index and counts (`DedupedInputRecord`), so
/// the same records in differently ordered inputs give the same bytes.
public struct InputRecord {
    public enum Column: Int, RecordColumnSet {
        /// The input's index on the command line or in the pipeline: what sources refer to.
        case index = 1
        case path, bytes, sha256
        /// How the file was read (`document`, `json-lines`, `gzip+json-lines`).
        case format
        case records, rejected
        /// Parts dropped from kept records (the rejects file lists them).
        case salvaged
        /// A table of the export read under a selection's dedupe rules (its removed observations
        /// marked, its links to them not written): the digest of those rules
        /// (`ExportLinkPruning`); null for any other input.
        case pruned

        public static let kind = RecordKind.input

        public var spec: ColumnSpec {
            switch self {
            case .index, .bytes, .records, .rejected, .salvaged: .integer()
            case .path, .sha256, .format, .pruned: .text()
            }
        }
    }

    public var index: Int
    public var path: String
    public var bytes: Int
    public var sha256: String
    public var format: String
    public var records: Int
    public var rejected: Int
    public var salvaged: Int
    public var pruned: String?

    public init(
        index: Int, path: String, bytes: Int, sha256: String, format: String, records: Int, rejected: Int, salvaged: Int = 0,
        pruned: String? = nil
    ) {
        self.index = index
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.format = format
        self.records = records
        self.rejected = rejected
        self.salvaged = salvaged
        self.pruned = pruned
    }

    public func encode(into out: inout JSONWriter) {
        Column.encode(into: &out, source: nil) { column, out in
            switch column {
            case .index: out.int(index)
            case .path: out.string(path)
            case .bytes: out.int(bytes)
            case .sha256: out.string(sha256)
            case .format: out.string(format)
            case .records: out.int(records)
            case .rejected: out.int(rejected)
            case .salvaged: out.int(salvaged)
            case .pruned: out.string(pruned)
            }
        }
    }
}

/// An input as the deduped file lists it: `["input", path, bytes, sha256, format]`.
public struct DedupedInputRecord: Sendable {
    public enum Column: Int, RecordColumnSet {
        case path = 1, bytes, sha256, format

        public static let kind = RecordKind.input

        public var spec: ColumnSpec {
            switch self {
            case .bytes: .integer()
            case .path, .sha256, .format: .text()
            }
        }
    }

    public var path: String
    /// As ingest wrote them; nil (null) only in a hand-made records file.
    public var bytes: Int64?
    public var sha256: String?
    public var format: String?

    /// The deduped form of an ingest input record.
    public init?(ingest record: JSONColumns) {
        typealias C = InputRecord.Column
        self.init(record, path: C.path, bytes: C.bytes, sha256: C.sha256, format: C.format)
    }

    /// A deduped input record read back.
    public init?(deduped record: JSONColumns) {
        self.init(record, path: Column.path, bytes: Column.bytes, sha256: Column.sha256, format: Column.format)
    }

    private init?<C: RecordColumnSet>(_ record: JSONColumns, path: C, bytes: C, sha256: C, format: C) {
        guard let text = record.string(path) else { return nil }
        self.init(path: text, bytes: record.int64(bytes), sha256: record.string(sha256), format: record.string(format))
    }

    public init(path: String, bytes: Int64?, sha256: String?, format: String?) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.format = format
    }

    public func encode(into out: inout JSONWriter) {
        Column.encode(into: &out, source: nil) { column, out in
            switch column {
            case .path: out.string(path)
            case .bytes: out.int(bytes)
            case .sha256: out.string(sha256)
            case .format: out.string(format)
            }
        }
    }
}
