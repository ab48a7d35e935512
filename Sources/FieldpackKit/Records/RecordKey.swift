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
            return observation(uuid)
        }
        return RecordKey(kind: kind, high: id)
    }

    /// The key of an observation with a uuid: its high word, and its low word (at least 1, as 0
    /// is an observation without one).
    public static func observation(_ uuid: ObservationUUID) -> RecordKey {
        RecordKey(kind: .observation, high: Int64(bitPattern: uuid.high), low: max(uuid.low, 1))
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
        // The tag's bytes, then `high` and `low` little-endian, hashed in place (no allocation:
        // a sharded ingest and a spilling dedupe take it for every line).
        withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { buffer in
            var count = 0
            kind.tag.withUTF8Buffer { tag in
                for byte in tag {
                    buffer[count] = byte
                    count += 1
                }
            }
            withUnsafeBytes(of: high.littleEndian) { for byte in $0 { buffer[count] = byte; count += 1 } }
            withUnsafeBytes(of: low.littleEndian) { for byte in $0 { buffer[count] = byte; count += 1 } }
            return stableHash(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// The kind and key of a records line read from its first bytes, without a parse:
    /// `["<tag>",<id>,` and, for an observation, `"<uuid>"` or `null` after it; nil for the key
    /// of an `input` line (it has none). Nil when the line is not that plain (an escape, a space,
    /// an id that is not a plain integer in range): the caller parses it and asks `of(_:_:)`, which
    /// gives the same key for every line this reads.
    public static func quick(_ line: UnsafeRawBufferPointer) -> (kind: RecordKind, key: RecordKey?)? {
        guard let kind = RecordKind.of(line) else { return nil }
        let count = line.count
        var index = 2
        let tagMatches: Bool = kind.tag.withUTF8Buffer { tag in
            guard index + tag.count + 2 <= count else { return false }
            for byte in tag {
                if line[index] != byte { return false }
                index += 1
            }
            return true
        }
        guard tagMatches, line[index] == UInt8(ascii: "\""), line[index + 1] == UInt8(ascii: ",") else { return nil }
        index += 2
        if kind == .input { return (kind, nil) }
        if kind == .selection { return (kind, RecordKey(kind: kind, high: 0)) }
        // The id: an optional minus, then digits without a leading zero, in Int64's range.
        var negative = false
        if index < count && line[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var magnitude: UInt64 = 0
        while index < count, line[index] >= 0x30, line[index] <= 0x39 {
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, carry) = times.addingReportingOverflow(UInt64(line[index] - 0x30))
            if overflow || carry { return nil }
            magnitude = plus
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, digits == 1 || line[digitsStart] != 0x30, index < count,
              line[index] == UInt8(ascii: ",") || line[index] == UInt8(ascii: "]")
        else { return nil }
        guard magnitude <= (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)) else { return nil }
        let id = negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude)
        guard kind == .observation else { return (kind, RecordKey(kind: kind, high: id)) }
        // The uuid column: a plain 36-byte uuid, or null.
        guard line[index] == UInt8(ascii: ","), index + 5 <= count else { return nil }
        let rest = UnsafeRawBufferPointer(rebasing: line[(index + 1)...])
        if rest.starts(with: "null".utf8) { return (kind, RecordKey(kind: kind, high: id)) }
        guard rest.count > 38, rest[0] == UInt8(ascii: "\""), rest[37] == UInt8(ascii: "\""),
              let uuid = ObservationUUID(UnsafeRawBufferPointer(rebasing: rest[1..<37]))
        else { return nil }
        return (kind, observation(uuid))
    }

    /// Which of `count` partitions holds the record: all copies of one record land in one.
    public func partition(of count: Int) -> Int { Int(stableValue % UInt64(count)) }

    /// Which of `count` spill partitions of one dedupe (within a shard) holds the record: from
    /// the hash's high half, so it is spread evenly within any shard (`partition(of:)` takes
    /// the remainder, mostly of the low half).
    public func spillPartition(of count: Int) -> Int { Int((stableValue >> 32) % UInt64(count)) }
}
