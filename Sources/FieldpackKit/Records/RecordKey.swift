/// The key dedupe groups a record on, and the order of the deduped records file: photos, taxa
/// and users by their id, observations by their uuid (the open-data export knows an
/// observation only by it) or, without one, by their id.
///
/// The one definition of a record's identity for dedupe's grouping, for ingest's partitioning
/// of a sharded run (`partition(of:)`) and for the bundle's k-way merge of sharded dedupe parts
/// (`<`: the deduped file's order).
public struct RecordKey: Sendable, Hashable, Comparable {
    public var kind: RecordKind
    /// The id; for an observation with a uuid, the uuid's high word.
    public var high: Int64
    /// For an observation with a uuid, the uuid's low word (never 0: an RFC 4122 uuid's low word
    /// is never 0, and 0 is kept for observations without one); else 0.
    public var low: UInt64

    public init(kind: RecordKind, high: Int64, low: UInt64 = 0) {
        self.kind = kind
        self.high = high
        self.low = low
    }

    /// The key of a record of `kind` (not `.input`) with its columns; nil without an integer id.
    /// Every `.selection` record has one key (the parts' are added up, never deduped).
    public static func of(_ kind: RecordKind, _ record: JSONColumns) -> RecordKey? {
        if kind == .selection { return RecordKey(kind: kind, high: 0) }
        guard let id = record.id else { return nil }
        if kind == .observation, let uuid = ObservationUUID(record.text(ObservationRecord.Column.uuid)) {
            return RecordKey(kind: kind, high: Int64(bitPattern: uuid.high), low: max(uuid.low, 1))
        }
        return RecordKey(kind: kind, high: id)
    }

    /// The kinds in the order the deduped file holds them: inputs, taxa, users (every user's
    /// name known before a photo is credited), observations (their links held before their
    /// photos arrive), what dedupe's selection removed (known once the observations are
    /// written), photos.
    public static let fileOrder: [RecordKind] = [.input, .taxon, .user, .observation, .selection, .photo]

    private static let rankOfKind: [Int] = {
        var ranks = [Int](repeating: 0, count: RecordKind.allCases.count)
        for (rank, kind) in fileOrder.enumerated() { ranks[kind.rawValue] = rank }
        return ranks
    }()

    /// The kind's place in `fileOrder`.
    public static func rank(of kind: RecordKind) -> Int { rankOfKind[kind.rawValue] }

    public static func < (a: RecordKey, b: RecordKey) -> Bool {
        if a.kind != b.kind { return rank(of: a.kind) < rank(of: b.kind) }
        if a.high != b.high { return a.high < b.high }
        return a.low < b.low
    }

    /// The stable hash of the kind's tag and the key's words: the same in every process and on
    /// every machine (never Swift's `hashValue`).
    public var stableValue: UInt64 {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        kind.tag.withUTF8Buffer { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: high.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: low.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes.withUnsafeBytes { stableHash($0) }
    }

    /// Which of `count` partitions holds the record: all copies of one record land in one.
    public func partition(of count: Int) -> Int { Int(stableValue % UInt64(count)) }

    /// Which of `count` spill partitions of one dedupe (within a shard) holds the record: from
    /// the hash's high half, so it is spread evenly within any shard (`partition(of:)` takes
    /// the remainder, mostly of the low half).
    public func spillPartition(of count: Int) -> Int { Int((stableValue >> 32) % UInt64(count)) }
}
