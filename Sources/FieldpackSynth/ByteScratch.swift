import FieldpackKit
/// A reusable byte buffer for the small pieces of synthetic JSON that `JSONWriter` has no call
/// for: zero-padded dates, fixed-point coordinates, UUIDs. Append, hand the bytes to the writer
/// (`raw` when the piece is already a JSON value, `string` when it needs quoting), then `reset()`.
///
/// Not thread-safe; each writer thread owns one.
struct ByteScratch {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
    }

    @inline(__always)
    mutating func ascii(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// A non-negative integer in decimal.
    mutating func int(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            int(-value)
            return
        }
        if value >= 10 { int(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `value` zero-padded to `width` digits.
    mutating func digits(_ value: Int64, width: Int) {
        var divisor: Int64 = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8((rest / divisor) % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Millionths as a decimal number without trailing zeros: 50094905 → `50.094905`.
    mutating func micro(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        int(Int64(magnitude / 1_000_000))
        var fraction = magnitude % 1_000_000
        if fraction == 0 { return }
        bytes.append(UInt8(ascii: "."))
        var width = 6
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        digits(Int64(fraction), width: width)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The low `count` nibbles of `value`, most significant first.
    mutating func hex(_ value: UInt64, count: Int) {
        for index in stride(from: count - 1, through: 0, by: -1) {
            bytes.append(Self.hexDigits[Int((value >> (UInt64(index) * 4)) & 0xF)])
        }
    }

    /// A version-4 UUID drawn from `rng`, e.g. `6f73a9f2-019f-4566-a393-2c2242a3198d`.
    mutating func uuid(_ rng: inout SplitMix64) {
        let high = rng.next()
        let low = rng.next()
        hex(high >> 32, count: 8)
        bytes.append(UInt8(ascii: "-"))
        hex(high >> 16, count: 4)
        bytes.append(UInt8(ascii: "-"))
        hex(0x4000 | (high & 0x0FFF), count: 4)
        bytes.append(UInt8(ascii: "-"))
        hex(0x8000 | (low >> 48 & 0x3FFF), count: 4)
        bytes.append(UInt8(ascii: "-"))
        hex(low, count: 12)
    }

    /// `YYYY-MM-DD` of Unix `seconds` seen at a UTC offset.
    mutating func date(_ seconds: Int64, offsetMinutes: Int) {
        let local = seconds + Int64(offsetMinutes) * 60
        let (year, month, day) = Timestamp.civilFromDays(Self.floorDiv(local, 86_400))
        digits(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        digits(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        digits(day, width: 2)
    }

    /// ISO 8601 local time with its offset: `2020-08-27T13:00:51-05:00`.
    mutating func timestamp(_ seconds: Int64, offsetMinutes: Int) {
        date(seconds, offsetMinutes: offsetMinutes)
        let local = seconds + Int64(offsetMinutes) * 60
        let time = local - Self.floorDiv(local, 86_400) * 86_400
        bytes.append(UInt8(ascii: "T"))
        digits(time / 3600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(time % 60, width: 2)
        offset(offsetMinutes)
    }

    /// `+05:30`, `-07:00`, `+00:00`.
    mutating func offset(_ minutes: Int) {
        bytes.append(minutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
        digits(Int64(abs(minutes) / 60), width: 2)
        bytes.append(UInt8(ascii: ":"))
        digits(Int64(abs(minutes) % 60), width: 2)
    }

    static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}

/// A string as a complete JSON value (quoted and escaped), for pre-encoded fragments.
func jsonQuoted(_ text: String) -> [UInt8] {
    var writer = JSONWriter(capacity: text.utf8.count + 8)
    writer.string(text)
    return writer.bytes
}
