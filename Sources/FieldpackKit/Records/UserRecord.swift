/// A user (an observer), as ingest writes it and the bundle loads it into `users`.
public struct UserRecord {
    public enum Column: Int, RecordColumnSet {
        case id = 1, login, name
        /// `updated_at` (Unix ms) of the observation the user came in.
        case seen

        public static let kind = RecordKind.user

        public var spec: ColumnSpec {
            switch self {
            case .id: .integer("id")
            case .login: .text("login")
            case .name: .text("name")
            case .seen: .integer(occurrence: true)
            }
        }
    }

    public var id: Int64
    public var login: JSONText? = nil
    public var name: JSONText? = nil
    public var seen: Int64? = nil

    public init(id: Int64) {
        self.id = id
    }

    /// Writes the record as one ingest line ending with `source`.
    ///
    /// - Returns: where in `out` the occurrence columns begin (what `Satellites` leaves out).
    @discardableResult
    public func encode(into out: inout JSONWriter, source: String) -> Int {
        Column.encode(into: &out, source: source) { column, out in
            switch column {
            case .id: out.int(id)
            case .login: out.string(login)
            case .name: out.string(name)
            case .seen: out.int(seen)
            }
        }
    }
}
