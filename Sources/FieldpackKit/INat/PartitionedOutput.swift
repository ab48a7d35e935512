#if canImport(Glibc)
import Glibc
#endif

/// Where ingest's records go: one records file (an unsharded run), or `PartitionedOutput`.
protocol RecordsOutput: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    func append(contentsOf path: String) throws
    /// A temp path beside the output, for names of scratch files derived from it.
    var temporaryPath: String { get }
    func commit(durable: Bool) throws
}

extension AtomicOutput: RecordsOutput {}

/// A sharded ingest's records, split by dedupe key (`RecordKey.partition(of:)`) into `count`
/// part files `part-J.jsonl`, so that dedupe shard J reads partition J of every ingest shard
/// and sees every copy of its records. `input` records go to every part (every dedupe shard
/// names the sources of its records). Lines are whole records lines, as the sink hands them in.
///
/// Not thread-safe: the ingest's sink writes from one thread at a time.
final class PartitionedOutput: RecordsOutput {
    let parts: [AtomicOutput]
    private var pending: [[UInt8]]
    private let parser = JSONParser()
    private var columns = JSONColumns()

    static func partPath(folder: String, part: Int) -> String { "\(folder)/part-\(part).jsonl" }

    init(folder: String, count: Int) throws {
        parts = try (0..<count).map { try AtomicOutput(path: Self.partPath(folder: folder, part: $0)) }
        pending = Array(repeating: [], count: count)
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
        guard let kind = RecordKind.of(line) else {
            throw FieldpackError(path: name, "internal error: not a records line: \(String(decoding: line.prefix(80), as: UTF8.self))")
        }
        if kind == .input {
            for part in pending.indices { append(line, to: part) }
            return
        }
        guard columns.load(try parser.parse(line)), let key = RecordKey.of(kind, columns) else {
            throw FieldpackError(path: name, "internal error: a \(kind.name) record without an integer id")
        }
        append(line, to: key.partition(of: parts.count))
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
