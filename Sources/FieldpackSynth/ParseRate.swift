import FieldpackKit
/// How fast the JSON parser alone gets through inputs: read (and gunzip), then parse every
/// document or line with simdjson, with no extraction, hashing or output. `make bench` runs it
/// on one core to show the parser's share of ingest (`fieldpack-synth --parse-only`).
public enum ParseRate {
    public struct Result: Sendable {
        public var bytes = 0
        public var documents = 0
    }

    public static func measure(inputs: [String], maxDocumentBytes: Int = 256 << 20) throws -> Result {
        var result = Result()
        let parser = JSONParser()
        // One read buffer for every file, as ingest's workers keep one.
        let buffer = PaddedBuffer(capacity: LineReader.defaultChunkSize)
        for path in inputs {
            let reader = LineReader(
                source: try openInput(path, hashing: false).source, buffer: buffer, maxLineBytes: maxDocumentBytes)
            switch try InputFormat.detect(reader, parser: parser) {
            case .jsonLines:
                while let line = try reader.next() {
                    result.bytes += line.bytes.count + 1
                    if (try? parser.parse(line.bytes)) != nil { result.documents += 1 }
                }
            case .document:
                let bytes = try reader.rest(limit: maxDocumentBytes)
                result.bytes += bytes.count
                if (try? parser.parse(bytes)) != nil { result.documents += 1 }
            }
        }
        return result
    }
}
