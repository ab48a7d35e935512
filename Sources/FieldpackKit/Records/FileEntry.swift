/// A file by path, size and SHA-256: the manifest's `files`, and `inputs.json` (the bundle
/// stage's record of its inputs, which the manifest lists).
public struct FileEntry: Sendable, Equatable {
    public var path: String
    public var bytes: Int
    public var sha256: String

    public init(path: String, bytes: Int, sha256: String) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// Writes `[{"path","bytes","sha256"}, …]`.
    public static func write(_ entries: [FileEntry], into writer: inout JSONWriter) {
        writer.beginArray()
        for entry in entries {
            writer.beginObject()
            writer.key("path"); writer.string(entry.path)
            writer.key("bytes"); writer.int(entry.bytes)
            writer.key("sha256"); writer.string(entry.sha256)
            writer.endObject()
        }
        writer.endArray()
    }
}
