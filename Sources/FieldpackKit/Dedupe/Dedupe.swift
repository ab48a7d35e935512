#if canImport(Glibc)
import Glibc
#endif

/// The dedupe stage: one record per id for observations, taxa, users and photos.
///
/// The newest copy wins (`updated_at`, of the record or of the observation it came in), whatever
/// file it came from; ties fall to deterministic rules (see `PhotoOccurrence.outranks` and
/// `RecordOccurrence.outranks`). Photo identity is the photo id, never the URL; a winner without
/// dimensions takes them from another occurrence.
///
/// Memory: one compact occurrence per record, for photos in one pass and for the other kinds in
/// another, in arrays sized exactly and sorted in place. Record bytes are read back from the
/// input only for winners.
public struct Dedupe {
    public struct Options: Sendable {
        public var input: String
        public var output: String
        public var conflicts: String
        /// How many example ids the conflicts report lists.
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

    enum Kind: Int, CaseIterable {
        case input, photo, taxon, user, observation

        var name: String { ["input", "photo", "taxon", "user", "obs"][rawValue] }

        /// Records start `{"k":"<kind>"`: the byte after the opening quote of the kind tells them apart.
        static func of(_ line: UnsafeRawBufferPointer) -> Kind? {
            guard line.count > 7, line[0] == UInt8(ascii: "{"), line[5] == UInt8(ascii: "\"") else { return nil }
            switch line[6] {
            case UInt8(ascii: "i"): return .input
            case UInt8(ascii: "p"): return .photo
            case UInt8(ascii: "t"): return .taxon
            case UInt8(ascii: "u"): return .user
            case UInt8(ascii: "o"): return .observation
            default: return nil
            }
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Summary {
        var summary = Summary()
        let trace = PhaseTrace(stage: "dedupe")
        let output = try AtomicOutput(path: options.output)
        let source = try ReadableFile(path: options.input)
        summary.bytes = FileSystem.size(options.input) ?? 0
        let parser = JSONParser()

        // Pass 1: the inputs, and how many records of each kind (to size the arrays exactly).
        var counts = [Int](repeating: 0, count: Kind.allCases.count)
        var inputs: [[UInt8]] = []
        var sourceNames: [Int: String] = [:]
        try scan { kind, line, _, _ in
            counts[kind.rawValue] += 1
            if kind == .input {
                inputs.append(Array(line))
                let record = try parser.parse(line)
                if let index = record["index"]?.int64, let path = record["path"]?.string { sourceNames[Int(index)] = path }
            }
        }
        for kind in Kind.allCases { summary.occurrences[kind.name] = counts[kind.rawValue] }
        summary.records = counts.reduce(0, +)
        try writeInputs(inputs, to: output)
        trace.mark("count")

        // Pass 2: photos.
        var photos = [PhotoOccurrence]()
        photos.reserveCapacity(counts[Kind.photo.rawValue])
        try scan { kind, line, offset, lineNumber in
            guard kind == .photo else { return }
            let record = try parse(line, parser: parser, lineNumber: lineNumber)
            let id = try requiredID(record, lineNumber: lineNumber)
            let observationPhoto = record["ctx"]?.text?.equals("obs") ?? false
            let position = Int32(clamping: record["pos"]?.int64 ?? 0)
            let fields = fieldHash(record["license"]?.text) | fieldHash(record["attribution"]?.text) << 21
                | fieldHash(record["url"]?.text.map(Self.withoutQuery)) << 42
            photos.append(PhotoOccurrence(
                id: id, seen: record["seen"]?.int64 ?? Int64.min, observation: record["obs"]?.int64 ?? 0,
                content: stableHash(UnsafeRawBufferPointer(rebasing: line[0..<Self.contentLength(line)])),
                offset: Int64(offset), rank: (observationPhoto ? 1 << 30 : 0) - min(position, 1 << 29),
                length: Int32(line.count), width: Int32(clamping: record["width"]?.int64 ?? -1),
                height: Int32(clamping: record["height"]?.int64 ?? -1), fields: fields))
        }
        trace.mark("collect photos")
        photos.withUnsafeMutableBufferPointer { sortInPlace($0) { $0.id != $1.id ? $0.id < $1.id : $0.outranks($1) } }
        trace.mark("sort photos")
        var winners = Winners(source: source, output: output)
        var report = ConflictReport(examples: options.examples, sourceNames: sourceNames)
        summary.unique["photo"] = try groups(photos) { group in
            try winners.writePhoto(group, summary: &summary)
            if group.count > 1 { try report.check(group, source: source, counts: &summary.conflicts) }
        }
        photos = []
        trace.mark("write photos")

        // Pass 3: taxa, users and observations.
        var records: [[RecordOccurrence]] = Kind.allCases.map { kind in
            var array = [RecordOccurrence]()
            if kind != .photo && kind != .input { array.reserveCapacity(counts[kind.rawValue]) }
            return array
        }
        try scan { kind, line, offset, lineNumber in
            guard kind == .taxon || kind == .user || kind == .observation else { return }
            let record = try parse(line, parser: parser, lineNumber: lineNumber)
            var rank: Int32 = 0
            if kind == .taxon {
                if record["from"]?.text?.equals("taxa") ?? false { rank |= 2 }
                if record["photos"]?.isArray ?? false { rank |= 1 }
            }
            records[kind.rawValue].append(RecordOccurrence(
                id: try requiredID(record, lineNumber: lineNumber), seen: record["seen"]?.int64 ?? Int64.min,
                content: stableHash(UnsafeRawBufferPointer(rebasing: line[0..<Self.contentLength(line)])),
                offset: Int64(offset), length: Int32(line.count), rank: rank))
        }
        trace.mark("collect records")
        for kind in [Kind.taxon, .user, .observation] {
            records[kind.rawValue].withUnsafeMutableBufferPointer {
                sortInPlace($0) { $0.id != $1.id ? $0.id < $1.id : $0.outranks($1) }
            }
            summary.unique[kind.name] = try groups(records[kind.rawValue]) { group in
                try winners.writeRecord(group, taxon: kind == .taxon)
            }
            records[kind.rawValue] = []
        }
        try winners.flush()
        trace.mark("write records")
        try report.write(to: options.conflicts, counts: summary.conflicts)
        try output.commit()
        return summary
    }

    /// Calls `body` with each run of equal ids (best first); returns how many there were.
    private func groups<T>(_ sorted: [T], _ body: (ArraySlice<T>) throws -> Void) rethrows -> Int where T: HasID {
        var start = 0
        var count = 0
        while start < sorted.count {
            var end = start + 1
            while end < sorted.count && sorted[end].id == sorted[start].id { end += 1 }
            try body(sorted[start..<end])
            count += 1
            start = end
        }
        return count
    }

    /// One pass over the records file: each line with its kind, byte offset and line number.
    private func scan(_ body: (Kind, UnsafeRawBufferPointer, Int, Int) throws -> Void) throws {
        let reader = LineReader(source: try RawFileSource(path: options.input))
        var offset = 0
        while let line = try reader.next() {
            defer { offset += line.bytes.count + 1 }
            if line.bytes.isEmpty { continue }
            guard let kind = Kind.of(line.bytes) else {
                throw FieldpackError(path: options.input, line: line.number, "not a records line (no {\"k\":…} kind)")
            }
            if line.unterminated { throw FieldpackError(path: options.input, line: line.number, "records file ends mid-record") }
            try body(kind, line.bytes, offset, line.number)
        }
    }

    private func parse(_ line: UnsafeRawBufferPointer, parser: JSONParser, lineNumber: Int) throws -> JSONValue {
        do {
            return try parser.parse(line)
        } catch {
            throw FieldpackError(path: options.input, line: lineNumber, "not valid JSON: \(error)")
        }
    }

    private func requiredID(_ record: JSONValue, lineNumber: Int) throws -> Int64 {
        guard let id = record["id"]?.int64 else {
            throw FieldpackError(path: options.input, line: lineNumber, "record has no integer id")
        }
        return id
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

    /// The inputs in path order, once each, so the output does not depend on argument order.
    private func writeInputs(_ lines: [[UInt8]], to output: AtomicOutput) throws {
        var entries: [(path: [UInt8], line: [UInt8])] = []
        let parser = JSONParser()
        for line in lines {
            let buffer = PaddedBuffer(copying: line)
            let record = try parser.parse(buffer)
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("k"); writer.string("input")
            writer.key("path"); writer.string(record["path"]?.text)
            writer.key("bytes"); writer.int(record["bytes"]?.int64)
            writer.key("sha256"); writer.string(record["sha256"]?.text)
            writer.key("format"); writer.string(record["format"]?.text)
            writer.endObject()
            writer.newline()
            entries.append((Array(record["path"]?.text?.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0)), writer.bytes))
        }
        entries.sort { $0.line.lexicographicallyPrecedes($1.line) }
        var previous: [UInt8]? = nil
        for entry in entries where entry.line != previous {
            try output.write(entry.line)
            previous = entry.line
        }
    }
}

protocol HasID {
    var id: Int64 { get }
}

extension PhotoOccurrence: HasID {}
extension RecordOccurrence: HasID {}
