#if canImport(Glibc)
import Glibc
#endif

/// Reads a byte source line by line into one reusable padded buffer, so each line can be handed
/// to simdjson in place. Memory is bounded by the longest line, not the input.
///
/// Not thread-safe.
public final class LineReader {
    public struct Line {
        /// The line's bytes without its `\n`; valid until the next call.
        public var bytes: UnsafeRawBufferPointer
        /// 1-based.
        public var number: Int
        /// Byte offset of the line's start in the (decompressed) stream.
        public var offset: Int
        /// The stream ended (or broke) before this line's newline.
        public var unterminated: Bool
    }

    private let source: ByteSource
    public let buffer: PaddedBuffer
    // Read and written for every line of every stage: unchecked at run time (callgrind: the
    // checks were 5% of dedupe). Private, and no method hands out an `inout` to them.
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var scanned = 0
    @exclusivity(unchecked) private var atEnd = false
    @exclusivity(unchecked) private var lineNumber = 0
    @exclusivity(unchecked) private var consumed = 0
    /// The damage that cut the stream short, if any (a truncated or corrupt gzip stream, a
    /// member whose check failed). A read error is not damage: it is thrown.
    public private(set) var damage: StreamDamage?
    /// gzip members whose CRC-32 or length check failed (their bytes were read; reading went
    /// on with the next member).
    public private(set) var failedMembers: [StreamDamage] = []
    /// The byte that ends a line: `\n`, or `\r` for a file with old Mac line ends
    /// (`detectLineEnd`).
    @exclusivity(unchecked) private var terminator: Int32 = 0x0A
    public let maxLineBytes: Int

    /// The file the lines come from (its source's), for the reader's own errors.
    public var name: String? { source.name }

    /// How many lines `next` has returned: a damaged stream is damaged at line `linesRead + 1`.
    public var linesRead: Int { lineNumber }

    /// The size of a reader's buffer unless it is given one (or another size).
    public static let defaultChunkSize = 1 << 20

    /// - Parameter buffer: a buffer to read into instead of a new one of `chunkSize` bytes (its
    ///   bytes are discarded; it keeps any growth). A caller that reads many files one after
    ///   another reuses one, so no 1 MiB block is allocated, faulted in and freed per file.
    public init(
        source: ByteSource, buffer: PaddedBuffer? = nil, chunkSize: Int = LineReader.defaultChunkSize,
        maxLineBytes: Int = 256 << 20
    ) {
        self.source = source
        if let buffer {
            buffer.count = 0
            self.buffer = buffer
        } else {
            self.buffer = PaddedBuffer(capacity: chunkSize)
        }
        self.maxLineBytes = maxLineBytes
    }

    /// Reads more bytes; returns false at the end of the stream. The buffer grows up to
    /// `maximum` bytes (`maxLineBytes` for lines; `rest` passes its document limit).
    private func refill(maximum: Int? = nil) throws -> Bool {
        if atEnd { return false }
        if start > 0 {
            let remaining = buffer.count - start
            memmove(buffer.storage, buffer.storage + start, remaining)
            buffer.count = remaining
            scanned -= start
            start = 0
        }
        if buffer.count == buffer.capacity {
            if buffer.capacity >= (maximum ?? maxLineBytes) {
                throw FieldpackError(path: name, "line \(lineNumber + 1) is longer than \(maxLineBytes >> 20) MiB")
            }
            buffer.reserve(buffer.capacity * 2)
        }
        while true {
            do {
                let got = try source.read(
                    into: UnsafeMutableRawBufferPointer(start: buffer.storage + buffer.count, count: buffer.capacity - buffer.count))
                if got == 0 { atEnd = true }
                buffer.count += got
                return got > 0
            } catch let error as StreamDamage {
                if error.failedMember != nil {
                    failedMembers.append(error)
                    continue
                }
                damage = error
                atEnd = true
                return false
            }
        }
    }

    /// Where lines stop: no line whose first byte is at or past this offset (as `Line.offset`
    /// counts) is returned, though the last one returned may run past it. Nil: the source's end.
    public var endOffset: Int? = nil

    /// Numbers lines and offsets as if `lines` lines of `offset` bytes came before the source's
    /// first byte (a byte range of a file, see `ByteRangeLines`). Call before the first read.
    public func startAt(line lines: Int, offset: Int) {
        lineNumber = lines
        consumed = offset
    }

    /// Gives back the memory a long line grew the buffer to past `limit` bytes, keeping what was
    /// read ahead of the last line returned (which, like every line returned, is no longer valid).
    public func shrinkBuffer(toAtMost limit: Int) {
        guard buffer.capacity > limit else { return }
        buffer.shrink(toAtMost: limit, keeping: start..<buffer.count)
        scanned -= start
        start = 0
    }

    /// The next line, or nil at the end.
    public func next() throws -> Line? {
        if let endOffset, consumed >= endOffset { return nil }
        while true {
            let searchFrom = buffer.storage + scanned
            if let newline = memchr(searchFrom, terminator, buffer.count - scanned) {
                let end = UnsafeRawPointer(newline) - UnsafeRawPointer(buffer.storage)
                let line = Line(
                    bytes: UnsafeRawBufferPointer(start: buffer.storage + start, count: end - start),
                    number: lineNumber + 1, offset: consumed, unterminated: false)
                lineNumber += 1
                consumed += end + 1 - start
                start = end + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            if try !refill() {
                guard start < buffer.count else { return nil }
                let line = Line(
                    bytes: UnsafeRawBufferPointer(start: buffer.storage + start, count: buffer.count - start),
                    number: lineNumber + 1, offset: consumed, unterminated: true)
                lineNumber += 1
                consumed += buffer.count - start
                start = buffer.count
                scanned = start
                return line
            }
        }
    }

    /// Reads everything that is left after the current position into the buffer and returns it
    /// as one block (for whole-document inputs), up to `limit` bytes.
    public func rest(limit: Int) throws -> UnsafeRawBufferPointer {
        while true {
            if buffer.count - start > limit {
                throw FieldpackError("document is larger than the \(limit >> 20) MiB limit for one JSON document")
            }
            scanned = buffer.count
            // Room for one byte past the limit, so an oversized document is told as one.
            if try !refill(maximum: limit + 1) { break }
        }
        return UnsafeRawBufferPointer(start: buffer.storage + start, count: buffer.count - start)
    }

    /// The byte that ends a line (`\n`, or `\r` after `detectLineEnd` found old Mac text).
    public var lineEnd: UInt8 { UInt8(terminator) }

    /// Reads lines ended by `\r` when the first MiB holds carriage returns and no line feed (old
    /// Mac text); `\r\n` lines stay `\n` lines (JSON reads the `\r` as a blank).
    public func detectLineEnd() throws {
        let head = try peek(atLeast: 1 << 20)
        guard !head.isEmpty, memchr(head.baseAddress!, 0x0A, head.count) == nil,
              memchr(head.baseAddress!, 0x0D, head.count) != nil else { return }
        terminator = 0x0D
    }

    /// Peeks at the next `count` bytes without consuming them (fewer only where the stream ends
    /// first). Never more, though the buffer may hold more: a buffer reused from a longer file
    /// holds more than a new one, and what is decided from a head must not depend on that.
    public func peek(atLeast count: Int) throws -> UnsafeRawBufferPointer {
        while buffer.count - start < count {
            scanned = buffer.count
            if try !refill() { break }
        }
        scanned = start
        return UnsafeRawBufferPointer(start: buffer.storage + start, count: min(buffer.count - start, count))
    }

    /// The rest of the stream from the current position (bytes already buffered first), for
    /// another reader: ingest hands a tar stream it has peeked at to `ArchiveReader`. Read only
    /// through it afterwards.
    public func remainder() -> ByteSource { Remainder(reader: self) }

    fileprivate func readRemainder(into target: UnsafeMutableRawBufferPointer) throws -> Int {
        if start < buffer.count {
            let count = min(target.count, buffer.count - start)
            target.baseAddress!.copyMemory(from: buffer.storage + start, byteCount: count)
            start += count
            scanned = start
            return count
        }
        if atEnd {
            if let damage { throw damage }
            return 0
        }
        return try source.read(into: target)
    }
}

private final class Remainder: ByteSource {
    let reader: LineReader

    init(reader: LineReader) {
        self.reader = reader
    }

    var name: String? { reader.name }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try reader.readRemainder(into: buffer)
    }
}
