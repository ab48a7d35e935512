/// What one column of an intermediate record holds, and where the bundle keeps it.
public struct ColumnSpec: Sendable {
    public enum Value: Sendable {
        case integer, real, text, bool
        /// A JSON array (photo links, photo ids); the bundle loads it into rows of its own.
        case list
    }

    public var value: Value
    /// The bundle table's column this one loads into unchanged; nil when the bundle derives the
    /// column or does not keep it.
    public var bundleColumn: String?
    /// Whether the column says where this copy was seen (its `updated_at`, the observation it
    /// came in) rather than what the record says. Such columns come last; satellites that differ
    /// only in them are one record (see `Satellites`).
    public var occurrence: Bool

    public static func integer(_ bundle: String? = nil, occurrence: Bool = false) -> ColumnSpec {
        ColumnSpec(value: .integer, bundleColumn: bundle, occurrence: occurrence)
    }

    public static func real(_ bundle: String? = nil) -> ColumnSpec { ColumnSpec(value: .real, bundleColumn: bundle, occurrence: false) }
    public static func text(_ bundle: String? = nil) -> ColumnSpec { ColumnSpec(value: .text, bundleColumn: bundle, occurrence: false) }
    public static func bool(_ bundle: String? = nil) -> ColumnSpec { ColumnSpec(value: .bool, bundleColumn: bundle, occurrence: false) }
    public static var list: ColumnSpec { ColumnSpec(value: .list, bundleColumn: nil, occurrence: false) }
}

/// A record kind's columns: the cases in record order, each one's raw value its position in
/// the record's array (0 is the kind's tag). The one definition of the kind's layout: encoders
/// switch over the cases, decoders read by them, and the bundle's INSERT is generated from them.
public protocol RecordColumnSet: CaseIterable, Sendable where Self: RawRepresentable, RawValue == Int {
    static var kind: RecordKind { get }
    var spec: ColumnSpec { get }
}

extension RecordColumnSet {
    /// The columns in record order (positions run 1, 2, … without gaps).
    public static var ordered: [Self] { Array(allCases).sorted { $0.rawValue < $1.rawValue } }

    /// Calls `body` with each column in record order, without allocating (encoders' hot loop).
    @inline(__always)
    public static func inOrder(_ body: (Self) -> Void) {
        var position = 1
        while let column = Self(rawValue: position) {
            body(column)
            position += 1
        }
    }

    /// Writes one records line: the kind's tag, each column's value (`write` switches over the
    /// columns, so a new column does not compile until it is written), then `source` if any.
    ///
    /// - Returns: where in `out` the occurrence columns begin (what `Satellites` leaves out of a
    ///   record's identity); `out.count` at the end of the columns if there are none.
    @inline(__always) @discardableResult
    public static func encode(
        into out: inout JSONWriter, source: String?, _ write: (Self, inout JSONWriter) -> Void
    ) -> Int {
        out.beginArray()
        out.string(kind.tag)
        var occurrenceStart: Int? = nil
        inOrder { column in
            if column.spec.occurrence && occurrenceStart == nil { occurrenceStart = out.count }
            write(column, &out)
        }
        let end = occurrenceStart ?? out.count
        if let source { out.string(source) }
        out.endArray()
        out.newline()
        return end
    }

    /// This column's bit in a record's mask of unknown values (`ObservationRecord.Column.unknown`,
    /// `TaxonRecord.Column.unknown`).
    public var unknownBit: Int64 { 1 << Int64(rawValue) }

    /// The columns the bundle loads unchanged, in record order.
    public static var bundleColumns: [Self] { ordered.filter { $0.spec.bundleColumn != nil } }

    /// `INSERT INTO table (<bundle columns>, <extra>) VALUES (?, …)`: bind the bundle columns
    /// in record order, then the `extra` columns the bundle derives, in the order given.
    public static func insertSQL(into table: String, extra: [String] = []) -> String {
        SQLText.insert(into: table, columns: bundleColumns.map { $0.spec.bundleColumn! } + extra)
    }
}

/// SQL generated from column lists, so that a statement's columns and its placeholders come from
/// one list.
public enum SQLText {
    /// `INSERT INTO table (a, b) VALUES (?, ?)`.
    public static func insert(into table: String, columns: [String]) -> String {
        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
    }
}
