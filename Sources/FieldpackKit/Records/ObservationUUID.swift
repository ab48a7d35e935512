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
    /// the digits through a table, with one validity test at the end instead of one per digit.
    public init?(_ text: UnsafeRawBufferPointer) {
        guard text.count == 36, let base = text.baseAddress else { return nil }
        let dash = UInt8(ascii: "-")
        guard base.load(fromByteOffset: 8, as: UInt8.self) == dash, base.load(fromByteOffset: 13, as: UInt8.self) == dash,
              base.load(fromByteOffset: 18, as: UInt8.self) == dash, base.load(fromByteOffset: 23, as: UInt8.self) == dash
        else { return nil }
        let parsed: (high: UInt64, low: UInt64, invalid: UInt8) = Self.hexValues.withUnsafeBufferPointer { table in
            var invalid: UInt8 = 0
            /// Appends the hex digits at `range` to `word`.
            func digits(_ word: inout UInt64, _ range: Range<Int>) {
                for offset in range {
                    let value = table[Int(base.load(fromByteOffset: offset, as: UInt8.self))]
                    invalid |= value
                    word = word << 4 | UInt64(value & 0x0F)
                }
            }
            var high: UInt64 = 0
            var low: UInt64 = 0
            digits(&high, 0..<8)
            digits(&high, 9..<13)
            digits(&high, 14..<18)
            digits(&low, 19..<23)
            digits(&low, 24..<36)
            return (high, low, invalid)
        }
        guard parsed.invalid & 0xF0 == 0 else { return nil }
        self.high = parsed.high
        self.low = parsed.low
    }

    /// Each byte's value as a hex digit (either case), 0xFF for a byte that is not one.
    private static let hexValues: [UInt8] = (0...255).map { byte -> UInt8 in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(byte) - UInt8(ascii: "A") + 10
        default: 0xFF
        }
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
