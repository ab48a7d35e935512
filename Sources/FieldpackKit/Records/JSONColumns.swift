/// The elements of one positional record, loaded once so each column is a direct lookup.
/// Reuse one per thread: it keeps its storage between records.
public struct JSONColumns {
    /// Slots for the columns, more than any kind has; the first `count` hold the record's.
    private var values = [JSONValue](repeating: .placeholder, count: 32)
    public private(set) var count = 0

    public init() {}

    /// Loads an array's elements (one call into simdjson for them all); false if `record` is not
    /// an array.
    public mutating func load(_ record: JSONValue) -> Bool {
        count = 0
        guard record.isArray else { return false }
        var loaded = record.copyElements(into: &values)
        if loaded > values.count {
            values = [JSONValue](repeating: .placeholder, count: loaded)
            loaded = record.copyElements(into: &values)
        }
        count = loaded
        return true
    }

    /// The value at `index`, nil if absent or null.
    public subscript(index: Int) -> JSONValue? {
        guard index < count, !values[index].isNull else { return nil }
        return values[index]
    }

    public func int64(_ index: Int) -> Int64? { self[index]?.int64 }
    public func double(_ index: Int) -> Double? { self[index]?.double }
    public func bool(_ index: Int) -> Bool? { self[index]?.bool }
    public func text(_ index: Int) -> JSONText? { self[index]?.text }
    public func string(_ index: Int) -> String? { self[index]?.string }
}

extension JSONColumns {
    /// The value of `column`, nil if absent or null.
    public subscript<C: RecordColumnSet>(column: C) -> JSONValue? { self[column.rawValue] }

    public func int64<C: RecordColumnSet>(_ column: C) -> Int64? { self[column.rawValue]?.int64 }
    public func double<C: RecordColumnSet>(_ column: C) -> Double? { self[column.rawValue]?.double }
    public func bool<C: RecordColumnSet>(_ column: C) -> Bool? { self[column.rawValue]?.bool }
    public func text<C: RecordColumnSet>(_ column: C) -> JSONText? { self[column.rawValue]?.text }
    public func string<C: RecordColumnSet>(_ column: C) -> String? { self[column.rawValue]?.string }
}

extension JSONColumns {
    /// The record's id: position 1 of every kind that has one (each `Column.id`), and the key
    /// dedupe groups by, with the kind.
    public var id: Int64? { int64(1) }
}
