/// Why a record, or a part of it, is unusable. `field` is the part's JSON path inside the record
/// (empty: the record itself); `reason` is the sentence a person reads, naming the field.
///
/// Thrown for the record itself, it rejects the record; for a part, the extractor drops the part
/// and keeps the error as a salvage finding (see `Finding.Outcome`).
public struct RecordError: Error {
    public var field: String
    public var reason: String

    init(at field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    static func wrongType(_ field: String, _ value: JSONValue, expected: String) -> RecordError {
        // Past 64 bits, quoted so the document parses (`NonFiniteTokens`).
        if let text = value.text, NonFiniteTokens.isOutOfRangeNumber(text) {
            // Said alike of a number quoted by the parse and of a string that held one.
            return RecordError(at: field, "\(field) is \(text.string.prefix(40)), out of range for \(expected)")
        }
        if value.kind == .integer && value.int64 == nil {
            // An unsigned 64-bit integer: an integer, but not one an id can be.
            return RecordError(at: field, "\(field) is an integer over 2^63 - 1, too large for \(expected)")
        }
        return RecordError(at: field, "\(field) is \(describe(value.kind)), expected \(expected)")
    }

    static func missing(_ field: String) -> RecordError {
        RecordError(at: field, "\(field) is missing")
    }

    static func describe(_ kind: JSONValue.Kind) -> String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .double: return "a non-integer number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// Typed access to an input object's fields: absent and null read as nil; a present value of the
/// wrong type is a `RecordError` naming the field.
struct Fields {
    let object: JSONValue
    let path: FieldPath

    init(_ object: JSONValue, path: FieldPath) {
        self.object = object
        self.path = path
    }

    /// The path of the field `key`, as an error names it.
    func name(_ key: StaticString) -> String {
        path.member(key).text
    }

    func value(_ key: StaticString) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func requiredID(_ key: StaticString = "id") throws(RecordError) -> Int64 {
        guard let value = object[key] else { throw .missing(name(key)) }
        guard let id = value.int64 else { throw .wrongType(name(key), value, expected: "an integer id") }
        guard id > 0 else { throw RecordError(at: name(key), "\(name(key)) is \(id), expected a positive id") }
        return id
    }

    func int(_ key: StaticString) throws(RecordError) -> Int64? {
        guard let value = value(key) else { return nil }
        if let int = value.int64 { return int }
        if let double = value.double, double == double.rounded(), abs(double) < 9e15 { return Int64(double) }
        try notNonFinite(key, value)
        throw .wrongType(name(key), value, expected: "an integer")
    }

    /// A finite number (simdjson never yields NaN or an infinity, but keep the promise here).
    func double(_ key: StaticString) throws(RecordError) -> Double? {
        guard let value = value(key) else { return nil }
        if let double = value.double {
            guard double.isFinite else { throw RecordError(at: name(key), "\(name(key)) is \(double), expected a finite number") }
            return double
        }
        try notNonFinite(key, value)
        throw .wrongType(name(key), value, expected: "a number")
    }

    /// A bare `NaN` or `Infinity` in the input arrives quoted (see `NonFiniteTokens`): say so.
    private func notNonFinite(_ key: StaticString, _ value: JSONValue) throws(RecordError) {
        if let text = value.text, NonFiniteTokens.isToken(text) {
            throw RecordError(at: name(key), "\(name(key)) is \(text.string), expected a finite number")
        }
    }

    func text(_ key: StaticString) throws(RecordError) -> JSONText? {
        guard let value = value(key) else { return nil }
        if let text = value.text { return text }
        throw .wrongType(name(key), value, expected: "a string")
    }

    func bool(_ key: StaticString) throws(RecordError) -> Bool? {
        guard let value = value(key) else { return nil }
        if let bool = value.bool { return bool }
        throw .wrongType(name(key), value, expected: "a boolean")
    }

    func object(_ key: StaticString) throws(RecordError) -> Fields? {
        guard let value = value(key) else { return nil }
        guard value.isObject else { throw .wrongType(name(key), value, expected: "an object") }
        return Fields(value, path: path.member(key))
    }

    func array(_ key: StaticString) throws(RecordError) -> JSONValue? {
        guard let value = value(key) else { return nil }
        guard value.isArray else { throw .wrongType(name(key), value, expected: "an array") }
        return value
    }

    /// A date, `YYYY-MM-DD` (or an ISO 8601 timestamp, which the selection judges by its date):
    /// its text. The export's `observed_on` is read by the same rule (`OpenDataRow`).
    func date(_ key: StaticString) throws(RecordError) -> JSONText? {
        guard let text = try text(key) else { return nil }
        guard Timestamp.isRealDate(text.bytes) else {
            throw RecordError(at: name(key), "\(name(key)) \"\(text.string)\" is not a date YYYY-MM-DD")
        }
        // A timestamp where a date belongs (`2024-06-30T10:00:00Z`, re-serialised dumps): its date
        // as written, so that the column holds only dates.
        return JSONText(start: text.start, count: 10)
    }

    /// An observation's quality grade: research, needs_id or casual.
    func qualityGrade(_ key: StaticString) throws(RecordError) -> JSONText? {
        guard let text = try text(key) else { return nil }
        guard Selection.isQualityGrade(text) else {
            throw RecordError(at: name(key), "\(name(key)) \"\(text.string)\" is not research, needs_id or casual")
        }
        return text
    }

    /// An ISO 8601 timestamp kept as its text, refused (a finding) unless it is one.
    func timestampText(_ key: StaticString) throws(RecordError) -> JSONText? {
        try timestamp(key)?.text
    }


    /// An ISO 8601 timestamp: its text, and the time in Unix milliseconds.
    func timestamp(_ key: StaticString) throws(RecordError) -> (text: JSONText, millis: Int64)? {
        guard let text = try text(key) else { return nil }
        guard let millis = Timestamp.parse(text.bytes) else {
            throw RecordError(at: name(key), "\(name(key)) \"\(text.string)\" is not an ISO 8601 timestamp")
        }
        return (text, millis)
    }

    /// A coordinate given as a JSON number or as a decimal string (`"50.646894"`), if it is a
    /// finite number within `±limit` degrees.
    static func degrees(_ value: JSONValue, limit: Double) -> Double? {
        let number: Double?
        if let double = value.double {
            number = double
        } else if let text = value.text {
            number = decimal(text.bytes)
        } else {
            number = nil
        }
        guard let number, number.isFinite, abs(number) <= limit else { return nil }
        return number
    }

    /// A plain decimal number (`-12`, `4.25`, `1e-3`), spaces around it allowed; nil for
    /// anything else, including the `nan`, `inf` and hexadecimal forms `Double(String)` accepts.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        var first = 0
        var end = bytes.count
        while first < end && bytes[first] == 0x20 { first += 1 }
        while end > first && bytes[end - 1] == 0x20 { end -= 1 }
        let trimmed = UnsafeRawBufferPointer(rebasing: bytes[first..<end])
        if let plain = plainDecimal(trimmed) { return plain }
        var digits = 0
        var exponentDigits = 0
        var state = 0  // 0 sign, 1 integer part, 2 fraction, 3 exponent sign, 4 exponent
        for byte in trimmed {
            switch byte {
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                guard state == 0 || state == 3 else { return nil }
                state += 1
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if state == 0 { state = 1 } else if state == 3 { state = 4 }
                if state >= 3 { exponentDigits += 1 } else { digits += 1 }
            case UInt8(ascii: "."):
                guard state <= 1 else { return nil }
                state = 2
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard state == 1 || state == 2, digits > 0 else { return nil }
                state = 3
            default:
                return nil
            }
        }
        guard digits > 0, state < 3 || exponentDigits > 0 else { return nil }
        return Double(String(decoding: trimmed, as: UTF8.self))
    }

    /// `[+|-]digits[.digits]` of at most 19 digits whose integer is below 2^53 (the export's
    /// coordinates, an API location), read in one pass by Clinger's fast path: an integer below
    /// 2^53 and a power of ten up to 10^22 are both exact doubles, and one IEEE division of exact
    /// values is correctly rounded, so this is the double `strtod` gives. Nil for anything else,
    /// which `decimal` reads the long way.
    @inline(__always)
    private static func plainDecimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= 21 else { return nil }
        let count = bytes.count
        let sign = base.load(as: UInt8.self)
        let negative = sign == UInt8(ascii: "-")
        var index = negative || sign == UInt8(ascii: "+") ? 1 : 0
        var mantissa: UInt64 = 0
        var digits = 0
        var point = -1
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            let digit = byte &- 0x30
            if digit < 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digits += 1
            } else if byte == UInt8(ascii: ".") && point < 0 {
                point = digits
            } else {
                return nil
            }
            index += 1
        }
        guard digits > 0, digits <= 19, mantissa <= 1 << 53 else { return nil }
        let value = Double(mantissa) / powerOfTen(point < 0 ? 0 : digits - point)
        return negative ? -value : value
    }

    /// 10^`exponent` for 0 … 19 (at most 19 digits), each exactly a double: a literal table, where
    /// a lazily made static array asked `swift_once` for every number read.
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> Double {
        let table: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
                    Double, Double, Double, Double, Double, Double, Double, Double, Double, Double) =
            (1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19)
        precondition(exponent >= 0 && exponent < 20, "at most 19 digits")
        return withUnsafeBytes(of: table) { $0.load(fromByteOffset: exponent * 8, as: Double.self) }
    }
}
