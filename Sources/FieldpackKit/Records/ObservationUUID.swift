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
    public init?(_ text: UnsafeRawBufferPointer) {
        guard text.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for index in 0..<36 {
            let byte = text[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            if digits < 16 { high = high << 4 | UInt64(value) } else { low = low << 4 | UInt64(value) }
            digits += 1
        }
        self.high = high
        self.low = low
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
