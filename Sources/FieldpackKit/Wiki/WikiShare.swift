/// Which part of the dumps one shard of the wiki stage reads (`Shard`), so that every article,
/// line and finding is read by exactly one shard.
///
/// With at least as many dump files as shards, shard K reads the files at positions K, K+N, …
/// whole. With fewer, every shard opens every file and reads its share of each: the members of
/// an archive round robin by member index (counted from the file's position, so that a second
/// archive's first member goes to the next shard); the lines of a plain (uncompressed) JSON Lines
/// file by byte range, shard K holding bytes [K·size/N, (K+1)·size/N), a line belonging to the
/// range that holds its first byte; the lines of a compressed JSON Lines file by 4 MiB blocks of
/// its inflated bytes, round robin (its inflated size is known only at its end). What cannot be
/// split (an HTML page, one JSON document, a finding about the whole file) belongs to the shard
/// that owns the file's position.
struct WikiShare: Sendable {
    let shard: Shard
    /// Whether each file is split between the shards (fewer files than shards).
    let splitsFiles: Bool

    /// Everything: an unsharded run, and the passes that follow redirect stubs.
    static let everything = WikiShare(shard: .whole, files: 1)

    init(shard: Shard, files: Int) {
        self.shard = shard
        splitsFiles = !shard.isWhole && files < shard.count
    }

    /// Whether the shard opens the file at `position` at all.
    func reads(file position: Int) -> Bool { splitsFiles || shard.owns(position) }

    /// Whether the shard reads what cannot be split in that file (a page, a document, a finding
    /// about the file as a whole).
    func ownsWhole(file position: Int) -> Bool { shard.owns(position) }

    /// Whether the shard reads member `index` (counted from 0) of the archive at `position`.
    func owns(member index: Int, file position: Int) -> Bool { !splitsFiles || shard.owns(position + index) }

    /// The share of the lines of the input at `position`, `size` bytes on disk, compressed or not
    /// (`ByteRangeLines`: by byte range for a plain file, by blocks of its inflated bytes for a
    /// compressed one).
    func lines(file position: Int, size: Int, compressed: Bool) -> ByteRangeLines {
        guard splitsFiles else { return .all }
        if compressed { return ByteRangeLines(blocksOf: shard, position: position) }
        return ByteRangeLines(range: ByteRangeLines.range(of: shard, size: size))
    }

    /// Whether a file starts like a compressed stream libarchive reads (gzip, bzip2, xz, zstd,
    /// lz4): its inflated offsets are then not its file offsets.
    static func isCompressed(_ path: String) -> Bool {
        var magic = [UInt8](repeating: 0, count: 6)
        let got = (try? ReadableFile(path: path)).flatMap { file in
            try? magic.withUnsafeMutableBytes { try file.read(at: 0, count: 6, into: $0) }
        } ?? 0
        let head = Array(magic.prefix(got))
        for signature: [UInt8] in [[0x1F, 0x8B], [0x42, 0x5A, 0x68], [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [0x28, 0xB5, 0x2F, 0xFD], [0x04, 0x22, 0x4D, 0x18]]
        where head.starts(with: signature) {
            return true
        }
        return false
    }
}
