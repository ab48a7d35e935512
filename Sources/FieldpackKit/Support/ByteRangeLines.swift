#if canImport(Glibc)
import Glibc
#endif

/// The lines of one byte range of a file of lines, when a file is cut into ranges at fixed byte
/// offsets (not at line boundaries): a line belongs to the range that holds its first byte, so
/// a cut inside a line gives the whole line to the range before it, and every line is read
/// exactly once whatever the cuts.
public enum ByteRangeLines {
    /// `count` ranges of nearly equal size covering `0..<size` (some empty when `size < count`).
    public static func cuts(size: Int, count: Int) -> [Range<Int>] {
        (0..<count).map { part in (size * part / count)..<(size * (part + 1) / count) }
    }

    /// The first line start at or after `offset` (a line starts at 0 and after every `\n`), and
    /// how many lines come before it: the file up to it is read once, a `memchr` pass.
    ///
    /// - Throws: when the file cannot be read (never an early end: the size is known).
    public static func lineStart(path: String, atOrAfter offset: Int) throws -> (offset: Int, lines: Int) {
        if offset == 0 { return (0, 0) }
        let file = try ReadableFile(path: path)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var position = 0
        var lines = 0
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

    /// A reader of the lines whose first byte lies in `range`, numbered and offset as in the
    /// whole file (`LineReader.Line.number` and `.offset`).
    public static func reader(path: String, range: Range<Int>, maxLineBytes: Int = 256 << 20) throws -> LineReader {
        let size = FileSystem.size(path) ?? 0
        let start = try lineStart(path: path, atOrAfter: range.lowerBound)
        let reader = LineReader(
            source: try FileRangeSource(path: path, range: min(start.offset, size)..<size), maxLineBytes: maxLineBytes)
        reader.startAt(line: start.lines, offset: start.offset)
        reader.endOffset = range.upperBound
        return reader
    }
}
