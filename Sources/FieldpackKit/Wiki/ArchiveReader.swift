import CArchive

/// A dump file read through libarchive, streaming: a `.tar.gz` (or `.tar`) yields each member
/// in turn; a bare or gzip-compressed file yields one member, its content. Memory does not grow
/// with the file.
final class ArchiveReader {
    let path: String
    private let handle: OpaquePointer
    /// The bytes of an archive read from memory (`init(memory:name:)`), freed after the handle.
    private var memory: UnsafeMutableRawBufferPointer? = nil

    init(path: String) throws {
        self.path = path
        handle = try Self.newHandle(path: path)
        if archive_read_open_filename(handle, path, 1 << 16) != ARCHIVE_OK {
            throw FieldpackError(path: path, "cannot open: \(errorText)")
        }
    }

    /// Reads `bytes` (a copy is kept) as if they were the file `name`: the fuzz targets'
    /// way in (`FuzzEntry`), with no file per input.
    init(memory bytes: [UInt8], name: String) throws {
        path = name
        handle = try Self.newHandle(path: name)
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { if !$0.isEmpty { copy.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        memory = copy
        if archive_read_open_memory(handle, copy.baseAddress, bytes.count) != ARCHIVE_OK {
            throw FieldpackError(path: name, "cannot open: \(errorText)")
        }
    }

    /// A read handle for the formats the wiki stage reads: any compression, tar or one raw stream.
    private static func newHandle(path: String) throws -> OpaquePointer {
        guard let handle = archive_read_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
        archive_read_support_filter_all(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        archive_read_support_format_raw(handle)
        return handle
    }

    deinit {
        archive_read_free(handle)
        memory?.deallocate()
    }

    var errorText: String {
        archive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error"
    }

    /// The next member's name (a bare file's is `data`), or nil at the end. A tar's folder
    /// entries are passed over: they hold nothing.
    func nextMember() throws -> String? {
        while true {
            var entry: OpaquePointer? = nil
            let status = archive_read_next_header(handle, &entry)
            switch status {
            case ARCHIVE_OK, ARCHIVE_WARN:
                guard let entry else { return "data" }
                // S_IFDIR: libarchive's AE_IFDIR is a cast macro Swift does not import.
                if archive_entry_filetype(entry) & 0o170000 == 0o040000 { continue }
                return archive_entry_pathname(entry).map { String(cString: $0) } ?? "data"
            case ARCHIVE_EOF:
                return nil
            default:
                throw FieldpackError(path: path, "damaged archive: \(errorText)")
            }
        }
    }

    /// The current member's bytes, as a source for a `LineReader`.
    func memberSource() -> ByteSource { MemberSource(reader: self) }

    fileprivate func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = archive_read_data(handle, buffer.baseAddress, buffer.count)
        if count < 0 { throw FieldpackError(path: path, "damaged archive: \(errorText)") }
        return count
    }

    /// Whether the file is a tar archive (its members are named) rather than one stream.
    var isTar: Bool {
        archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR
    }
}

private final class MemberSource: ByteSource {
    let reader: ArchiveReader

    init(reader: ArchiveReader) {
        self.reader = reader
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try reader.read(into: buffer)
    }
}
