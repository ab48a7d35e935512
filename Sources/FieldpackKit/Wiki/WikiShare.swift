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

    /// The inflated bytes of a compressed JSON Lines file that go to one shard at a time.
    static let blockBytes = 4 << 20

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

    /// How the lines of one JSON Lines input are shared.
    struct Lines: Sendable {
        enum Rule: Sendable {
            /// Every line is this shard's.
            case all
            /// Lines starting in the inflated byte range (a plain file's size is known).
            case range(Range<Int>)
            /// Lines starting in the blocks of `blockBytes` at `block % count == index`, the
            /// blocks counted from the file's position.
            case blocks(Shard, position: Int)
        }

        let rule: Rule

        /// Whether the line whose first byte is at `offset` is this shard's.
        func owns(offset: Int) -> Bool {
            switch rule {
            case .all: true
            case .range(let range): range.contains(offset)
            case .blocks(let shard, let position): shard.owns(position + offset / WikiShare.blockBytes)
            }
        }

        /// Whether no line from `offset` on is this shard's (reading may stop there).
        func isPast(offset: Int) -> Bool {
            if case .range(let range) = rule { return offset >= range.upperBound }
            return false
        }
    }

    /// The share of the lines of the input at `position`, `size` bytes on disk, compressed or not.
    func lines(file position: Int, size: Int, compressed: Bool) -> Lines {
        guard splitsFiles else { return Lines(rule: .all) }
        if compressed { return Lines(rule: .blocks(shard, position: position)) }
        return Lines(rule: .range(Self.range(of: shard, size: size)))
    }

    /// Shard `shard`'s bytes of a file of `size` bytes; the last range runs to the end (and past
    /// it: a file that grew is still read once).
    static func range(of shard: Shard, size: Int) -> Range<Int> {
        let start = size * shard.index / shard.count
        return start..<(shard.index == shard.count - 1 ? Int.max : size * (shard.index + 1) / shard.count)
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
