import CSimdJSON

#if canImport(Glibc)
import Glibc
#endif

/// A parsed JSON value; valid until its parser parses again. Cheap to copy.
public struct JSONValue {
    let raw: fp_json_value

    public enum Kind: Equatable, Sendable {
        case null, bool, integer, double, string, array, object
    }

    public var kind: Kind {
        switch fp_json_type_of(raw) {
        case FP_JSON_NULL: return .null
        case FP_JSON_BOOL: return .bool
        case FP_JSON_INT, FP_JSON_UINT: return .integer
        case FP_JSON_DOUBLE: return .double
        case FP_JSON_STRING: return .string
        case FP_JSON_ARRAY: return .array
        default: return .object
        }
    }

    public var isNull: Bool { fp_json_type_of(raw) == FP_JSON_NULL }
    public var isObject: Bool { fp_json_type_of(raw) == FP_JSON_OBJECT }
    public var isArray: Bool { fp_json_type_of(raw) == FP_JSON_ARRAY }

    /// The member named `key`, if this is an object that has it.
    @inline(__always)
    public subscript(key: StaticString) -> JSONValue? {
        var out = fp_json_value()
        let found = key.utf8Start.withMemoryRebound(to: CChar.self, capacity: key.utf8CodeUnitCount) {
            fp_json_find(raw, $0, key.utf8CodeUnitCount, &out)
        }
        return found ? JSONValue(raw: out) : nil
    }

    /// An integer that fits in Int64; nil for doubles, even integral ones.
    public var int64: Int64? {
        var value: Int64 = 0
        return fp_json_get_int64(raw, &value) ? value : nil
    }

    public var double: Double? {
        var value = 0.0
        return fp_json_get_double(raw, &value) ? value : nil
    }

    public var bool: Bool? {
        var value = false
        return fp_json_get_bool(raw, &value) ? value : nil
    }

    /// The string's bytes, without copying; valid until the parser parses again.
    public var text: JSONText? {
        var pointer: UnsafePointer<CChar>? = nil
        var length = 0
        guard fp_json_get_string(raw, &pointer, &length), let pointer else { return nil }
        return JSONText(start: UnsafeRawPointer(pointer), count: length)
    }

    /// The string, copied into a Swift `String`.
    public var string: String? { text?.string }

    /// Whether an object anywhere in this value (itself included) has a key twice, read in one
    /// walk of simdjson's document: what lets a record without duplicates skip the walk that
    /// names them (`DuplicateKeys`).
    public var hasDuplicateKeys: Bool { fp_json_has_duplicate_keys(raw) }

    /// Copies an array's elements into `buffer`'s slots from the start, in one call over
    /// simdjson's document rather than one per element, and returns how many the array has: when
    /// that is more than `buffer.count`, only the first `buffer.count` were copied. 0 for a value
    /// that is not an array.
    func copyElements(into buffer: inout [JSONValue]) -> Int {
        // A JSONValue is its one fp_json_value, so slots of one are slots of the other.
        assert(MemoryLayout<JSONValue>.size == MemoryLayout<fp_json_value>.size
            && MemoryLayout<JSONValue>.stride == MemoryLayout<fp_json_value>.stride)
        return buffer.withUnsafeMutableBufferPointer { slots in
            slots.withMemoryRebound(to: fp_json_value.self) { raw in fp_json_array_elements(self.raw, raw.baseAddress, raw.count) }
        }
    }

    /// A slot for `copyElements(into:)` to fill: it belongs to no document, so it must be
    /// overwritten before it is read.
    static var placeholder: JSONValue { JSONValue(raw: fp_json_value()) }

    /// The elements of an array (or the values of an object).
    public var elements: JSONElements { JSONElements(container: self) }

    /// The members of an object, with their keys.
    public var members: JSONMembers { JSONMembers(container: self) }
}

/// String bytes inside a parser's buffer; valid until that parser parses again.
public struct JSONText {
    public let start: UnsafeRawPointer
    public let count: Int

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }
    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var isEmpty: Bool { count == 0 }

    public func equals(_ literal: StaticString) -> Bool {
        literal.utf8CodeUnitCount == count && memcmp(start, literal.utf8Start, count) == 0
    }

    /// Whether the text is `literal` with ASCII letters compared in either case (`literal` in
    /// lower case).
    public func equalsIgnoringASCIICase(_ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == count else { return false }
        let own = start.assumingMemoryBound(to: UInt8.self)
        let expected = literal.utf8Start
        for index in 0..<count {
            var byte = own[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != expected[index] { return false }
        }
        return true
    }
}

public struct JSONElements: Sequence {
    let container: JSONValue

    public struct Iterator: IteratorProtocol {
        var iter = fp_json_iter()
        var valid: Bool

        public mutating func next() -> JSONValue? {
            guard valid else { return nil }
            var out = fp_json_value()
            var key: UnsafePointer<CChar>? = nil
            var length = 0
            if fp_json_iter_next(&iter, &out, &key, &length) { return JSONValue(raw: out) }
            valid = false
            return nil
        }
    }

    public func makeIterator() -> Iterator {
        var iterator = Iterator(valid: false)
        iterator.valid = fp_json_iter_begin(container.raw, &iterator.iter)
        return iterator
    }
}

public struct JSONMembers: Sequence {
    let container: JSONValue

    public struct Iterator: IteratorProtocol {
        var iter = fp_json_iter()
        var valid: Bool

        public mutating func next() -> (key: JSONText, value: JSONValue)? {
            guard valid else { return nil }
            var out = fp_json_value()
            var key: UnsafePointer<CChar>? = nil
            var length = 0
            if fp_json_iter_next(&iter, &out, &key, &length), let key {
                return (JSONText(start: UnsafeRawPointer(key), count: length), JSONValue(raw: out))
            }
            valid = false
            return nil
        }
    }

    public func makeIterator() -> Iterator {
        var iterator = Iterator(valid: false)
        iterator.valid = container.isObject && fp_json_iter_begin(container.raw, &iterator.iter)
        return iterator
    }
}
