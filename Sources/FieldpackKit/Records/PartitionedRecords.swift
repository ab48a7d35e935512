#if canImport(Glibc)
import Glibc
#endif

/// Records lines (ingest's or dedupe's) split by key into part files: `input` records go to
/// every part (every part names the sources of its records), every other record to the part
/// `partition` gives its `RecordKey`, so all copies of a record land in one part.
///
/// A sharded ingest's parts (`PartitionedOutput(folder:count:)`, by `RecordKey.partition(of:)`)
/// and a dedupe's spill partitions (by `RecordKey.spillPartition(of:)`) are both this.
///
/// Not thread-safe: one writer at a time.
final class PartitionedOutput {
    let parts: [AtomicOutput]
    private let partition: @Sendable (RecordKey) -> Int
    private var pending: [[UInt8]]
    private let parser = JSONParser()
    private var columns = JSONColumns()

    static func partPath(folder: String, part: Int) -> String { "\(folder)/part-\(part).jsonl" }

    /// A sharded ingest's `count` parts `folder/part-J.jsonl`, by `RecordKey.partition(of:)`.
    convenience init(folder: String, count: Int) throws {
        try self.init(
            parts: try (0..<count).map { try AtomicOutput(path: Self.partPath(folder: folder, part: $0)) },
            partition: { $0.partition(of: count) })
    }

    init(parts: [AtomicOutput], partition: @escaping @Sendable (RecordKey) -> Int) throws {
        self.parts = parts
        self.partition = partition
        pending = Array(repeating: [], count: parts.count)
    }

    var temporaryPath: String { parts[0].temporaryPath }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try split(bytes, name: "ingest's records")
        try flush(all: false)
    }

    func append(contentsOf path: String) throws {
        let reader = LineReader(source: try RawFileSource(path: path))
        while let line = try reader.next() {
            if line.unterminated { throw FieldpackError(path: path, "ends mid-record at byte \(line.offset)") }
            try route(line.bytes, name: path)
            if pending.contains(where: { $0.count >= 1 << 20 }) { try flush(all: false) }
        }
    }

    func commit(durable: Bool) throws {
        try flush(all: true)
        for part in parts { try part.commit(durable: durable) }
    }

    /// Writes out every line held, leaving the parts uncommitted (scratch files read at their
    /// temp paths).
    func finish() throws {
        try flush(all: true)
        for part in parts { try part.flush() }
    }

    private func split(_ bytes: UnsafeRawBufferPointer, name: String) throws {
        var start = 0
        while start < bytes.count {
            guard let newline = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start) else {
                throw FieldpackError(path: name, "internal error: a records block ends mid-line")
            }
            let end = UnsafeRawPointer(newline) - bytes.baseAddress!
            try route(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), name: name)
            start = end + 1
        }
    }

    private func route(_ line: UnsafeRawBufferPointer, name: String) throws {
        if line.isEmpty { return }
        // Most lines tell their key from their first bytes; the others are parsed.
        if let (_, key) = RecordKey.quick(line) {
            if let key {
                append(line, to: partition(key))
            } else {
                for part in pending.indices { append(line, to: part) }  // an input
            }
            return
        }
        guard let kind = RecordKind.of(line) else {
            throw FieldpackError(path: name, "not a records line (it does not start [\"<kind>\"): \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        if kind == .input {
            for part in pending.indices { append(line, to: part) }
            return
        }
        guard columns.load(try parser.parse(line)), let key = RecordKey.of(kind, columns) else {
            throw FieldpackError(path: name, "a \(kind.name) record without an integer id")
        }
        append(line, to: partition(key))
    }

    private func append(_ line: UnsafeRawBufferPointer, to part: Int) {
        pending[part].append(contentsOf: line)
        pending[part].append(0x0A)
    }

    private func flush(all: Bool) throws {
        for part in parts.indices where all || pending[part].count >= 1 << 20 {
            try parts[part].write(pending[part])
            pending[part].removeAll(keepingCapacity: true)
        }
    }
}
