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
        // Blank: nothing the credit line would keep (`License.credit` collapses whitespace away,
        // by `Character.isWhitespace`), or controls. ASCII is decided a byte at a time; a name
        // with any other byte by its characters (U+2028, U+0085, U+205F… are spaces too, and a
        // name of them alone would leave a photo without a credit where its login could give one).
        for byte in bytes {
            if byte <= 0x20 || byte == 0x7F { continue }
            if byte < 0x80 { return !(bytes.count == 4 && bytes.elementsEqual("None".utf8)) }
            // Spaces, controls and invisible format characters (U+200B zero width space, U+2060,
            // U+FEFF): a name of them alone would credit the photo to nobody visible.
            return !String(decoding: bytes, as: UTF8.self).allSatisfy { character in
                character.isWhitespace
                    || character.unicodeScalars.allSatisfy { [.control, .format].contains($0.properties.generalCategory) || License.isInvisibleMark($0) }
            }
        }
        return false
    }
}
