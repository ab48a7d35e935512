import CArchive

/// A dump file read through libarchive, streaming: a `.tar.gz` (or `.tar`) yields each member
/// in turn; a bare or gzip-compressed file yields one member, its content. Memory does not grow
/// with the file. The wiki stage opens its dumps by path; ingest hands over a stream it has
/// already started reading (`init(source:path:)`), so that its SHA-256 covers the file.
///
/// gzip is inflated by ISA-L's igzip (`GzipSource`), not by libarchive, whose gzip filter never checks a
/// member's trailer (CRC-32 and length: libarchive 3.6's `consume_trailer` skips it): libarchive
/// reads the inflated stream. A member whose check fails is `failedMembers`; a read error of the
/// file is thrown, never taken for the end of the archive.
///
/// Not thread-safe.
final class ArchiveReader {
    let path: String
    private let handle: OpaquePointer
    private let feed: ArchiveFeed
    /// Whether the file is gzip-compressed (and so has members whose check may fail).
    let isGzip: Bool
    /// Where the current member's bytes lie in the (inflated) stream, roughly: from its header
    /// to the end of its data.
    private(set) var memberRange: Range<Int> = 0..<0
    /// The current member's size in bytes, as its header gives it (0 when it gives none).
    private(set) var memberBytes = 0
    /// Where the last member's data ends, padded to its 512-byte block, in the inflated stream,
    /// and its name: a tar writer closes the archive with a block of zeros after it (two).
    private var lastMemberEnd: (offset: Int, name: String)? = nil
    /// The file's raw bytes as read, when opened by path (progress counts them as they go).
    private let raw: RawFileSource?
    private let progress: StageProgress?

    /// Reads a tar stream, already decompressed, from `source`; `path` names it in errors.
    convenience init(source: ByteSource, path: String) throws {
        try self.init(feeding: source, path: path, isGzip: false, raw: nil, progress: nil, oneStream: false, what: "cannot read as a tar archive")
    }

    /// Opens the dump at `path`; `progress` counts its raw (compressed) bytes as they are read.
    convenience init(path: String, progress: StageProgress? = nil) throws {
        let input = try openInput(path, hashing: false, progress: progress)
        try self.init(
            feeding: input.source, path: path, isGzip: input.gzip, raw: input.raw, progress: progress, oneStream: true,
            what: "not a readable dump", endAtDamage: true)
    }

    /// Reads `bytes` as if they were the file `name`: the fuzz targets' way in (`FuzzEntry`),
    /// with no file per input. gzip here is libarchive's own filter (no member checks).
    convenience init(memory bytes: [UInt8], name: String) throws {
        try self.init(
            feeding: MemorySource(bytes), path: name, isGzip: false, raw: nil, progress: nil, oneStream: true,
            what: "not a readable dump")
    }

    /// libarchive over `source`: any compression, tar, and (`oneStream`) a bare file as one member.
    private init(
        feeding source: ByteSource, path: String, isGzip: Bool, raw: RawFileSource?, progress: StageProgress?,
        oneStream: Bool, what: String, endAtDamage: Bool = false
    ) throws {
        self.path = path
        feed = ArchiveFeed(source: source)
        feed.endAtDamage = endAtDamage
        self.isGzip = isGzip
        self.raw = raw
        self.progress = progress
        guard let handle = archive_read_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
        self.handle = handle
        archive_read_support_filter_all(handle)
        archive_read_support_format_tar(handle)
        archive_read_support_format_gnutar(handle)
        if oneStream { archive_read_support_format_raw(handle) }
        let status = archive_read_open(handle, Unmanaged.passUnretained(feed).toOpaque(), nil, feedRead, nil)
        if status != ARCHIVE_OK {
            try feed.rethrow()
            throw StreamDamage(FieldpackError(path: path, "\(what): \(errorText)"))
        }
    }

    deinit { archive_read_free(handle) }

    /// Counts the rest of the file as read (at its end, or when the rest is given up).
    func countRest() {
        guard let progress, let raw else { return }
        let rest = (FileSystem.size(path) ?? 0) - raw.bytesRead
        if rest > 0 { progress.add(bytes: rest) }
    }

    var errorText: String {
        // A read error of the stream underneath says more than libarchive's summary of it.
        if let failure = feed.failure { return failure.message }
        return archive_error_string(handle).map { String(cString: $0) } ?? "unknown libarchive error"
    }

    /// The gzip members whose CRC-32 or length check failed so far (inflated offsets).
    var failedMembers: [Range<Int>] { feed.failedMembers }

    /// Why the first failed member failed.
    var failureReason: String? { feed.failureReason }

    /// The next member's name (a bare file's is `data`), or nil at the end. A tar's folder
    /// entries are passed over: they hold nothing. At the end the rest of the file is read, so
    /// a gzip trailer after the tar's end is checked too.
    func nextMember() throws -> String? {
        while true {
            var entry: OpaquePointer? = nil
            let status = archive_read_next_header(handle, &entry)
            switch status {
            case ARCHIVE_OK, ARCHIVE_WARN:
                guard let entry else { return "data" }
                // libarchive has read the member's header blocks: its data starts here. A sparse
                // member stores fewer bytes than its size: its end is not known so (a sparse file
                // last in an intact archive was taken for a cut).
                lastMemberEnd = archive_entry_size_is_set(entry) != 0 && archive_entry_sparse_count(entry) == 0
                    ? (Int(archive_filter_bytes(handle, 0)) + (Int(archive_entry_size(entry)) + 511) / 512 * 512,
                       archive_entry_pathname(entry).map { String(cString: $0) } ?? "?")
                    : nil
                // S_IFDIR: libarchive's AE_IFDIR is a cast macro Swift does not import.
                if archive_entry_filetype(entry) & 0o170000 == 0o040000 { continue }
                let start = Int(archive_read_header_position(handle))
                memberBytes = archive_entry_size_is_set(entry) != 0 ? Int(archive_entry_size(entry)) : 0
                memberRange = start..<(start + 512 + (archive_entry_size_is_set(entry) != 0 ? memberBytes : Int.max / 4))
                return archive_entry_pathname(entry).map { String(cString: $0) } ?? "data"
            case ARCHIVE_EOF:
                // Damage libarchive saw as the end, that no member's reader met and reported.
                if feed.endAtDamage, !feed.reported, let damage = feed.damage {
                    feed.reported = true
                    throw damage
                }
                // libarchive ends a tar quietly where the stream ends at a member's end, as
                // one cut there does (a download or copy that stopped, a full disk): its next
                // members, whole tables of an export, were missing without a word.
                if isTar, let last = lastMemberEnd, Int(archive_filter_bytes(handle, 0)) < last.offset + 512 {
                    throw StreamDamage(FieldpackError(
                        path: path,
                        "the tar archive ends after its member \(last.name) without the block of zeros a tar writer closes it with: cut short at a member's end, its later members missing"))
                }
                try feed.drain()
                return nil
            default:
                // Damage a member's reader already met and reported ends the file.
                if feed.reported { return nil }
                try feed.rethrow()
                throw StreamDamage(FieldpackError(path: path, "damaged archive: \(errorText)"))
            }
        }
    }

    /// The current member's bytes, as a source for a `LineReader`, named `name` in its errors
    /// (`archive#member`): a line over the limit was an error naming no file.
    func memberSource(named name: String? = nil) -> ByteSource { MemberSource(reader: self, name: name) }

    /// The next block of the current member: libarchive's own buffer, valid until the next call;
    /// empty at the member's end.
    fileprivate func nextBlock() throws -> UnsafeRawBufferPointer {
        var block: UnsafeRawPointer? = nil
        var size = 0
        var offset: la_int64_t = 0
        let status = archive_read_data_block(handle, &block, &size, &offset)
        if status == ARCHIVE_EOF { return UnsafeRawBufferPointer(start: nil, count: 0) }
        if status < ARCHIVE_WARN {
            feed.reported = true
            try feed.rethrow()
            throw StreamDamage(FieldpackError(path: path, "damaged archive: \(errorText)"))
        }
        return UnsafeRawBufferPointer(start: block, count: size)
    }

    /// Whether the stream's damage lies inside the data of the member last named (a member a
    /// reader passed over meets it only at the next header), not at or after its end.
    var damageIsInCurrentMember: Bool { feed.damage != nil && feed.delivered < memberRange.upperBound }

    /// Damage libarchive took for the end of the stream, not yet reported: once (the member
    /// being read reports it).
    fileprivate func pendingDamage() -> StreamDamage? {
        guard feed.endAtDamage, !feed.reported, let damage = feed.damage else { return nil }
        feed.reported = true
        return damage
    }

    /// Whether the file is a tar archive (its members are named) rather than one stream.
    var isTar: Bool {
        archive_format(handle) & ARCHIVE_FORMAT_BASE_MASK == ARCHIVE_FORMAT_TAR
    }
}

/// What libarchive reads: the file's bytes, inflated by igzip when they are gzip. Keeps the error
/// that made a read fail, so the reader reports it rather than libarchive's "unknown error".
private final class ArchiveFeed {
    let source: ByteSource
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
    var failure: FieldpackError? = nil
    var damage: StreamDamage? = nil
    var failedMembers: [Range<Int>] = []
    var failureReason: String? = nil
    /// Whether a member's reader met the damage (and so reported it).
    var reported = false
    /// The bytes given to libarchive so far: where the damage is, once there is damage.
    var delivered = 0
    /// Whether damage (a truncated or corrupt stream) reaches libarchive as the stream's end
    /// instead of a failed read; the member being read then throws it once it has given every
    /// byte before it (`MemberSource`), or the next member's header does. libarchive reads ahead
    /// while it opens the file (to tell its format): a failed read there lost every line of a
    /// small truncated `.ndjson.gz`, where a larger one kept the lines before the cut.
    var endAtDamage = false

    init(source: ByteSource) {
        self.source = source
    }

    deinit { buffer.deallocate() }

    /// The next bytes for libarchive, or -1 (the reason kept here).
    func next() -> Int {
        if failure == nil, damage != nil, endAtDamage { return 0 }
        if failure != nil || damage != nil { return -1 }
        do {
            while true {
                do {
                    let count = try source.read(into: buffer)
                    delivered += count
                    return count
                } catch let error as StreamDamage where error.failedMember != nil {
                    // Only a trailer's check failed: noted, and the next member read on.
                    note(error)
                }
            }
        } catch let error as StreamDamage {
            note(error)
            return endAtDamage ? 0 : -1
        } catch let error as FieldpackError {
            failure = error
            return -1
        } catch {
            failure = FieldpackError("\(error)")
            return -1
        }
    }

    private func note(_ error: StreamDamage) {
        if let member = error.failedMember {
            failedMembers.append(member)
            if failureReason == nil { failureReason = error.message }
        } else {
            damage = error
        }
    }

    /// Throws what made the last read fail, if anything did.
    func rethrow() throws {
        if let failure { throw failure }
        if let damage { throw damage }
    }

    /// Reads what libarchive left unread (a gzip trailer, tar padding), to check it: a stream
    /// cut there (only its trailer missing) is damage like any other, though the tar's members
    /// were read whole: an export `.tar.gz` missing its last bytes is refused.
    func drain() throws {
        if let failure { throw failure }
        if damage != nil { return }
        while true {
            do {
                while try source.read(into: buffer) > 0 {}
                return
            } catch let error as StreamDamage {
                if error.failedMember == nil {
                    damage = error
                    throw error
                }
                note(error)
            }
        }
    }
}

private let feedRead: @convention(c) (
    OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeRawPointer?>?
) -> la_ssize_t = { _, client, block in
    let feed = Unmanaged<ArchiveFeed>.fromOpaque(client!).takeUnretainedValue()
    let count = feed.next()
    block?.pointee = UnsafeRawPointer(feed.buffer.baseAddress)
    return la_ssize_t(count)
}

/// One member's bytes, handed out from libarchive's blocks: a block read whole before a damaged
/// one is never lost (`archive_read_data` drops a partly filled buffer when the stream breaks).
private final class MemberSource: ByteSource {
    let reader: ArchiveReader
    let name: String?
    private var block = UnsafeRawBufferPointer(start: nil, count: 0)
    private var used = 0

    init(reader: ArchiveReader, name: String?) {
        self.reader = reader
        self.name = name
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while used == block.count {
            block = try reader.nextBlock()
            used = 0
            if block.isEmpty {
                // The end libarchive saw may be damage (`ArchiveFeed.endAtDamage`): given now,
                // after every byte before it.
                if let damage = reader.pendingDamage() { throw damage }
                return 0
            }
        }
        let count = min(buffer.count, block.count - used)
        buffer.baseAddress!.copyMemory(from: block.baseAddress! + used, byteCount: count)
        used += count
        return count
    }
}
