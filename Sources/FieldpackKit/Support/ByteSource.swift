/// A stream of bytes: a file, or a file decompressed on the fly.
public protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; 0 means the end. Throws `StreamDamage` when the input is
    /// damaged, after every intact byte before the damage has been returned, and a
    /// `FieldpackError` when the file cannot be read (never an early end). After a damage with a
    /// `failedMember` (only a gzip trailer's check failed) reading may go on.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// The file the bytes come from, for the errors of whoever reads them (`LineReader`'s
    /// line limit); nil when they come from memory.
    var name: String? { get }
}

extension ByteSource {
    public var name: String? { nil }
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

    public var name: String? { file.path }

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
        if !pending.isEmpty { return pending.give(into: buffer) }
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

extension [UInt8] {
    /// Moves as many of these held bytes as fit into `buffer` (a source's bytes read ahead and
    /// not yet given), removing them; returns how many.
    mutating func give(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = Swift.min(buffer.count, self.count)
        withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
        removeFirst(count)
        return count
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

    public var name: String? { file.path }

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
