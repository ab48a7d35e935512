#if canImport(Glibc)
import Glibc
#endif

/// A scratch file for data a stage must hold until its end but need not hold in memory: bytes
/// are appended (buffered) and read back by the location `append` returned.
///
/// The file is created exclusively in the given folder (the build folder, so it is on the same
/// file system as the outputs) and unlinked at once: it has no name while it is used, so a
/// stage that is killed leaves nothing behind, and it is gone when the object is. `init()` makes
/// one that keeps its bytes in memory instead (for a single small input, as the fuzz targets read).
public final class SpillFile {
    /// Where appended bytes are: their offset and count.
    public struct Location: Sendable, Hashable {
        public var offset: Int64
        public var count: Int

        public init(offset: Int64, count: Int) {
            self.offset = offset
            self.count = count
        }
    }

    /// The folder the file was made in, for errors (the file itself has no name).
    public let folder: String
    /// -1: the bytes stay in `buffer`.
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Bytes already written to the file; the buffer follows them.
    private var written: Int64 = 0
    private let bufferSize: Int

    public init(in folder: String, bufferSize: Int = 1 << 20) throws {
        self.folder = folder
        self.bufferSize = bufferSize
        try FileSystem.makeDirectories(folder)
        let (path, descriptor) = try FileSystem.createExclusive(in: folder, prefix: ".spill-", readable: true)
        self.descriptor = descriptor
        defer { Leftovers.forget(path) }
        // On failure the descriptor closes with the object (deinit), never twice.
        if unlink(path) != 0 { throw FieldpackError(path: path, "cannot unlink the scratch file: \(systemError())") }
        buffer.reserveCapacity(bufferSize)
    }

    /// A spill that keeps every byte in memory: for one small input, never for a stage's data.
    public init() {
        folder = "(memory)"
        descriptor = -1
        bufferSize = Int.max
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// The number of bytes appended so far.
    public var count: Int64 { written + Int64(buffer.count) }

    /// Appends `bytes`; returns where they are.
    @discardableResult
    public func append(_ bytes: UnsafeRawBufferPointer) throws -> Location {
        let location = Location(offset: count, count: bytes.count)
        if buffer.count + bytes.count > bufferSize { try flush() }
        if bytes.count >= bufferSize {
            try writeToFile(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
        return location
    }

    /// Appends a string's UTF-8 bytes.
    @discardableResult
    public func append(_ text: String) throws -> Location {
        var text = text
        return try text.withUTF8 { try append(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes at `location`, handed to `body` (valid only inside it).
    public func withBytes<T>(at location: Location, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        if descriptor < 0 {
            let start = Int(location.offset)
            guard start + location.count <= buffer.count else { throw FieldpackError(path: folder, "a scratch buffer ended before byte \(start + location.count)") }
            return try Array(buffer[start..<(start + location.count)]).withUnsafeBytes(body)
        }
        if location.offset + Int64(location.count) > written { try flush() }
        // Not zeroed first: every byte is read into it, or it is not returned.
        let bytes = try [UInt8](unsafeUninitializedCapacity: location.count) { target, initialized in
            var done = 0
            while done < location.count {
                let got = pread(descriptor, target.baseAddress! + done, location.count - done, off_t(location.offset) + off_t(done))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw FieldpackError(path: folder, "cannot read back a scratch file: \(systemError())")
                }
                if got == 0 { throw FieldpackError(path: folder, "a scratch file ended before byte \(location.offset + Int64(location.count))") }
                done += got
            }
            initialized = done
        }
        return try bytes.withUnsafeBytes(body)
    }

    /// The text at `location`.
    public func string(at location: Location) throws -> String {
        try withBytes(at: location) { String(decoding: $0, as: UTF8.self) }
    }

    private func flush() throws {
        guard !buffer.isEmpty, descriptor >= 0 else { return }
        try buffer.withUnsafeBytes { try writeToFile($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes `bytes` at the end of what is written; `written` grows only once all of them are
    /// in, so a write that fails part-way is retried at the same offsets, never shifted.
    private func writeToFile(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let put = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(written) + off_t(done))
            if put < 0 {
                if errno == EINTR { continue }
                throw FieldpackError(path: folder, "cannot write a scratch file: \(systemError())")
            }
            done += put
        }
        written += Int64(bytes.count)
    }
}
