/// Writes compact JSON into a byte buffer, members in the order they are written.
///
/// The same values always give the same bytes: no dictionaries, shortest round-trip doubles.
public struct JSONWriter {
    /// The written bytes (shared with copies of this writer).
    public private(set) var buffer: ByteBuffer
    private var needsComma = false
    /// Whether a NUL in a string is written as U+FFFD, counted in `replacedNULs`, rather than
    /// escaped: ingest's records, where an escaped `\u0000` in the input shipped a NUL that cut
    /// a name short for the app's C-string readers (`sqlite3_column_text`).
    public var replacesNUL = false
    public private(set) var replacedNULs = 0

    public init(capacity: Int = 4096) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// A copy of the written bytes.
    public var bytes: [UInt8] { buffer.array }

    public var count: Int { buffer.count }

    public mutating func reset() {
        buffer.removeAll()
        needsComma = false
    }

    /// Hands the written bytes over and goes on in `replacement` (emptied), or a fresh buffer.
    public mutating func take(replacement: ByteBuffer? = nil, capacity: Int = 4096) -> ByteBuffer {
        let taken = buffer
        buffer = replacement ?? ByteBuffer(capacity: capacity)
        buffer.removeAll()
        needsComma = false
        return taken
    }

    /// Drops everything after `count` bytes (a record that turned out bad); the next value
    /// starts a new line's record.
    public mutating func truncate(to count: Int) {
        buffer.truncate(to: count)
        needsComma = false
    }

    public mutating func beginObject() {
        comma()
        buffer.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        buffer.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        comma()
        buffer.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        buffer.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Ends a JSON Lines record.
    public mutating func newline() {
        buffer.append(UInt8(ascii: "\n"))
        needsComma = false
    }

    /// Writes `"key":`; the value must follow.
    public mutating func key(_ name: StaticString) {
        comma()
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        buffer.append(UInt8(ascii: "\""))
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes `"name":` for a key known only at run time.
    public mutating func key(dynamic name: String) {
        comma()
        var name = name
        name.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0)) }
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        comma()
        var value = value
        value.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0)) }
        needsComma = true
    }

    /// Writes the concatenation of `parts` as one string, without building it.
    public mutating func string(parts: [String]) {
        comma()
        buffer.append(UInt8(ascii: "\""))
        for var part in parts {
            part.withUTF8 { appendEscaped(UnsafeRawBufferPointer($0)) }
        }
        buffer.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func string(_ value: StaticString) {
        comma()
        appendQuoted(UnsafeRawBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount))
        needsComma = true
    }

    public mutating func string(_ value: JSONText) {
        comma()
        appendQuoted(value.bytes)
        needsComma = true
    }

    public mutating func string(_ value: UnsafeRawBufferPointer) {
        comma()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func string(_ value: JSONText?) {
        if let value { string(value) } else { null() }
    }

    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: Int64) {
        comma()
        appendInteger(value)
        needsComma = true
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func int(_ value: Int64?) {
        if let value { int(value) } else { null() }
    }

    /// Writes a number; NaN and the infinities, which JSON cannot hold, as `null`.
    public mutating func double(_ value: Double) {
        comma()
        if !value.isFinite {
            buffer.append(Array("null".utf8))
        } else if value == value.rounded(), abs(value) < 1e15 {
            appendInteger(Int64(value))
        } else {
            buffer.append(Array(value.description.utf8))
        }
        needsComma = true
    }

    public mutating func double(_ value: Double?) {
        if let value { double(value) } else { null() }
    }

    public mutating func bool(_ value: Bool) {
        comma()
        buffer.append(value ? Self.trueBytes : Self.falseBytes)
        needsComma = true
    }

    public mutating func bool(_ value: Bool?) {
        if let value { bool(value) } else { null() }
    }

    public mutating func null() {
        comma()
        buffer.append(Self.nullBytes)
        needsComma = true
    }

    /// Copies a parsed value (as fieldpack writes JSON: compact, members in their order).
    public mutating func value(_ value: JSONValue) {
        switch value.kind {
        case .null: null()
        case .bool: bool(value.bool ?? false)
        case .integer:
            if let integer = value.int64 { int(integer) } else { double(value.double ?? 0) }
        case .double: double(value.double ?? 0)
        case .string: string(value.text)
        case .array:
            beginArray()
            for element in value.elements { self.value(element) }
            endArray()
        case .object:
            beginObject()
            for member in value.members {
                comma()
                appendQuoted(member.key.bytes)
                buffer.append(UInt8(ascii: ":"))
                needsComma = false
                self.value(member.value)
            }
            endObject()
        }
    }

    /// Writes already-encoded JSON as one value.
    public mutating func raw(_ json: [UInt8]) {
        comma()
        buffer.append(json)
        needsComma = true
    }

    @inline(__always)
    private mutating func comma() {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
    }

    private mutating func appendInteger(_ value: Int64) {
        if value == 0 {
            buffer.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            self.buffer.append(UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let unicodeEscape: [UInt8] = Array("\\u00".utf8)
    private static let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]

    private mutating func appendQuoted(_ value: [UInt8]) {
        value.withUnsafeBytes { appendQuoted($0) }
    }

    private mutating func appendQuoted(_ value: UnsafeRawBufferPointer) {
        buffer.append(UInt8(ascii: "\""))
        appendEscaped(value)
        buffer.append(UInt8(ascii: "\""))
    }

    /// Where the first byte at or after `start` that JSON escapes (a control byte, `"` or `\`)
    /// may be: eight bytes at a time, exactly at the first such byte, or where fewer than eight
    /// are left (the byte loop reads on from there). Strings are most of the records' bytes and
    /// rarely hold such a byte (the byte loop was 3.5% of ingest's CPU).
    @inline(__always)
    static func firstToEscape(in value: UnsafeRawBufferPointer, from start: Int) -> Int {
        WordBytes.skipUnflagged(in: value, from: start) { word in
            WordBytes.controls(word) | WordBytes.equal(to: UInt8(ascii: "\""), word) | WordBytes.equal(to: UInt8(ascii: "\\"), word)
        }
    }

    private mutating func appendEscaped(_ value: UnsafeRawBufferPointer) {
        var clean = 0
        let count = value.count
        // Copy runs of bytes that need no escaping in one append.
        while clean < count {
            var index = Self.firstToEscape(in: value, from: clean)
            while index < count {
                let byte = value[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
                index += 1
            }
            if index > clean { buffer.append(UnsafeRawBufferPointer(rebasing: value[clean..<index])) }
            if index == count { break }
            let byte = value[index]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\")); buffer.append(byte)
            case 0x0A: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "r"))
            case 0x09: buffer.append(UInt8(ascii: "\\")); buffer.append(UInt8(ascii: "t"))
            case 0x00 where replacesNUL:
                buffer.append(Self.replacementCharacter)
                replacedNULs += 1
            default:
                buffer.append(Self.unicodeEscape)
                buffer.append(Self.hexDigits[Int(byte >> 4)])
                buffer.append(Self.hexDigits[Int(byte & 0xF)])
            }
            clean = index + 1
        }
    }
}
