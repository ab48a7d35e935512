/// Deduped records: one file, or the parts of a partitioned dedupe (a sharded job's N dedupe
/// shards, or one dedupe's spill partitions) k-way merged back into the order one deduped file
/// has (`RecordKey`: kinds in file order, each by key; the inputs, which every part lists, by
/// their bytes and once each), so the bundle loads the same rows in the same order whatever N.
///
/// Memory: one line and one parsed record per part. Not thread-safe.
final class MergedRecords {
    /// One part's reader and its current record.
    private final class Cursor {
        let path: String
        let reader: LineReader
        let parser = JSONParser()
        /// Photo lines are keyed from their first bytes and not parsed (`columns` is then empty).
        let photosUnparsed: Bool
        var columns = JSONColumns()
        var kind = RecordKind.input
        var key = RecordKey(kind: .input, high: 0)
        var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        var line = 0
        var done = false

        init(path: String, progress: StageProgress, photosUnparsed: Bool) throws {
            self.path = path
            self.photosUnparsed = photosUnparsed
            let source = try RawFileSource(path: path)
            source.progress = progress
            reader = LineReader(source: source)
        }

        /// Why a deduped observation or taxon line is not this fieldpack's layout of its kind
        /// (too few columns, or a column of the wrong type where the last columns are): a file
        /// written by a fieldpack-dedupe of another version (the `unknown` column came on
        /// 2026-12-07), whose columns would load one place off without a word. Nil when it is.
        static func layoutProblem(_ columns: JSONColumns, kind: RecordKind) -> String? {
            func isInteger(_ index: Int) -> Bool { columns[index] == nil || columns[index]!.int64 != nil }
            let (count, integers, texts): (Int, [Int], [Int])
            switch kind {
            case .observation:
                typealias C = ObservationRecord.Column
                (count, integers, texts) = (C.allCases.count, [C.unknown.rawValue, C.seen.rawValue], [C.part.rawValue])
            case .taxon:
                typealias C = TaxonRecord.Column
                (count, integers, texts) = (C.allCases.count, [C.unknown.rawValue, C.seen.rawValue], [])
            default:
                return nil
            }
            guard columns.count > count, integers.allSatisfy(isInteger), texts.allSatisfy({ columns[$0] == nil || columns[$0]!.text != nil })
            else {
                return "a deduped \(kind.name) line of another layout than this fieldpack's (\(count) columns, the last ones "
                    + "unknown, \(kind == .observation ? "part, " : "")seen): written by another version of fieldpack-dedupe; run it again"
            }
            return nil
        }

        /// Reads and parses the next non-empty line (the shapes a deduped line must have).
        func advance() throws {
            while let next = try reader.next() {
                if next.bytes.isEmpty { continue }
                line = next.number
                bytes = next.bytes
                if photosUnparsed, let (kind, key) = RecordKey.quick(next.bytes), kind == .photo, let key {
                    self.kind = kind
                    self.key = key
                    columns = JSONColumns()
                    return
                }
                do {
                    guard columns.load(try parser.parse(next.bytes)) else {
                        throw FieldpackError(path: path, line: line, "not a deduped record (a JSON array)")
                    }
                } catch let error as JSONSyntaxError {
                    throw FieldpackError(path: path, line: line, "not a deduped records line: \(error.message)")
                }
                guard let tag = columns.text(0) else { throw FieldpackError(path: path, line: line, "record has no kind") }
                guard let kind = RecordKind(tag: tag) else {
                    throw FieldpackError(path: path, line: line, "unknown record kind \"\(tag.string)\"")
                }
                self.kind = kind
                if kind == .input {
                    key = RecordKey(kind: .input, high: 0)
                } else {
                    guard let key = RecordKey.of(kind, columns) else {
                        throw FieldpackError(path: path, line: line, "record has no integer id")
                    }
                    if let problem = Self.layoutProblem(columns, kind: kind) { throw FieldpackError(path: path, line: line, problem) }
                    self.key = key
                }
                return
            }
            done = true
        }
    }

    private let cursors: [Cursor]
    private var current: Cursor? = nil
    /// The last input line given (every part lists every input: each is given once).
    private var lastInput: [UInt8]? = nil
    /// The last key given, to check the parts' order.
    private var lastKey: RecordKey? = nil
    private var lastPlace = ""
    /// How many records `next` has given.
    private var given = 0

    /// - Parameter photosUnparsed: photo records are given with their bytes and key only, not
    ///   parsed (their `columns` are empty; see `key`): for a merge that only copies them.
    init(paths: [String], progress: StageProgress, photosUnparsed: Bool = false) throws {
        cursors = try paths.map { try Cursor(path: $0, progress: progress, photosUnparsed: photosUnparsed) }
        for cursor in cursors { try cursor.advance() }
    }

    /// The key of the record `next` gave last (nil for an input, or before the first).
    var key: RecordKey? { current.flatMap { $0.kind == .input ? nil : $0.key } }

    /// The place of the record `next` gave last as `RecordPlaces` numbers it: with one part its
    /// line, with several its number in the merge (1 for the first record given).
    var placeNumber: Int { cursors.count == 1 ? current?.line ?? 0 : given }

    /// The next record: its columns and line bytes (valid until the next call), file and line.
    func next() throws -> (columns: JSONColumns, kind: RecordKind, path: String, line: Int, bytes: UnsafeRawBufferPointer)? {
        if let current { try current.advance() }
        current = nil
        if cursors.count == 1 {
            let only = cursors[0]
            if only.done { return nil }
            current = only
            given += 1
            return (only.columns, only.kind, only.path, only.line, only.bytes)
        }
        while true {
            var best: Cursor? = nil
            for cursor in cursors where !cursor.done {
                guard let chosen = best else { best = cursor; continue }
                if Self.precedes(cursor, chosen) { best = cursor }
            }
            guard let best else { return nil }
            current = best
            if best.kind == .input {
                let bytes = Array(best.bytes)
                if bytes == lastInput {
                    try best.advance()
                    current = nil
                    continue
                }
                lastInput = bytes
            } else if best.kind == .selection {
                // Each part's counts of what dedupe's selection removed: all are given, to be added up.
            } else {
                let place = "\(best.path):\(best.line)"
                if let lastKey, !(lastKey < best.key) {
                    throw FieldpackError(
                        path: best.path, line: best.line,
                        lastKey == best.key
                            ? "the record of \(lastPlace) is in this part too: parts of one sharded dedupe never share a key"
                            : "the records are not in key order (after \(lastPlace)): not a dedupe part")
                }
                lastKey = best.key
                lastPlace = place
            }
            given += 1
            return (best.columns, best.kind, best.path, best.line, best.bytes)
        }
    }

    private static func precedes(_ a: Cursor, _ b: Cursor) -> Bool {
        if a.kind == .input && b.kind == .input { return a.bytes.lexicographicallyPrecedes(b.bytes) }
        if a.kind == .input || b.kind == .input { return a.kind == .input }
        return a.key < b.key
    }
}
