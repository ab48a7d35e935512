/// The keys a pipeline file's objects may hold. A misspelt key is an error naming it, never a
/// setting silently left out ("wikipdia" gave a bundle without articles, a target's "scael" a
/// scale of 1); a key starting with `_` is a comment, in every object of the file.
enum PipelineKeys {
    /// Whether `key` is a comment.
    static func isComment(_ key: String) -> Bool { key.hasPrefix("_") }

    /// Refuses the first key of `object` that is neither in `known` nor a comment.
    ///
    /// - Parameters:
    ///   - place: where the object is (`targets[0]`), or "" for the file's top level.
    ///   - kind: what a key there is (`a pipeline key`, `a display target's key`).
    static func refuseUnknown(in object: JSONValue, known: [String], place: String, kind: String, path: String) throws {
        for member in object.members {
            let key = member.key.string
            guard !isComment(key), !known.contains(key) else { continue }
            let name = place.isEmpty ? "\"\(key)\"" : "\(place).\(key)"
            throw FieldpackError(path: path, "\(name) is not \(kind) (\(known.joined(separator: ", "))); a key starting with _ is a comment")
        }
    }
}
