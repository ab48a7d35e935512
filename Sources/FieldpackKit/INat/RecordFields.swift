/// Why one input record was refused; `field` is its path inside the record.
public struct RecordError: Error {
    public var reason: String
    init(_ reason: String) { self.reason = reason }

    static func wrongType(_ field: String, _ value: JSONValue, expected: String) -> RecordError {
        RecordError("\(field) is \(describe(value.kind)), expected \(expected)")
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
    let path: String

    init(_ object: JSONValue, path: String) {
        self.object = object
        self.path = path
    }

    func name(_ key: StaticString) -> String {
        path.isEmpty ? "\(key)" : "\(path).\(key)"
    }

    func value(_ key: StaticString) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func requiredID(_ key: StaticString = "id") throws(RecordError) -> Int64 {
        guard let value = object[key] else { throw RecordError("\(name(key)) is missing") }
        guard let id = value.int64 else { throw .wrongType(name(key), value, expected: "an integer id") }
        guard id > 0 else { throw RecordError("\(name(key)) is \(id), expected a positive id") }
        return id
    }

    func int(_ key: StaticString) throws(RecordError) -> Int64? {
        guard let value = value(key) else { return nil }
        if let int = value.int64 { return int }
        if let double = value.double, double == double.rounded(), abs(double) < 9e15 { return Int64(double) }
        throw .wrongType(name(key), value, expected: "an integer")
    }

    func double(_ key: StaticString) throws(RecordError) -> Double? {
        guard let value = value(key) else { return nil }
        if let double = value.double { return double }
        throw .wrongType(name(key), value, expected: "a number")
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
        return Fields(value, path: name(key))
    }

    func array(_ key: StaticString) throws(RecordError) -> JSONValue? {
        guard let value = value(key) else { return nil }
        guard value.isArray else { throw .wrongType(name(key), value, expected: "an array") }
        return value
    }

    /// An ISO 8601 timestamp, as Unix milliseconds.
    func timestamp(_ key: StaticString) throws(RecordError) -> Int64? {
        guard let text = try text(key) else { return nil }
        guard let millis = Timestamp.parse(text.bytes) else {
            throw RecordError("\(name(key)) \"\(text.string)\" is not an ISO 8601 timestamp")
        }
        return millis
    }
}
