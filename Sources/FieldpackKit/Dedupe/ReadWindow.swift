#if canImport(Glibc)
import Glibc
#endif

/// Reads records back from the records file by offset, through a window of the file that
/// grows while reads fall in it and shrinks when they do not. Photo winners come in id order,
/// which is mostly the file's order: their 1.9M reads of about 180 bytes each were as many
/// `pread` calls, and are now one per window. Observation winners come in uuid order, at random
/// places: the window shrinks to the record itself, one `pread` each, as before.
///
/// Not thread-safe: one per `Winners`.
struct ReadWindow {
    let source: ReadableFile
    private var buffer: [UInt8] = []
    private var start = 0
    private var count = 0
    /// The bytes the next refill reads past the record asked for.
    private var readAhead = 0
    /// Reads served from the window since its last refill.
    private var hits = 0

    static let largest = 1 << 20
    static let smallest = 4 << 10

    init(source: ReadableFile) {
        self.source = source
    }

    /// Calls `body` with the `length` bytes at `offset` (valid only inside `body`).
    ///
    /// - Throws: when the file is shorter than that: it changed while it was read.
    mutating func withBytes<T>(at offset: Int, length: Int, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        if offset >= start && offset + length <= start + count {
            hits += 1
            return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[(offset - start)..<(offset - start + length)])) }
        }
        // A miss: read ahead more when the last window served reads or this read follows it
        // closely (the file read forward), less when neither.
        let forward = offset >= start + count && offset - (start + count) < Self.smallest
        readAhead = hits > 0 || forward ? min(Self.largest, max(Self.smallest, readAhead * 2)) : readAhead / 2
        if readAhead < Self.smallest { readAhead = 0 }
        hits = 0
        let wanted = length + readAhead
        if buffer.count < wanted { buffer = [UInt8](repeating: 0, count: wanted) }
        let got = try buffer.withUnsafeMutableBytes { try source.read(at: offset, count: wanted, into: $0) }
        guard got >= length else { throw FieldpackError(path: source.path, "records file changed while reading it") }
        (start, count) = (offset, got)
        return try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
    }
}
