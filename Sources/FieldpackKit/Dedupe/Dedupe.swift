#if canImport(Glibc)
import Glibc
#endif

/// The dedupe stage: one record per id for observations, taxa, users and photos.
///
/// The newest copy wins (`updated_at`, of the record or of the observation it came in), whatever
/// file it came from; ties fall to deterministic rules (see `Occurrence.outranks`). Photo identity
/// is the photo id, never the URL; a winner without dimensions takes them from another occurrence.
/// Memory holds one compact `Occurrence` per record of one kind at a time; record bytes are read
/// back from the input file only for winners.
public struct Dedupe {
    public struct Options: Sendable {
        public var input: String
        public var output: String
        public var conflicts: String
        /// How many example ids the conflicts report lists per field.
        public var examples = 20

        public init(input: String, output: String, conflicts: String) {
            self.input = input
            self.output = output
            self.conflicts = conflicts
        }
    }

    public struct Summary: Sendable {
        public var occurrences: [String: Int] = [:]
        public var unique: [String: Int] = [:]
        public var filledDimensions = 0
        public var conflicts = ConflictCounts()
        public var records = 0
        public var bytes = 0
    }

    public struct ConflictCounts: Sendable, Equatable {
        public var license = 0
        public var attribution = 0
        public var url = 0
        public var ids = 0
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    static let kinds: [(name: String, prefix: [UInt8])] = [
        ("input", Array("{\"k\":\"input\"".utf8)),
        ("taxon", Array("{\"k\":\"taxon\"".utf8)),
        ("user", Array("{\"k\":\"user\"".utf8)),
        ("photo", Array("{\"k\":\"photo\"".utf8)),
        ("obs", Array("{\"k\":\"obs\"".utf8)),
    ]

    @discardableResult
    public func run() throws -> Summary {
        var summary = Summary()
        let output = try AtomicOutput(path: options.output)
        let source = try ReadableFile(path: options.input)
        var report = ConflictReport(examples: options.examples)
        summary.bytes = FileSystem.size(options.input) ?? 0

        for (kind, prefix) in Self.kinds {
            var occurrences = try collect(kind: kind, prefix: prefix)
            summary.occurrences[kind] = occurrences.count
            summary.records += occurrences.count
            if kind == "input" {
                try writeInputs(occurrences, source: source, output: output)
                continue
            }
            occurrences.sort { $0.id != $1.id ? $0.id < $1.id : $0.outranks($1) }
            var writer = Winners(source: source, output: output)
            var start = 0
            var unique = 0
            while start < occurrences.count {
                var end = start + 1
                while end < occurrences.count && occurrences[end].id == occurrences[start].id { end += 1 }
                let group = occurrences[start..<end]
                unique += 1
                try writer.write(group, kind: kind, summary: &summary)
                if kind == "photo" && group.count > 1 {
                    try report.check(group, source: source, counts: &summary.conflicts)
                }
                start = end
            }
            try writer.flush()
            summary.unique[kind] = unique
        }
        try report.write(to: options.conflicts, counts: summary.conflicts, summary: summary)
        try output.commit()
        return summary
    }

    /// One pass over the records file, keeping the occurrences of one kind.
    private func collect(kind: String, prefix: [UInt8]) throws -> [Occurrence] {
        let reader = LineReader(source: try RawFileSource(path: options.input))
        let parser = JSONParser()
        var occurrences: [Occurrence] = []
        var offset = 0
        while let line = try reader.next() {
            defer { offset += line.bytes.count + 1 }
            guard line.bytes.count >= prefix.count,
                  prefix.withUnsafeBytes({ memcmp($0.baseAddress!, line.bytes.baseAddress!, prefix.count) == 0 })
            else { continue }
            if line.unterminated { throw FieldpackError(path: options.input, line: line.number, "records file ends mid-record") }
            let record: JSONValue
            do {
                record = try parser.parse(line.bytes)
            } catch {
                throw FieldpackError(path: options.input, line: line.number, "not a records file line: \(error)")
            }
            guard let id = record["id"]?.int64 ?? (kind == "input" ? Int64(occurrences.count) : nil) else {
                throw FieldpackError(path: options.input, line: line.number, "record has no integer id")
            }
            let contentEnd = Self.contentLength(line.bytes)
            var occurrence = Occurrence(
                id: id, seen: record["seen"]?.int64 ?? Int64.min, tie1: 0, tie2: 0,
                content: stableHash(UnsafeRawBufferPointer(rebasing: line.bytes[0..<contentEnd])),
                offset: Int64(offset), length: Int32(line.bytes.count))
            switch kind {
            case "photo":
                occurrence.tie1 = record["obs"]?.int64 ?? 0
                let observationPhoto = record["ctx"]?.text?.equals("obs") ?? false
                let position = record["pos"]?.int64 ?? 0
                occurrence.tie2 = (observationPhoto ? 1 << 40 : 0) - position
                occurrence.width = Int32(clamping: record["width"]?.int64 ?? -1)
                occurrence.height = Int32(clamping: record["height"]?.int64 ?? -1)
                occurrence.license = stableHash32(record["license"]?.text)
                occurrence.attribution = stableHash32(record["attribution"]?.text)
                occurrence.url = stableHash32(record["url"]?.text.map(Self.withoutQuery))
            case "taxon":
                occurrence.tie2 = (record["from"]?.text?.equals("taxa") ?? false) ? 1 : 0
                occurrence.hasList = record["photos"]?.isArray ?? false
            default:
                break
            }
            occurrences.append(occurrence)
        }
        return occurrences
    }

    /// Bytes of a record before its trailing `,"src":"…"}`.
    static func contentLength(_ line: UnsafeRawBufferPointer) -> Int {
        let marker = Array(",\"src\":\"".utf8)
        var index = line.count - marker.count
        while index >= 0 {
            if line[index] == marker[0] && memcmp(line.baseAddress! + index, marker, marker.count) == 0 { return index }
            index -= 1
        }
        return line.count
    }

    static func withoutQuery(_ url: JSONText) -> JSONText {
        if let question = memchr(url.start, Int32(UInt8(ascii: "?")), url.count) {
            return JSONText(start: url.start, count: UnsafeRawPointer(question) - url.start)
        }
        return url
    }

    private func writeInputs(_ occurrences: [Occurrence], source: ReadableFile, output: AtomicOutput) throws {
        var lines: [[UInt8]] = []
        for occurrence in occurrences {
            var bytes = [UInt8](repeating: 0, count: Int(occurrence.length))
            _ = try bytes.withUnsafeMutableBytes {
                try source.read(at: Int(occurrence.offset), count: Int(occurrence.length), into: $0)
            }
            lines.append(bytes)
        }
        // Inputs in path order, once each, so the output does not depend on the order of arguments.
        lines.sort { $0.lexicographicallyPrecedes($1) }
        var previous: [UInt8]? = nil
        for line in lines where line != previous {
            try output.write(line)
            try output.write([0x0A])
            previous = line
        }
    }
}
