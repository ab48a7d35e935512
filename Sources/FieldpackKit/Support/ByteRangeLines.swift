#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Which lines of a file of lines one reader takes, when the file is shared by offsets (not at
/// line boundaries): a line belongs to the share that holds its first byte, so a cut inside a
/// line gives the whole line to the share before it, and every line is read exactly once
/// whatever the cuts. The one definition for a sharded ingest's byte ranges (`reader(path:range:)`)
/// and the wiki stage's shares of a JSON Lines dump (`WikiShare.lines`).
///
/// Offsets are the file's own for a plain file, and the inflated bytes' for a compressed one
/// (whose inflated size is known only at its end, so it is shared by blocks, not ranges).
public struct ByteRangeLines: Sendable {
    enum Rule: Sendable {
        /// Every line.
        case all
        /// Lines starting in the byte range.
        case range(Range<Int>)
        /// Lines starting in the blocks of `blockBytes` at `block % count == index`, the blocks
        /// counted from `position` (a file's place in a list, so the next file's first block
        /// goes to the next shard).
        case blocks(Shard, position: Int)
    }

    let rule: Rule

    /// Every line of the file.
    public static let all = ByteRangeLines(rule: .all)

    /// The lines starting in `range`.
    public init(range: Range<Int>) { rule = .range(range) }

    /// Shard `shard`'s blocks of `blockBytes`, counted from `position`.
    public init(blocksOf shard: Shard, position: Int) { rule = .blocks(shard, position: position) }

    private init(rule: Rule) { self.rule = rule }

    /// The bytes of a compressed file that go to one share at a time.
    public static let blockBytes = 4 << 20

    /// Whether the line whose first byte is at `offset` is this share's.
    public func owns(offset: Int) -> Bool {
        switch rule {
        case .all: true
        case .range(let range): range.contains(offset)
        case .blocks(let shard, let position): shard.owns(position + offset / Self.blockBytes)
        }
    }

    /// Whether no line from `offset` on is this share's (reading may stop there).
    public func isPast(offset: Int) -> Bool {
        if case .range(let range) = rule { return offset >= range.upperBound }
        return false
    }

    /// Range `part` of `count` nearly equal ranges covering `0..<size` (empty when
    /// `size < count` leaves it nothing).
    static func cut(_ part: Int, of count: Int, size: Int) -> Range<Int> {
        (size * part / count)..<(size * (part + 1) / count)
    }

    /// `count` ranges of nearly equal size covering `0..<size` (some empty when `size < count`).
    public static func cuts(size: Int, count: Int) -> [Range<Int>] {
        (0..<count).map { cut($0, of: count, size: size) }
    }

    /// Shard `shard`'s range of a file of `size` bytes, as `cuts` cuts it, except that the last
    /// range runs to the end and past it (a file that grew is still read once).
    public static func range(of shard: Shard, size: Int) -> Range<Int> {
        let range = cut(shard.index, of: shard.count, size: size)
        return range.lowerBound..<(shard.index == shard.count - 1 ? Int.max : range.upperBound)
    }

    /// The first line start at or after `offset` (a line starts at 0 and after every `\n`), and
    /// how many lines come before it: the file up to it is read once, a `memchr` pass.
    ///
    /// - Throws: when the file cannot be read (never an early end: the size is known).
    public static func lineStart(path: String, atOrAfter offset: Int) throws -> (offset: Int, lines: Int) {
        if offset == 0 { return (0, 0) }
        // From the nearest line start before `offset` that this process already counted to (an
        // earlier range's start): the ranges of one file, read side by side, count it about once
        // in all, not once per range.
        // (The file is known by its identity, size and times: one rewritten in place is counted
        // again.)
        let key = FileIdentity(path: path)
        let known = key.flatMap { key in
            knownStarts.withLock { starts in starts[key, default: []].last(where: { $0.offset <= offset }) }
        } ?? (0, 0)
        let start = try lineStart(path: path, atOrAfter: offset, from: known)
        if let key {
            knownStarts.withLock { starts in
                var list = starts[key, default: []]
                if !list.contains(where: { $0.offset == start.offset }) {
                    list.append(start)
                    list.sort { $0.offset < $1.offset }
                    starts[key] = list
                }
            }
        }
        return start
    }

    /// Line starts counted so far, by file, in offset order.
    private static let knownStarts = Mutex<[FileIdentity: [(offset: Int, lines: Int)]]>([:])

    /// `lineStart(path:atOrAfter:)` counted from `known`, a line start at or before `offset`.
    static func lineStart(path: String, atOrAfter offset: Int, from known: (offset: Int, lines: Int)) throws -> (offset: Int, lines: Int) {
        if known.offset == offset { return known }
        let file = try ReadableFile(path: path)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = known.offset
        var lines = known.lines
        while true {
            let got = try buffer.withUnsafeMutableBytes { try file.read(at: position, count: $0.count, into: $0) }
            if got == 0 { return (position, lines) }
            let found: Int? = buffer.withUnsafeBytes { bytes in
                var index = 0
                while index < got {
                    guard let hit = memchr(bytes.baseAddress! + index, 0x0A, got - index) else { return nil }
                    let at = UnsafeRawPointer(hit) - bytes.baseAddress!
                    lines += 1
                    // A line starts at `position + at + 1`: the first such start at or past `offset`.
                    if position + at + 1 >= offset { return position + at + 1 }
                    index = at + 1
                }
                return nil
            }
            if let found { return (found, lines) }
            position += got
        }
    }

    /// A reader of the lines whose first byte lies in `range` of a plain file, numbered and
    /// offset as in the whole file (`LineReader.Line.number` and `.offset`): it starts at the
    /// first line start in the range (or at `known`) and stops where `isPast` says.
    ///
    /// - Parameter numbered: false for a reader that needs no line numbers (ingest's plan of the
    ///   export, `ExportLinkPruning`): the lines before the range are not counted (a pass over the
    ///   file up to it, a third of the plan's reading of a table it reads in two ranges), so a
    ///   line is numbered 1 only if it is the file's first (a table's header), every later one 2
    ///   or more; offsets are still the file's.
    /// - Parameter known: where the range's first line that is not empty (nor a lone `\r`)
    ///   starts, and how many lines come before it, when the caller knows them (ingest's reading
    ///   of an export table, from its plan's counts: `ExportRowFates.start(of:path:)`); the
    ///   reader starts there, counting nothing, and the empty lines before it are not read.
    public static func reader(
        path: String, range: Range<Int>, buffer: PaddedBuffer? = nil, maxLineBytes: Int = 256 << 20, numbered: Bool = true,
        start known: (offset: Int, lines: Int)? = nil
    ) throws -> LineReader {
        let size = FileSystem.size(path) ?? 0
        // Unnumbered: past the first newline at or after the byte before the range.
        let start: (offset: Int, lines: Int) = try known
            ?? (numbered || range.lowerBound == 0
                ? lineStart(path: path, atOrAfter: range.lowerBound)
                : (lineStart(path: path, atOrAfter: range.lowerBound, from: (range.lowerBound - 1, 0)).offset, 1))
        let reader = LineReader(
            source: try FileRangeSource(path: path, range: min(start.offset, size)..<size), buffer: buffer,
            maxLineBytes: maxLineBytes)
        reader.startAt(line: start.lines, offset: start.offset)
        reader.endOffset = range.upperBound
        return reader
    }
}
