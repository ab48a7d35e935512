import CArchive

/// A dump file read through libarchive, streaming: a `.tar.gz` (or `.tar`) yields each member
/// in turn; a bare or gzip-compressed file yields one member, its content. Memory does not grow
/// with the file. The wiki stage opens its dumps by path; ingest hands over a stream it has
/// already started reading (`init(source:path:)`), so that its SHA-256 covers the file.
final class ArchiveReader {
    let path: String
    private let handle: OpaquePointer
    /// Counts the file's raw (compressed) bytes as libarchive consumes them.
    private let progress: StageProgress?
    private var rawCounted: Int64 = 0
    /// The stream libarchive pulls from, when not a file (kept alive for its callbacks).
    private var feed: SourceFeed? = nil

    /// Reads a tar stream (already decompressed, or compressed: every filter is on) from `source`.
    /// `path` names it in errors.
    init(source: ByteSource, path: String) throws {
        self.path = path
        self.progress = nil
        guard let handle = archive_read_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
        self.handle = handle
        archive_read_support_filter_all(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        let feed = SourceFeed(source: source)
        self.feed = feed
        let status = archive_read_open(handle, Unmanaged.passUnretained(feed).toOpaque(), nil, { _, client, buffer in
            let feed = Unmanaged<SourceFeed>.fromOpaque(client!).takeUnretainedValue()
            return feed.next(buffer!)
        }, nil)
        if status != ARCHIVE_OK { throw FieldpackError(path: path, "cannot read as a tar archive: \(errorText)") }
    }

    init(path: String, progress: StageProgress? = nil) throws {
        self.path = path
        self.progress = progress
        guard let handle = archive_read_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
        self.handle = handle
        archive_read_support_filter_all(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        archive_read_support_format_raw(handle)
        if archive_read_open_filename(handle, path, 1 << 16) != ARCHIVE_OK {
            throw FieldpackError(path: path, "cannot open: \(errorText)")
        }
    }

    deinit { archive_read_free(handle) }

    /// Counts the rest of the file as read (at its end, or when the rest is given up).
    func countRest() {
        guard let progress else { return }
        let rest = Int64(FileSystem.size(path) ?? 0) - rawCounted
        guard rest > 0 else { return }
        progress.add(bytes: Int(rest))
        rawCounted += rest
    }

    var errorText: String {
        // A read error of the stream underneath says more than libarchive's summary of it.
        if let failure = feed?.failure { return failure.message }
        return archive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error"
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
        if let progress {
            let raw = archive_filter_bytes(handle, -1)
            if raw > rawCounted {
                progress.add(bytes: Int(raw - rawCounted))
                rawCounted = raw
            }
        }
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

/// Hands libarchive the bytes of a `ByteSource`, one buffer at a time; a read error is kept
/// (libarchive sees a failed read) so the archive's error names it.
private final class SourceFeed {
    let source: ByteSource
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
    private(set) var failure: FieldpackError? = nil

    init(source: ByteSource) {
        self.source = source
    }

    deinit { buffer.deallocate() }

    func next(_ out: UnsafeMutablePointer<UnsafeRawPointer?>) -> Int {
        do {
            let count = try source.read(into: buffer)
            out.pointee = UnsafeRawPointer(buffer.baseAddress)
            return count
        } catch {
            failure = error as? FieldpackError ?? FieldpackError("\(error)")
            return -1
        }
    }
}
