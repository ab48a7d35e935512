import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Reads a records file as line-aligned byte ranges, one thread per range, handing each line
/// with its kind and absolute byte offset to a transform. Results keep file order.
enum ParallelScan {
    typealias Transform<T> = @Sendable (RecordReader, RecordKind, UnsafeRawBufferPointer, Int) throws -> T?

    /// Counts lines per kind in each range, and keeps what `keep` returns (in file order).
    ///
    /// `progress` counts the bytes read and, in this (counting) pass, the records.
    static func run<T>(
        path: String, ranges: [Range<Int>], progress: StageProgress,
        keep: @escaping @Sendable (Int, RecordKind, UnsafeRawBufferPointer, Int) -> T?
    ) throws -> (counts: [[Int]], items: [T]) {
        let results = Results<(counts: [Int], items: [T])>(count: ranges.count)
        DispatchQueue.concurrentPerform(iterations: ranges.count) { part in
            results.record(part) {
                var counts = [Int](repeating: 0, count: RecordKind.allCases.count)
                var items: [T] = []
                try lines(path: path, range: ranges[part], progress: progress, countingRecords: true) { kind, line, offset in
                    counts[kind.rawValue] += 1
                    if let item = keep(part, kind, line, offset) { items.append(item) }
                }
                return (counts, items)
            }
        }
        let parts = try results.values()
        return (parts.map(\.counts), parts.flatMap(\.items))
    }

    /// Builds one array per kind in `kinds`, each of exactly the number of lines of that kind:
    /// range `i` fills the slots after those of ranges `0..<i`, so every array is in file order,
    /// without growing or copying. `counts[part][kind.rawValue]` comes from a counting pass.
    static func collect<T>(
        path: String, ranges: [Range<Int>], kinds: [RecordKind], counts: [[Int]], progress: StageProgress,
        _ transform: @escaping Transform<T>
    ) throws -> [OccurrenceArray<T>] {
        let slots = Dictionary(uniqueKeysWithValues: kinds.enumerated().map { ($1, $0) })
        // starts[k][part]: where part's elements of kind k begin.
        let starts = kinds.map { kind in ranges.indices.map { part in (0..<part).reduce(0) { $0 + counts[$1][kind.rawValue] } } }
        let totals = kinds.map { kind in ranges.indices.reduce(0) { $0 + counts[$1][kind.rawValue] } }
        let storage = kinds.indices.map { UnsafeMutablePointer<T>.allocate(capacity: max(1, totals[$0])) }
        let bases = UncheckedBox(storage)
        let results = Results<[Int]>(count: ranges.count)
        DispatchQueue.concurrentPerform(iterations: ranges.count) { part in
            results.record(part) {
                let reader = RecordReader(path: path)
                var filled = [Int](repeating: 0, count: kinds.count)
                do {
                    try lines(path: path, range: ranges[part], progress: progress, countingRecords: false) { kind, line, offset in
                        guard let slot = slots[kind], let item = try transform(reader, kind, line, offset) else { return }
                        guard filled[slot] < counts[part][kind.rawValue] else {
                            throw FieldpackError(path: path, "records file changed while reading it")
                        }
                        (bases.value[slot] + starts[slot][part] + filled[slot]).initialize(to: item)
                        filled[slot] += 1
                    }
                } catch {
                    for slot in kinds.indices { (bases.value[slot] + starts[slot][part]).deinitialize(count: filled[slot]) }
                    throw error
                }
                return filled
            }
        }
        let outcome = Result { try results.values() }
        let complete = (try? outcome.get()).map { filled in
            filled.indices.allSatisfy { part in kinds.indices.allSatisfy { filled[part][$0] == counts[part][kinds[$0].rawValue] } }
        } ?? false
        var owned = false
        defer { if !owned { for pointer in storage { pointer.deallocate() } } }
        guard complete else {
            if case .success(let filled) = outcome {
                for part in filled.indices {
                    for slot in kinds.indices { (storage[slot] + starts[slot][part]).deinitialize(count: filled[part][slot]) }
                }
            }
            _ = try outcome.get()
            throw FieldpackError(path: path, "records file changed while reading it")
        }
        owned = true
        return kinds.indices.map { OccurrenceArray(base: storage[$0], count: totals[$0]) }
    }

    private static func lines(
        path: String, range: Range<Int>, progress: StageProgress, countingRecords: Bool,
        _ body: (RecordKind, UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        let reader = LineReader(source: try FileRangeSource(path: path, range: range))
        var tally = ProgressTally(progress)
        defer { tally.flush() }
        while let line = try reader.next() {
            tally.add(records: countingRecords ? 1 : 0, bytes: line.bytes.count + 1)
            if line.bytes.isEmpty { continue }
            let offset = range.lowerBound + line.offset
            guard let kind = RecordKind.of(line.bytes) else {
                let reason = line.bytes.starts(with: "[\"".utf8)
                    ? "its kind is none fieldpack-inat writes" : "it does not start [\"<kind>\""
                throw FieldpackError.atByte(offset, of: path, "not a records line (\(reason))")
            }
            if line.unterminated { throw FieldpackError.atByte(offset, of: path, "the records file ends mid-record") }
            try body(kind, line.bytes, offset)
        }
    }
}

/// Parses records into columns, reusing its parser and column storage (one per thread).
final class RecordReader {
    let path: String
    let parser = JSONParser()
    // Loaded for every record (unchecked at run time, like `LineReader`'s position).
    @exclusivity(unchecked) var columns = JSONColumns()

    init(path: String) {
        self.path = path
    }

    /// The record's columns; valid until the next call.
    func load(_ line: UnsafeRawBufferPointer, offset: Int) throws -> JSONColumns {
        let record: JSONValue
        do {
            record = try parser.parse(line)
        } catch {
            throw FieldpackError.atByte(offset, of: path, "the record is not valid JSON: \(error)")
        }
        guard columns.load(record) else { throw FieldpackError.atByte(offset, of: path, "the record is not a JSON array") }
        return columns
    }
}

/// Occurrences in memory allocated once at their exact size (a Swift array would double it while
/// growing or copying); freed with the object.
final class OccurrenceArray<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>
    let count: Int

    init(base: UnsafeMutablePointer<T>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var buffer: UnsafeMutableBufferPointer<T> { UnsafeMutableBufferPointer(start: base, count: count) }
}
