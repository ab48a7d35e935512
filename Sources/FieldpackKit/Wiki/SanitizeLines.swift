#if canImport(Glibc)
import Glibc
#endif

/// The `fieldpack-sanitize` loop: JSON Lines `{"id", "html"}` (or `{"id", "html_base64"}` for raw
/// bytes) in, `{"id", "output"}` out, in order; `output` is null only when the sanitizer refuses
/// the input.
public struct SanitizeLines {
    public let sanitizer: Sanitizer

    public init(sanitizer: Sanitizer) {
        self.sanitizer = sanitizer
    }

    /// Reads `input` (a path; `/dev/stdin` for standard input), writes to file descriptor `output`.
    public func run(input: String, output: Int32) throws -> (lines: Int, refused: Int) {
        let reader = LineReader(source: try RawFileSource(path: input))
        let parser = JSONParser()
        var writer = JSONWriter(capacity: 1 << 16)
        var lines = 0
        var refused = 0
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            let record = try parser.parse(line, in: input)
            guard record.isObject, let id = record["id"], !id.isNull else {
                throw FieldpackError(path: input, line: line.number, "expected an object with an \"id\"")
            }
            let result: String?
            if let html = record["html"]?.text {
                result = sanitizer.sanitize(html.bytes)
            } else if let encoded = record["html_base64"]?.text {
                guard let bytes = Base64.decode(encoded.bytes) else {
                    throw FieldpackError(path: input, line: line.number, "html_base64 is not base64")
                }
                result = bytes.withUnsafeBytes { sanitizer.sanitize($0) }
            } else {
                throw FieldpackError(path: input, line: line.number, "expected \"html\" or \"html_base64\" as a string")
            }
            lines += 1
            if result == nil { refused += 1 }
            writer.beginObject()
            writer.key("id")
            if let number = id.int64 { writer.int(number) } else { writer.string(id.text) }
            writer.key("output")
            writer.string(result)
            writer.endObject()
            writer.newline()
            if writer.count > 1 << 20 {
                try Self.write(writer.bytes, to: output)
                writer.reset()
            }
        }
        try Self.write(writer.bytes, to: output)
        return (lines, refused)
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        try bytes.withUnsafeBytes { try FileSystem.writeAll($0, to: descriptor, path: "standard output") }
    }
}
