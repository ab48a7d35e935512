/// A field's JSON path inside its record, `observation_photos[2].photo.original_dimensions`, kept
/// as its parts and spelled out only when an error names it. Each record's photos, their links
/// and their dimensions are reached through such paths, and building each as text (one heap
/// string per part below the record) cost ingest more than the errors that ever read one.
struct FieldPath {
    /// One member, with its array index when an element of it is meant (`photos[2]`).
    private struct Member {
        var key: StaticString
        /// -1: the member itself.
        var index: Int
    }

    /// The path's start already spelled out: empty, or the first members of a path longer than
    /// the three kept as parts.
    private var spelled = ""
    private var first: Member? = nil
    private var second: Member? = nil
    private var third: Member? = nil

    /// The record itself.
    static let record = FieldPath()

    private init() {}

    /// The path one member further in.
    func member(_ key: StaticString) -> FieldPath {
        appending(Member(key: key, index: -1))
    }

    /// The path to element `index` of the array at member `key`.
    func element(_ key: StaticString, _ index: Int) -> FieldPath {
        appending(Member(key: key, index: index))
    }

    private func appending(_ member: Member) -> FieldPath {
        var path = self
        if first == nil {
            path.first = member
        } else if second == nil {
            path.second = member
        } else if third == nil {
            path.third = member
        } else {
            path = FieldPath()
            path.spelled = text
            path.first = member
        }
        return path
    }

    /// The path as a person reads it, dot-separated; empty for the record itself.
    var text: String {
        var text = spelled
        for member in [first, second, third] {
            guard let member else { break }
            if !text.isEmpty { text += "." }
            text += "\(member.key)"
            if member.index >= 0 { text += "[\(member.index)]" }
        }
        return text
    }
}
