/// One unit of an ingest run's work: a whole input file, or one byte range of a large JSON Lines
/// file or open-data table (see `ByteRangeLines`).
struct IngestUnit: Sendable, Equatable {
    /// The file's index in the input list (what records' sources name).
    var file: Int
    /// The bytes whose lines this unit reads; nil: the whole file, read as today.
    var range: Range<Int>? = nil
    /// The range's place among the file's ranges (0 for a whole file).
    var part = 0
    /// The header of the export table this range is of (read once, when the units were
    /// planned); nil for a whole file or a range of a JSON Lines file.
    var header: OpenDataTable.Header? = nil

    /// Whether this unit writes the file's `input` record: the whole file, or its first range
    /// (which hashes the whole file).
    var writesInput: Bool { part == 0 }
}

/// Which units an ingest cuts its inputs into: the same list in every shard of a sharded run (it
/// follows from the input list, the shard count and the range sizes), so unit `p` is shard
/// `p % N`'s.
///
/// A plain open-data table larger than `tableRangeBytes` is cut into ranges of at most that
/// size, in every run: an unsharded run's workers read them side by side (the export's photos
/// table alone was one worker's whole run). A sharded run also cuts a file that can be read from
/// the middle (plain, not gzip; JSON Lines with `\n` line ends, or an open-data table) when there
/// are fewer files than shards (one range per shard, so every shard has work) or when it is
/// larger than `rangeBytes` (ranges of at most that size). An unsharded run reads JSON Lines
/// files whole, where a file of no iNaturalist shape is refused whole.
enum IngestUnits {
    /// The open-data tables' range size: about 13 MiB of records a range (a photo row is a photo
    /// and a link record), held in memory until written (`PartBuffer`), a few ranges at a time:
    /// ingest peaked at 103 MB on the benchmark's 1M export and 105 MB at 10M (at 8 MiB ranges,
    /// 130 and 180 MB). A taxa or observers table larger than it is cut at an eighth of it
    /// (`rangeBytes(of:tableRangeBytes:)`).
    static let tableRangeBytes = 4 << 20

    /// The range size of an export table once it is cut (it is larger than `tableRangeBytes`):
    /// a taxon's or an observer's record is about four times its row, and unlike the photos and
    /// observations a `select` removes, every one is written, so their tables are cut eight times
    /// finer. At 10M observations (240,000 taxa, 500,000 observers) their ranges at 4 MiB were
    /// parts of 16 MiB each, and ingest peaked at 165 MB.
    static func rangeBytes(of table: OpenDataTable, tableRangeBytes: Int) -> Int {
        switch table {
        case .taxa, .observers: max(1, tableRangeBytes / 8)
        case .observations, .photos: tableRangeBytes
        }
    }

    /// - Parameter maxDocumentBytes: ingest's limit of one document (and line), which the
    ///   format's look-ahead is bounded by as when ingest reads the file (`InputFormat.detect`).
    static func plan(
        inputs: [String], shards: Int, sharded: Bool, rangeBytes: Int, tableRangeBytes: Int = tableRangeBytes,
        maxDocumentBytes: Int = 256 << 20
    ) throws -> [IngestUnit] {
        var units: [IngestUnit] = []
        let parser = JSONParser()
        for (file, path) in inputs.enumerated() {
            let size = path == StandardInput.argument ? nil : FileSystem.size(path)
            var kind: Splittable? = nil
            if let size, size > 0, size > tableRangeBytes || (sharded && (inputs.count < shards || size > rangeBytes)) {
                kind = try splittable(path, parser: parser, maxDocumentBytes: maxDocumentBytes)
            }
            var ranges = 1
            if let size, let kind {
                if sharded {
                    if inputs.count < shards { ranges = shards }
                    if size > rangeBytes { ranges = max(ranges, (size + rangeBytes - 1) / max(1, rangeBytes)) }
                }
                if case .table(let header) = kind {
                    let cut = Self.rangeBytes(of: header.table, tableRangeBytes: tableRangeBytes)
                    if size > cut { ranges = max(ranges, (size + cut - 1) / max(1, cut)) }
                }
            }
            if ranges > 1, let size {
                for (part, range) in ByteRangeLines.cuts(size: size, count: ranges).enumerated() {
                    var header: OpenDataTable.Header? = nil
                    if case .table(let table) = kind { header = table }
                    units.append(IngestUnit(file: file, range: range, part: part, header: header))
                }
            } else {
                units.append(IngestUnit(file: file))
            }
        }
        return units
    }

    /// What a file that can be read from any line start is.
    enum Splittable {
        case table(OpenDataTable.Header), jsonLines
    }

    /// The runs of units that make the chunks of work (and of satellite collapsing, see
    /// `Satellites`): each byte range alone, so that the ranges of a large file are read side by
    /// side, and runs of up to `filesPerChunk` whole files between them. They follow from the
    /// units alone, never from the number of workers.
    static func chunks(_ units: [IngestUnit], filesPerChunk: Int) -> [Range<Int>] {
        let size = max(1, filesPerChunk)
        var chunks: [Range<Int>] = []
        var start = 0
        while start < units.count {
            var end = start + 1
            if units[start].range == nil {
                while end < units.count && end - start < size && units[end].range == nil { end += 1 }
            }
            chunks.append(start..<end)
            start = end
        }
        return chunks
    }

    /// Whether a file's lines can be read from any line start: a plain JSON Lines file with `\n`
    /// line ends, or a plain open-data table. Anything else (gzip, a tar, a document, a foreign
    /// file) is read whole, where its errors are told as for an unsharded run.
    static func splittable(_ path: String, parser: JSONParser, maxDocumentBytes: Int = 256 << 20) throws -> Splittable? {
        let reader = LineReader(source: try RawFileSource(path: path, hashing: false), maxLineBytes: maxDocumentBytes)
        let head = try reader.peek(atLeast: 1 << 20)
        guard head.count >= 2, !(head[0] == 0x1F && head[1] == 0x8B), !FileIngest.isTar(head) else { return nil }
        // The header as ingest tells tables apart: from as much of the head as it reads.
        if let header = try? FileIngest.openDataHeader(UnsafeRawBufferPointer(rebasing: head.prefix(ForeignInput.headBytes)), path: path) {
            return .table(header)
        }
        if ForeignInput.describe(head) != nil { return nil }
        guard head.contains(0x0A) else { return nil }
        // Lines of arrays (fieldpack's own records, `["obs", …]`) are no iNaturalist shape: read
        // whole, where that is told of the file as in an unsharded run, not line by line as
        // rejections the threshold judges.
        let start = contentStart(head)
        guard start >= head.count || head[start] != UInt8(ascii: "[") else { return nil }
        return try InputFormat.detect(reader, parser: parser) == .jsonLines ? .jsonLines : nil
    }
}
