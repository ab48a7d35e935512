/// An observation's uuid as its 128 bits: what identifies an observation in both sources. API
/// pages carry an observation's integer id and its uuid; the open-data export only the uuid.
/// Dedupe merges observations on it, case-insensitively (see `Dedupe`).
public struct ObservationUUID: Sendable, Equatable {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Parses the canonical form `8-4-4-4-12` hex digits (either case); nil for anything else.
    /// Every key dedupe and the bundle compare goes through here (millions per run), so it reads
    /// the digits eight at a time (`WordBytes.eightHexDigits`): the first eight, the two groups of
    /// four after them, the next group of four with the first four of the last group, and the
    /// last eight.
    public init?(_ text: UnsafeRawBufferPointer) {
        guard text.count == 36, let base = text.baseAddress else { return nil }
        let dash = UInt8(ascii: "-")
        guard base.load(fromByteOffset: 8, as: UInt8.self) == dash, base.load(fromByteOffset: 13, as: UInt8.self) == dash,
              base.load(fromByteOffset: 18, as: UInt8.self) == dash, base.load(fromByteOffset: 23, as: UInt8.self) == dash
        else { return nil }
        /// The four bytes at `offset` then the four at `next`, as one little-endian word.
        func joined(_ offset: Int, _ next: Int) -> UInt64 {
            UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                | UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: next, as: UInt32.self))) << 32
        }
        guard let first = WordBytes.eightHexDigits(WordBytes.load(text, at: 0)),
              let second = WordBytes.eightHexDigits(joined(9, 14)),
              let third = WordBytes.eightHexDigits(joined(19, 24)),
              let fourth = WordBytes.eightHexDigits(WordBytes.load(text, at: 28))
        else { return nil }
        self.high = UInt64(first) << 32 | UInt64(second)
        self.low = UInt64(third) << 32 | UInt64(fourth)
    }

    public init?(_ text: JSONText?) {
        guard let text else { return nil }
        self.init(text.bytes)
    }

    /// The `observations.id` of an observation known only by its uuid (from the export): a
    /// negative number from a hash of the uuid's bits, the same in every bundle built from any
    /// export. API ids are positive, so the two never meet. Two uuids of one bundle with the same
    /// hash (about 1 in 4,000 for 70 million export-only observations) are told apart by dedupe:
    /// the lower uuid keeps the hash, the other takes the next free id below it (`ExportIDs`);
    /// the app addresses an observation without an API id by its uuid.
    public var exportID: Int64 {
        var words = (high.bigEndian, low.bigEndian)
        let hash = withUnsafeBytes(of: &words) { stableHash($0) }
        return -1 - Int64(bitPattern: hash >> 1)
    }
}
