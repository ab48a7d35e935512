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

    /// A name that can stand in a credit: nil when it is empty, blank, or the literal `None`
    /// (which exports written by Python carry for a missing name). The one rule for names: ingest
    /// stores such a name as null, and a photo's credit falls back to the login.
    public static func usableName(_ name: JSONText?) -> JSONText? {
        guard let name, isUsable(name.bytes) else { return nil }
        return name
    }

    /// `usableName` for a String (what the bundle reads back).
    public static func usableName(_ name: String?) -> String? {
        guard var name else { return nil }
        return name.withUTF8 { isUsable(UnsafeRawBufferPointer($0)) } ? name : nil
    }

    /// The name to credit a user's photos with: the usable name, else the login (nil if neither).
    public static func creditName(name: String?, login: String?) -> String? {
        usableName(name) ?? usableName(login)
    }

    private static func isUsable(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Blank: only ASCII spaces and controls, or Unicode spaces (NBSP C2 A0, U+2000… E2 80 8x, U+3000 E3 80 80).
        var index = 0
        var blank = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte <= 0x20 || byte == 0x7F {
                index += 1
            } else if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xA0 {
                index += 2
            } else if byte == 0xE2 || byte == 0xE3, index + 2 < bytes.count, bytes[index + 1] == 0x80,
                      byte == 0xE3 ? bytes[index + 2] == 0x80 : (bytes[index + 2] <= 0x8B || bytes[index + 2] == 0xAF)
            {
                index += 3
            } else {
                blank = false
                break
            }
        }
        if blank { return false }
        return !(bytes.count == 4 && bytes.elementsEqual("None".utf8))
    }
}
