/// Bytes already in memory as a `ByteSource`: what the fuzz targets (`FuzzEntry`) feed the
/// readers, so an input costs no file.
///
/// Not thread-safe.
public final class MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var position = 0
    /// At most this many bytes per `read`, so short reads are exercised as files give them.
    private let chunk: Int

    public init(_ bytes: [UInt8], chunk: Int = .max) {
        self.bytes = bytes
        self.chunk = max(1, chunk)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - position, chunk)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}
