/// The wiki stage's findings held to a bounded number in memory: past `limit` (rejected,
/// skipped and salvaged together), those held are sorted and written to a scratch file as a
/// sorted run, and the rejects file is a merge of the runs and what is still held. A dump of
/// millions of bad lines (a 500 KB gzip of one repeated word) held every finding, about 800
/// bytes each, and took the machine's 24 GB; the reject limit allows millions on such a file.
///
/// The rejects file is the same bytes whether or not a run was spilled: the runs hold the very
/// lines it is made of, ordered as `ordered` orders the findings held, and merged in that
/// order. At most `fanIn` runs are kept: past that, they are merged into one run (on the
/// same scratch file), so the merge reads at most `fanIn` blocks at a time however many
/// findings there are.
struct FindingRuns {
    static let defaultLimit = 1 << 16
    static let fanIn = 32
    /// Bytes of a run read or written at a time.
    static let blockBytes = 1 << 18

    /// Findings held past which they are spilled.
    var limit = defaultLimit
    /// The scratch file, made at the first spill in the output's folder.
    private var file: SpillFile? = nil
    /// Each run's blocks, in order.
    private(set) var runs: [[SpillFile.Location]] = []
    /// The rejected findings spilled, by file: what names the input most lines were rejected
    /// from, with those still held.
    private(set) var rejectedByPath: [String: Int] = [:]

    /// The kinds of finding, in the order the rejects file lists them.
    static let kinds = ["rejected", "skipped", "salvaged"]

    /// A finding as a line of the rejects file (without its line end).
    static func line(_ kind: String, _ finding: Finding) -> [UInt8] {
        var rejects = JSONWriter()
        rejects.beginObject()
        rejects.key("kind"); rejects.string(kind)
        rejects.key("file"); rejects.string(finding.path)
        rejects.key("line"); rejects.int(finding.line.map(Int64.init))
        if let record = finding.record { rejects.key("record"); rejects.string(record) }
        // The part of a kept article that was not (its url), as ingest's findings name it.
        if let field = finding.field { rejects.key("field"); rejects.string(field) }
        rejects.key("reason"); rejects.string(finding.reason)
        rejects.endObject()
        return rejects.bytes
    }

    /// Whether `a` comes before `b` in the rejects file, within one kind: by file, line, record,
    /// reason and field, the texts compared as bytes, a total order (as Swift strings, a
    /// composed and a decomposed "é" are equal, and which came first would be the order held
    /// findings were met in, or runs merged in).
    static func precedes(_ a: Finding, _ b: Finding) -> Bool {
        func order(_ x: String, _ y: String) -> Int {
            x.utf8.elementsEqual(y.utf8) ? 0 : x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        }
        if case let path = order(a.path, b.path), path != 0 { return path < 0 }
        if a.line ?? 0 != b.line ?? 0 { return a.line ?? 0 < b.line ?? 0 }
        if case let record = order(a.record ?? "", b.record ?? ""), record != 0 { return record < 0 }
        if case let reason = order(a.reason, b.reason), reason != 0 { return reason < 0 }
        return order(a.field ?? "", b.field ?? "") < 0
    }

    /// The held findings, kind by kind, each sorted: the order of the rejects file.
    static func ordered(_ held: [[Finding]]) -> [(kind: String, finding: Finding)] {
        zip(kinds, held).flatMap { kind, findings in findings.sorted(by: precedes).map { (kind, $0) } }
    }

    /// Spills the held findings (rejected, skipped, salvaged) as a sorted run when there are
    /// more than `limit`, emptying them; `folder` is where the scratch file is made.
    mutating func spillIfOver(_ held: inout [[Finding]], folder: String) throws {
        guard held.reduce(0, { $0 + $1.count }) > limit else { return }
        for finding in held[0] { rejectedByPath[finding.path, default: 0] += 1 }
        let file = try self.file ?? SpillFile(in: folder)
        self.file = file
        runs.append(try Self.run(of: held, to: file))
        for index in held.indices { held[index] = [] }
        if runs.count >= Self.fanIn {
            var merged = RunWriter(file: file)
            try merge(runs) { line, _ in try merged.add(line) }
            runs = [try merged.finished()]
        }
    }

    /// `held`, ordered, written to `file` as a run.
    private static func run(of held: [[Finding]], to file: SpillFile) throws -> [SpillFile.Location] {
        var writer = RunWriter(file: file)
        for (kind, finding) in ordered(held) { try writer.add(line(kind, finding)) }
        return try writer.finished()
    }

    /// A run written to the scratch file in blocks of about `blockBytes`, each of whole lines.
    private struct RunWriter {
        let file: SpillFile
        var blocks: [SpillFile.Location] = []
        var pending: [UInt8] = []

        mutating func add(_ line: [UInt8]) throws {
            pending += line
            pending.append(0x0A)
            if pending.count >= FindingRuns.blockBytes { try flush() }
        }

        mutating func finished() throws -> [SpillFile.Location] {
            try flush()
            return blocks
        }

        private mutating func flush() throws {
            guard !pending.isEmpty else { return }
            let file = self.file
            blocks.append(try pending.withUnsafeBytes { try file.append($0) })
            pending.removeAll(keepingCapacity: true)
        }
    }

    /// Calls `body` with every line of the rejects file, in order, and its finding: the runs and
    /// `held` merged.
    func forEachLine(held: [[Finding]], _ body: (_ line: [UInt8], _ finding: Finding) throws -> Void) throws {
        guard !runs.isEmpty else {
            for (kind, finding) in Self.ordered(held) { try body(Self.line(kind, finding), finding) }
            return
        }
        guard let file else { preconditionFailure("runs were spilled to no file") }
        // What is held, as one more run (at most `limit` findings: bounded).
        try merge(runs + [try Self.run(of: held, to: file)], body)
    }

    /// Merges sorted runs, calling `body` with each line in order.
    private func merge(_ runs: [[SpillFile.Location]], _ body: (_ line: [UInt8], _ finding: Finding) throws -> Void) throws {
        guard let file else { return }
        var readers = try runs.map { try RunReader(file: file, blocks: $0) }
        // The readers with a line left (`MergeHeap`), the first line's on top; equal lines
        // (the same bytes) the lower run first.
        func before(_ a: Int, _ b: Int) -> Bool {
            readers[a].precedes(readers[b]) || (!readers[b].precedes(readers[a]) && a < b)
        }
        var heap = MergeHeap()
        for index in readers.indices where readers[index].head != nil { heap.push(index, before: before) }
        while let top = heap.top, let head = readers[top].head {
            try body(head.line, head.finding)
            try readers[top].advance()
            heap.topAdvanced(ended: readers[top].head == nil, before: before)
        }
    }

    /// One run read a block at a time, its head line parsed back into the finding it was.
    private struct RunReader {
        let file: SpillFile
        var blocks: ArraySlice<SpillFile.Location>
        var lines: [[UInt8]] = []
        var next = 0
        var head: (kind: Int, line: [UInt8], finding: Finding)? = nil
        let parser = JSONParser()

        init(file: SpillFile, blocks: [SpillFile.Location]) throws {
            self.file = file
            self.blocks = blocks[...]
            try advance()
        }

        func precedes(_ other: RunReader) -> Bool {
            guard let a = head, let b = other.head else { return head != nil }
            return a.kind != b.kind ? a.kind < b.kind : FindingRuns.precedes(a.finding, b.finding)
        }

        mutating func advance() throws {
            while next == lines.count {
                guard let block = blocks.popFirst() else {
                    head = nil
                    return
                }
                lines = try file.withBytes(at: block) { bytes in bytes.split(separator: 0x0A).map(Array.init) }
                next = 0
            }
            let line = lines[next]
            next += 1
            // simdjson reads past a value's end: the line in a padded buffer, never bare.
            let value = try parser.parse(PaddedBuffer(copying: line))
            guard let kind = value["kind"]?.string.flatMap({ FindingRuns.kinds.firstIndex(of: $0) }), let path = value["file"]?.string,
                  let reason = value["reason"]?.string
            else { throw FieldpackError(path: file.folder, "a spilled finding could not be read back") }
            var finding = Finding(path: path, line: value["line"]?.int64.map { Int($0) }, record: value["record"]?.string, reason: reason)
            finding.field = value["field"]?.string
            head = (kind, line, finding)
        }
    }
}
