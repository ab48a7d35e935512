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

    /// What a run did: lines sanitized, of them refused by the sanitizer, and lines skipped
    /// because they were not inputs (each named on standard error as it was met).
    public struct Counts: Sendable, Equatable {
        public var lines = 0
        public var refused = 0
        public var skipped = 0
    }

    /// Reads `input` (a path; `/dev/stdin` for standard input), writes to file descriptor `output`.
    /// A line that is not an input (not JSON, not an object with an id and html) is skipped with
    /// a diagnostic naming its line; every other line is still written. A read error stops the run.
    public func run(input: String, output: Int32) throws -> Counts {
        let reader = LineReader(source: try RawFileSource(path: input))
        let parser = JSONParser()
        var writer = JSONWriter(capacity: 1 << 16)
        var counts = Counts()
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            let result: (id: JSONValue, output: String?)
            do {
                result = try sanitize(line, parser: parser, input: input)
            } catch let error as FieldpackError {
                StandardError.write(error.description)
                counts.skipped += 1
                continue
            }
            counts.lines += 1
            if result.output == nil { counts.refused += 1 }
            writer.beginObject()
            writer.key("id")
            if let number = result.id.int64 { writer.int(number) } else { writer.string(result.id.text) }
            writer.key("output")
            writer.string(result.output)
            writer.endObject()
            writer.newline()
            if writer.count > 1 << 20 {
                try Self.write(writer.bytes, to: output)
                writer.reset()
            }
        }
        try Self.write(writer.bytes, to: output)
        return counts
    }

    private func sanitize(_ line: LineReader.Line, parser: JSONParser, input: String) throws -> (id: JSONValue, output: String?) {
        let record = try parser.parse(line, in: input)
        guard record.isObject, let id = record["id"], !id.isNull else {
            throw FieldpackError(path: input, line: line.number, "expected an object with an \"id\"")
        }
        if let html = record["html"]?.text {
            return (id, sanitizer.sanitize(html.bytes))
        }
        if let encoded = record["html_base64"]?.text {
            guard let bytes = Base64.decode(encoded.bytes) else {
                throw FieldpackError(path: input, line: line.number, "html_base64 is not base64")
            }
            return (id, bytes.withUnsafeBytes { sanitizer.sanitize($0) })
        }
        throw FieldpackError(path: input, line: line.number, "expected \"html\" or \"html_base64\" as a string")
    }

    private static func write(_ bytes: [UInt8], to descriptor: Int32) throws {
        try bytes.withUnsafeBytes { try FileSystem.writeAll($0, to: descriptor, path: "standard output") }
    }
}
