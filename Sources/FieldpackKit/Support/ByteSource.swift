import CZlib

/// A stream of bytes: a file, or a file decompressed on the fly.
public protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 means the end. Throws `StreamDamage` when the input is
    /// damaged, after every intact byte before the damage has been returned, and a
    /// `FieldpackError` when the file cannot be read (never an early end). After a damage with a
    /// `failedMember` (only a gzip trailer's check failed) reading may go on.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A file's raw bytes, counted (and, if asked, hashed with SHA-256) as they are read.
public final class RawFileSource: ByteSource {
    public let file: ReadableFile
    private let hasher: SHA256?
    public private(set) var bytesRead = 0
    /// Counts the raw bytes as they are read, for the stage's progress line.
    public var progress: StageProgress? = nil
    private var pending: [UInt8] = []

    public convenience init(path: String, hashing: Bool = false) throws {
        try self.init(file: ReadableFile(path: path), hashing: hashing)
    }

    public init(file: ReadableFile, hashing: Bool = false) {
        self.file = file
        hasher = hashing ? SHA256() : nil
    }

    /// The first bytes of the file, without consuming them.
    public func peek(_ count: Int) throws -> [UInt8] {
        while pending.count < count {
            var chunk = [UInt8](repeating: 0, count: count - pending.count)
            let got = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
            if got == 0 { break }
            chunk.withUnsafeBytes { hasher?.update(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            bytesRead += got
            progress?.add(bytes: got)
            pending.append(contentsOf: chunk[0..<got])
        }
        return Array(pending.prefix(count))
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !pending.isEmpty {
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            pending.removeFirst(count)
            return count
        }
        let count = try file.read(into: buffer)
        if count > 0 {
            hasher?.update(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            bytesRead += count
            progress?.add(bytes: count)
        }
        return count
    }

    /// Reads whatever is left so the digest covers the whole file, then returns it.
    public func finishDigest() throws -> String {
        guard let hasher else { preconditionFailure("finishDigest() on a source opened without hashing") }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        pending.removeAll()
        while try chunk.withUnsafeMutableBytes({ try read(into: $0) }) > 0 {}
        return hasher.finalizeHex()
    }
}

/// Inflates gzip data (including several concatenated members) from another source, with zlib.
public final class GzipSource: ByteSource {
    private let source: RawFileSource
    /// On the heap, allocated once: zlib keeps a pointer back to it (`state->strm`), so it must
    /// not move, which a Swift stored property passed with `&` does not promise.
    private let streamPointer: UnsafeMutablePointer<z_stream> = {
        let pointer = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        return pointer
    }()
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    private var ended = false
    private var memberEnded = false
    private var sawInputEnd = false
    private var pendingError: StreamDamage?
    /// Bytes produced so far, and where the current member's started (decompressed offsets).
    private var produced = 0
    private var memberStart = 0
    /// Trailer bytes still to pass over after a failed CRC-32 check (zlib stops before ISIZE).
    private var trailerLeft = 0

    public init(source: RawFileSource) throws {
        self.source = source
        input = [UInt8](repeating: 0, count: 1 << 18)
        // 15 + 16: a gzip wrapper, with the largest window.
        let status = fp_inflate_init2(streamPointer, 15 + 16)
        if status != Z_OK { throw FieldpackError(path: source.file.path, "zlib could not start inflating") }
    }

    deinit {
        inflateEnd(streamPointer)
        streamPointer.deinitialize(count: 1)
        streamPointer.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        if ended { return 0 }
        while true {
            while trailerLeft > 0 && !(inputStart == inputEnd && sawInputEnd) {
                if inputStart == inputEnd {
                    inputEnd = try input.withUnsafeMutableBytes { try source.read(into: $0) }
                    inputStart = 0
                    if inputEnd == 0 { sawInputEnd = true }
                    continue
                }
                let skipped = min(trailerLeft, inputEnd - inputStart)
                inputStart += skipped
                trailerLeft -= skipped
            }
            if inputStart == inputEnd && !sawInputEnd {
                inputEnd = try input.withUnsafeMutableBytes { try source.read(into: $0) }
                inputStart = 0
                if inputEnd == 0 { sawInputEnd = true }
            }
            if memberEnded {
                // Another gzip member may follow the one that ended.
                if inputStart == inputEnd && sawInputEnd {
                    ended = true
                    return 0
                }
                inflateReset(streamPointer)
                memberEnded = false
                memberStart = produced
            }
            if inputStart == inputEnd && sawInputEnd {
                ended = true
                throw StreamDamage(FieldpackError(
                    path: source.file.path,
                    "gzip stream is truncated: it ends after \(source.bytesRead) compressed bytes without its trailer"))
            }
            let got: Int
            let status: Int32
            (got, status) = input.withUnsafeMutableBytes { inputBytes in
                streamPointer.pointee.next_in = inputBytes.baseAddress!.assumingMemoryBound(to: Bytef.self) + inputStart
                streamPointer.pointee.avail_in = uInt(inputEnd - inputStart)
                streamPointer.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                streamPointer.pointee.avail_out = uInt(buffer.count)
                let status = inflate(streamPointer, Z_NO_FLUSH)
                inputStart = inputEnd - Int(streamPointer.pointee.avail_in)
                return (buffer.count - Int(streamPointer.pointee.avail_out), status)
            }
            produced += got
            switch status {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let detail = streamPointer.pointee.msg.map { String(cString: $0) } ?? "code \(status)"
                // zlib checks the trailer's CRC-32 and length once the member's data is out.
                let damage: StreamDamage
                if detail == "incorrect data check" || detail == "incorrect length check" {
                    damage = StreamDamage(FieldpackError(
                        path: source.file.path,
                        "gzip member at decompressed bytes \(memberStart)-\(produced) fails its \(detail == "incorrect data check" ? "CRC-32" : "length") check (gzip -t fails)"),
                        failedMember: memberStart..<produced)
                    // Only the trailer is bad: the next member is read on, after the length
                    // (ISIZE) zlib leaves unread when the CRC-32 fails.
                    memberEnded = true
                    trailerLeft = detail == "incorrect data check" ? 4 : 0
                } else {
                    ended = true
                    damage = StreamDamage(FieldpackError(
                        path: source.file.path, "gzip data is corrupt near compressed byte \(source.bytesRead): \(detail)"))
                }
                if got == 0 { throw damage }
                pendingError = damage
                return got
            }
            if got > 0 { return got }
        }
    }
}

/// How a command line names standard input, and how errors and records name it.
public enum StandardInput {
    public static let argument = "-"
    public static let name = "<stdin>"
}

/// Opens an input file (`-`: standard input), decompressing it when its content (not its name)
/// says gzip.
///
/// - Parameters:
///   - hashing: whether the raw bytes are hashed with SHA-256 as they are read.
///   - progress: counts the raw (compressed) bytes as they are read.
public func openInput(
    _ path: String, hashing: Bool = true, progress: StageProgress? = nil
) throws -> (source: ByteSource, raw: RawFileSource, gzip: Bool) {
    let raw = path == StandardInput.argument
        ? RawFileSource(file: try ReadableFile(standardInputNamed: StandardInput.name), hashing: hashing)
        : try RawFileSource(path: path, hashing: hashing)
    raw.progress = progress
    let magic = try raw.peek(2)
    if magic == [0x1F, 0x8B] {
        return (try GzipSource(source: raw), raw, true)
    }
    return (raw, raw, false)
}

/// A byte range of a file, read with `pread`: lets two threads read two halves of one file.
public final class FileRangeSource: ByteSource {
    private let file: ReadableFile
    private var position: Int
    private let end: Int

    public init(path: String, range: Range<Int>) throws {
        file = try ReadableFile(path: path)
        position = range.lowerBound
        end = range.upperBound
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, end - position)
        if count <= 0 { return 0 }
        let got = try file.read(at: position, count: count, into: buffer)
        position += got
        return got
    }

    /// Splits a file of JSON Lines into `parts` byte ranges that start at line starts.
    public static func lineAlignedRanges(path: String, parts: Int) throws -> [Range<Int>] {
        let size = FileSystem.size(path) ?? 0
        let file = try ReadableFile(path: path)
        var cuts = [0]
        var probe = [UInt8](repeating: 0, count: 1 << 16)
        for part in 1..<max(1, parts) {
            var position = max(size * part / parts, cuts.last!)
            var found: Int? = nil
            while found == nil && position < size {
                let got = try probe.withUnsafeMutableBytes { try file.read(at: position, count: $0.count, into: $0) }
                if got == 0 { break }
                if let newline = probe[0..<got].firstIndex(of: 0x0A) { found = position + newline + 1 }
                position += got
            }
            cuts.append(found ?? size)
        }
        cuts.append(size)
        return (0..<(cuts.count - 1)).map { cuts[$0]..<cuts[$0 + 1] }
    }
}
