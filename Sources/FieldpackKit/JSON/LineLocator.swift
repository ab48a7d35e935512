#if canImport(Glibc)
import Glibc
#endif

/// The 1-based line of byte offsets in one buffer, asked in increasing order: each question
/// counts only the newlines since the last one, so locating every element of a document is
/// linear in its size (counting from the start each time was quadratic). An offset before the
/// last one asked counts again from the start.
struct LineLocator {
    let bytes: UnsafeRawBufferPointer
    /// The byte that ends a line: `\n`, or `\r` in a file with old Mac line ends
    /// (`LineReader.lineEnd`).
    let lineEnd: UInt8
    private var offset = 0
    private var line = 1

    init(_ bytes: UnsafeRawBufferPointer, lineEnd: UInt8 = 0x0A) {
        self.bytes = bytes
        self.lineEnd = lineEnd
    }

    mutating func line(of target: Int) -> Int {
        let target = min(max(0, target), bytes.count)
        if target < offset {
            offset = 0
            line = 1
        }
        guard let base = bytes.baseAddress else { return line }
        while offset < target, let newline = memchr(base + offset, Int32(lineEnd), target - offset) {
            line += 1
            offset = UnsafeRawPointer(newline) - base + 1
        }
        offset = target
        return line
    }
}
