/// Ingests one input file into normalized records (JSON Lines) and findings.
///
/// Not thread-safe: one per worker thread; it owns a parser and an output buffer.
final class FileIngest {
    let parser = JSONParser()
    let elementParser = JSONParser()
    /// Written for every record: one worker uses this object, one call at a time, so the
    /// runtime's exclusivity checks (1.5% of ingest's samples on the export) are skipped.
    @exclusivity(unchecked) var extractor = RecordExtractor()
    let maxDocumentBytes: Int
    /// The date of loose open-data tables (Unix ms), when their names do not say it.
    let openDataDate: Int64?
    private var fileIndex = 0
    /// Records read (accepted or rejected), handed to the stage's progress in batches.
    var tally: ProgressTally
    /// The input's index, which starts its records' sources.
    var fileIndexForRecords: Int { fileIndex }
    /// The chunk's rejects-file lines (see `Finding.encodeRejectsLine`), spilled like the records.
    var rejects = JSONWriter()
    /// Where `rejects` spills once it holds `rejectsSpill` bytes (the chunk's rejects part).
    var rejectsPart: PartBuffer? = nil
    static let rejectsSpill = 1 << 20
    /// Rejected records in one file past which the run's reject rate cannot end under its limit
    /// (see `INatIngest.rejectLimit`); nil: no limit.
    var rejectLimit: Int? = nil
    /// Why every record read now is rejected (its gzip member failed its check), if it is.
    private var distrust: String? = nil
    /// The byte that ends the lines of the file being read (`LineReader.lineEnd`), for the
    /// lines findings name inside a document.
    private var lineEnd: UInt8 = 0x0A
    /// The export links the selection's rules prune (nil: none are).
    var linkPruning: ExportLinkPruning? = nil

    /// Findings each file keeps in memory (the first ones); all of them go to the rejects file.
    static let sampleLimit = 1000

    /// The buffer every file is read into, one after another (see `readBuffer()`).
    private var readStorage = PaddedBuffer(capacity: LineReader.defaultChunkSize)
    /// A read buffer grown past this for a large document is not kept for the next file.
    static let keptReadBufferBytes = 8 << 20

    /// The worker's read buffer, for the next file's reader. Allocating a 1 MiB buffer per file
    /// cost a fault per page of it for every file, and with glibc's default heap the freed
    /// blocks fragmented it, so the heap grew with the number of files (938 MB on 50,500 pages).
    func readBuffer() -> PaddedBuffer {
        if readStorage.capacity > Self.keptReadBufferBytes { readStorage = PaddedBuffer(capacity: LineReader.defaultChunkSize) }
        return readStorage
    }

    init(maxDocumentBytes: Int, openDataDate: Int64? = nil, progress: StageProgress = .silent()) {
        self.maxDocumentBytes = maxDocumentBytes
        self.openDataDate = openDataDate
        tally = ProgressTally(progress)
    }

    /// Forgets a failed chunk's partial output.
    func reset() {
        extractor.out.reset()
        extractor.satellites = Satellites()
        rejects.reset()
    }

    /// A gzip member of the input whose CRC-32 or length check failed, found only after its
    /// records were read: the chunk is read again with that member's records rejected.
    struct FailedMembers: Error {
        var index: Int
        var members: [Range<Int>]
        var reason: String
    }

    struct Result: Sendable {
        var path: String
        var bytes = 0
        var sha256 = ""
        var format = ""
        var accepted = 0
        var rejected = 0
        /// Parts dropped from kept records.
        var salvaged = 0
        var counts = RecordCounts()
        /// The first `sampleLimit` findings (all are in the rejects file), and how many there were.
        var findings: [Finding] = []
        var findingCount = 0
        /// The line (or record) at which reading stopped because the rejects could no longer
        /// stay under the limit, if it did.
        var stoppedAt: String? = nil
        /// Records of no iNaturalist shape (`RecordShape`), and what the first one was.
        var unrecognized = 0
        var firstUnrecognized: String? = nil
        /// The file is a page whose records array is empty (an API page past the last): a page of
        /// no records, not a rejected file.
        var emptyPage = false
        /// The bytes of rejects-file lines this file (or byte range) wrote, for merging a sharded
        /// run's rejects in input order.
        var rejectsBytes = 0
        /// An export table read under `linkPruning`: the digest of its rules; how many photo
        /// links were not written, and how many rows were only counted (`ExportLinkPruning.Singles`,
        /// `ExportParents`).
        var prunedBy: String? = nil
        var prunedLinks = 0
        var leftOutRows = 0
    }

    /// Reads `path`, adding its records to the chunk's writer (`extractor.out`), which spills to
    /// `output` when it grows large.
    ///
    /// - Parameter failed: gzip members of this file known to fail their check (a second read).
    /// - Throws: `FailedMembers` when a gzip member's check fails that was not known.
    /// How the error of an input that is not iNaturalist's starts (`ForeignInput`).
    static let foreign = "not iNaturalist JSON: this looks like "

    /// What an input looks like when `ingest` refuses it as not iNaturalist's, as its error says
    /// it (`gzip-compressed plain text`); nil for one it reads, or one it cannot open. For the
    /// error of a run that stopped on one: the others are named with it, so that a folder with
    /// four stray files takes one run to mend, not four.
    static func foreignKind(_ path: String) -> String? {
        guard path != StandardInput.argument, let (source, _, gzip) = try? openInput(path, hashing: false) else { return nil }
        let reader = LineReader(source: source)
        guard let head = try? reader.peek(atLeast: ForeignInput.headBytes), reader.damage == nil else { return nil }
        if isTar(head) || OpenDataTable.unreadExportTable(head) != nil { return nil }
        if (try? openDataHeader(head, path: path)) != nil { return nil }
        return ForeignInput.describe(head).map { (gzip ? "gzip-compressed " : "") + $0 }
    }

    func run(path argument: String, index: Int, output: PartBuffer, failed: FailedMembers? = nil) throws -> Result {
        let path = argument == StandardInput.argument ? StandardInput.name : argument
        let (source, raw, gzip) = try openInput(argument, progress: tally.progress)
        // A large gzip input is inflated on a thread of its own, beside the parsing; the raw file
        // (its digest, its count of bytes) is read only once that thread has stopped.
        let readAhead = ReadAheadSource.reading(source, gzip: gzip, path: argument)
        var result = try ingest(
            readAhead ?? source, path: path, index: index, gzip: gzip, output: output, failed: failed,
            rereadable: argument != StandardInput.argument,
            rawBytes: {
                readAhead?.stop()
                return raw.bytesRead
            })
        readAhead?.stop()
        result.sha256 = try raw.finishDigest()
        result.bytes = raw.bytesRead
        return result
    }

    /// Reads the lines of `path` whose first byte lies in `range` (a sharded run's byte range of a
    /// plain JSON Lines file or open-data table, see `IngestUnits`), numbered as in the whole
    /// file. The first range also hashes the whole file, for its `input` record; the others
    /// leave size and digest empty. The checks of a whole file (one that yields nothing, one of
    /// no iNaturalist shape) are not made per range: the reject threshold judges the ranges.
    ///
    /// - Parameters:
    ///   - header: the table's header, read when the units were planned (`IngestUnit`); nil for
    ///     a JSON Lines file. (A 64 KiB head reader per range, 770 ranges at 10M export
    ///     observations, fragmented the heap: in about one run of four, ingest's peak went from
    ///     35 to 73–87 MB.)
    ///   - hashing: whether the first range hashes the whole file here (false: its caller does,
    ///     once the range's part is handed in; `INatIngest.run`).
    func runRange(
        path: String, index: Int, range: Range<Int>, header: OpenDataTable.Header?, output: PartBuffer, hashing: Bool = true
    ) throws -> Result {
        fileIndex = index
        extractor.satellites.reading(index, path: path)
        var result = Result(path: path)
        extractor.counts = RecordCounts()
        distrust = nil
        lineEnd = 0x0A
        // An export table's unit starts where the plan's counts say, if they do.
        let unit = ExportRowFates.Unit(file: index, range: range)
        let start = header == nil ? nil : try linkPruning?.fates?.start(of: unit, path: path)
        let reader = try ByteRangeLines.reader(
            path: path, range: range, buffer: readBuffer(), maxLineBytes: maxDocumentBytes, start: start)
        if let header {
            result.format = header.table.format
            try ingestOpenDataTable(
                reader, header: header, path: path, source: "\(fileIndex):", date: OpenDataDate.of(path), output: output,
                result: &result, first: range.lowerBound == 0, unit: unit)
        } else {
            result.format = InputFormat.jsonLines.rawValue
            try ingestLines(reader, path: path, output: output, failed: nil, result: &result)
        }
        tally.progress.add(bytes: range.count)
        if range.lowerBound == 0 && hashing {
            (result.sha256, result.bytes) = try SHA256.hex(ofFile: path)
        }
        return finish(result)
    }

    /// The records and findings of one input open as `source` (a file's bytes, or bytes in
    /// memory for the fuzz targets, `FuzzEntry`); `path` names it in findings. The caller fills
    /// in the input's size and digest.
    ///
    /// - Parameters:
    ///   - rereadable: whether the input can be read again (not standard input), to reject a
    ///     failed gzip member's records.
    ///   - rawBytes: the input's raw bytes read so far (0 at the end: an empty file).
    func ingest(
        _ source: ByteSource, path: String, index: Int, gzip: Bool, output: PartBuffer, failed: FailedMembers? = nil,
        rereadable: Bool = true, rawBytes: () -> Int = { 1 }
    ) throws -> Result {
        fileIndex = index
        extractor.satellites.reading(index, path: path)
        var result = Result(path: path)
        let reader = LineReader(source: source, buffer: readBuffer(), maxLineBytes: maxDocumentBytes)
        let head = try reader.peek(atLeast: ForeignInput.headBytes)
        extractor.counts = RecordCounts()
        distrust = nil
        lineEnd = 0x0A
        // The open-data export: its tar archive, or one of its tables (by the header line).
        if Self.isTar(head) {
            result.format = (gzip ? "gzip+" : "") + OpenDataTable.archiveFormat
            try ingestOpenDataArchive(reader, path: path, output: output, result: &result)
            return finish(result)
        }
        // Damage before the first line ends (a table's or the archive's gzip cut or corrupt in
        // its first bytes): what the file is cannot be told from what came out, so it is
        // refused, never read as another kind of file or as a file that holds nothing (a
        // table's .gz cut before its header was one rejection, and the guide shipped without
        // the table). A JSON input (by its head, or by its name) keeps its rule: a damaged page
        // is a rejected file, which counts against the threshold.
        // (A member whose check failed in the head is damage too: its bytes are not the file's.)
        let headDamage = reader.damage ?? reader.failedMembers.first
        if let damage = headDamage, Self.headIsUntellable(head), !Self.isNamedLikeJSON(path) { throw Self.damagedHead(damage, path: path) }
        let header: OpenDataTable.Header?
        do {
            header = try Self.openDataHeader(head, path: path)
        } catch let error as FieldpackError {
            if let damage = headDamage { throw Self.damagedHead(damage, path: path) }
            throw error
        }
        if let header {
            result.format = (gzip ? "gzip+" : "") + header.table.format
            try ingestOpenDataTable(
                reader, header: header, path: path, source: "\(fileIndex):", date: OpenDataDate.of(path), output: output,
                result: &result, unit: ExportRowFates.Unit(file: index, range: nil))
            try Self.refuseFailedMembers(reader.failedMembers.first?.message, path: path)
            return finish(result)
        }
        if let table = OpenDataTable.unreadExportTable(head) {
            result.format = (gzip ? "gzip+" : "") + "open-data-" + table.replacingOccurrences(of: "_", with: "-")
            note(&result, Finding(path: path, outcome: .notice, reason: "the export's \(table) table, which fieldpack does not read: skipped"))
            return finish(result)
        }
        if let kind = ForeignInput.describe(head) {
            if let damage = headDamage { throw Self.damagedHead(damage, path: path) }
            throw FieldpackError(path: path, "\(Self.foreign)\(gzip ? "gzip-compressed " : "")\(kind)")
        }
        try reader.detectLineEnd()
        lineEnd = reader.lineEnd
        let format = try InputFormat.detect(reader, parser: parser)
        result.format = (gzip ? "gzip+" : "") + format.rawValue
        switch format {
        case .jsonLines: try ingestLines(reader, path: path, output: output, failed: failed, result: &result)
        case .document: try ingestDocument(reader, path: path, result: &result)
        }
        distrust = nil
        let known = failed?.members ?? []
        if format == .jsonLines, let new = reader.failedMembers.first(where: { !known.contains($0.failedMember!) }) {
            if !rereadable {
                throw FieldpackError(path: path, "\(new.message); standard input cannot be read again to reject that member's records")
            }
            throw FailedMembers(index: index, members: reader.failedMembers.map { $0.failedMember! }, reason: new.message)
        }
        // A file that yields nothing is a rejected file: it counts against the threshold.
        if result.accepted == 0 && result.rejected == 0 && result.stoppedAt == nil {
            if let damage = reader.damage {
                reject(&result, Finding(path: path, reason: "no record could be read: \(damage.message)"))
            } else if rawBytes() == 0 {
                reject(&result, Finding(path: path, reason: "the file is empty (0 bytes)"))
            } else if result.emptyPage == false {
                reject(&result, Finding(path: path, reason: "the file holds no records (only blank text)"))
            }
        }
        if result.accepted == 0 && result.unrecognized > 0 && result.unrecognized == result.rejected {
            throw FieldpackError(
                path: path, "valid JSON, but not an iNaturalist shape (an API page of observations, taxa or species counts, "
                    + "an observation or a taxon): \(result.firstUnrecognized ?? "no record")")
        }
        return finish(result)
    }

    /// Whether the bytes a damaged stream gave before its damage tell nothing: no line ends in
    /// them, and they do not start as JSON does.
    static func headIsUntellable(_ head: UnsafeRawBufferPointer) -> Bool {
        guard !head.isEmpty else { return true }
        if head.contains(0x0A) { return false }
        let first = head.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        return first != UInt8(ascii: "{") && first != UInt8(ascii: "[")
    }

    /// Whether a file's name (without `.gz`) is a JSON input's: `.json`, `.jsonl`, `.ndjson`.
    static func isNamedLikeJSON(_ path: String) -> Bool {
        var name = Substring(path.split(separator: "/").last ?? "").lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        return [".json", ".jsonl", ".ndjson"].contains { name.hasSuffix($0) }
    }

    /// The error of an input damaged before what it holds could be told.
    static func damagedHead(_ damage: StreamDamage, path: String) -> FieldpackError {
        FieldpackError(
            path: path,
            "damaged (\(damage.message)) within its first bytes, before what it holds could be told: what came out before "
                + "the damage is not taken for another kind of file, nor for one that holds nothing; refused; download it again")
    }

    private func finish(_ result: Result) -> Result {
        var result = result
        result.counts = extractor.counts
        return result
    }

    private func ingestLines(
        _ reader: LineReader, path: String, output: PartBuffer, failed: FailedMembers?, result: inout Result
    ) throws {
        while let line = try reader.next() {
            if line.bytes.allSatisfy(isJSONBlank) { continue }
            if let failed {
                // A line that runs into a failed member from a good one is damaged as well.
                let span = line.offset..<(line.offset + line.bytes.count + 1)
                distrust = failed.members.contains { $0.overlaps(span) } ? "\(failed.reason): its records are rejected" : nil
            }
            if line.unterminated, let damage = reader.damage {
                reject(&result, Finding(path: path, line: line.number, offset: line.offset,
                                        reason: "incomplete record at the end of a damaged stream (\(damage.message))"))
                continue
            }
            let value: JSONValue
            let repaired: Bool
            let bytes = line.number == 1 ? withoutByteOrderMark(line.bytes) : line.bytes
            // Where `bytes` start in the file, for a line that is a whole API page.
            let page = (line: line.number - 1, offset: line.offset + (line.bytes.count - bytes.count))
            do {
                (value, repaired) = try parser.parseRepairingText(bytes)
            } catch {
                // In a gzip member that failed its check, a line that does not parse was damaged
                // by it: the member's reason, not the parser's (or a page's salvage) is why.
                if let distrust {
                    rejectDistrusted(bytes, reason: distrust, line: line.number, offset: line.offset, path: path, result: &result)
                    if try endsAfter(line: line.number, path: path, output: output, result: &result) { return }
                    continue
                }
                let message = (error as? JSONSyntaxError)?.message ?? "\(error)"
                // A line that is a whole API page keeps its complete records, as a page in a file
                // of its own does (one rejection stood for every record of the page).
                if bytes.first == UInt8(ascii: "{"), JSONScanner.scanArray(named: "results", in: bytes).arrayStart != nil {
                    salvage(bytes, path: path, syntax: message, at: page, source: "\(fileIndex):\(line.number)#", result: &result)
                    if result.stoppedAt != nil { return }
                    if try endsAfter(line: line.number, path: path, output: output, result: &result) { return }
                    continue
                }
                let reason = line.unterminated
                    ? "incomplete record at the end of the file: \(message)" : "not valid JSON: \(message)"
                reject(&result, Finding(path: path, line: line.number, offset: line.offset, reason: reason))
                // Through the spill and the threshold like every line: a file of lines that are
                // not JSON stops at the threshold, its rejects spilled a MiB at a time.
                if try endsAfter(line: line.number, path: path, output: output, result: &result) { return }
                continue
            }
            if value.isObject, value["results"] != nil {
                // A line that is a whole API page (pages saved one per line): its records are read
                // as a page file's are, named by the line and their place in the page.
                if repaired {
                    note(&result, Finding(path: path, line: line.number, offset: line.offset, outcome: .salvaged, reason: TextRepair.reason))
                }
                guard try ingestRecords(of: value, bytes: bytes, at: page, source: "\(fileIndex):\(line.number)#", path: path, result: &result)
                else { return }
            } else {
                accept(value, source: "\(fileIndex):\(line.number)", result: &result, repairedText: repaired) { reason in
                    Finding(path: path, line: line.number, offset: line.offset, reason: reason)
                }
            }
            if try endsAfter(line: line.number, path: path, output: output, result: &result) { return }
        }
        if let damage = reader.damage, result.accepted + result.rejected > 0 {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message); every complete record before it was kept"))
        }
    }

    /// After a line of JSON Lines: spills the records and rejects held past their limits, and
    /// tells whether the reject threshold stops the file there.
    private func endsAfter(line: Int, path: String, output: PartBuffer, result: inout Result) throws -> Bool {
        if extractor.out.count > PartBuffer.limit { try output.spill(&extractor.out) }
        if extractor.satellites.isFull { extractor.flushSatellites() }
        if rejects.count > Self.rejectsSpill, let rejectsPart { try rejectsPart.spill(&rejects) }
        return stopsOverLimit(&result, at: "line \(line)", path: path)
    }

    /// A whole document (an API page, a bare array of records, or one record) is held in memory,
    /// and so are its records.
    private func ingestDocument(_ reader: LineReader, path: String, result: inout Result) throws {
        let bytes: UnsafeRawBufferPointer
        // The bytes before `bytes` in the stream (a byte order mark): the document is read from
        // its start, so its offsets are the inflated stream's, less these.
        var skipped = 0
        do {
            let whole = try reader.rest(limit: maxDocumentBytes)
            bytes = withoutByteOrderMark(whole)
            skipped = whole.count - bytes.count
        } catch let error as FieldpackError where error.path == nil {
            throw FieldpackError(path: path, error.message)
        }
        if let failed = reader.failedMembers.first {
            distrust = "\(failed.message): its records are rejected"
        }
        // Blank or empty: `run` rejects the file (a damaged stream says why).
        if bytes.allSatisfy(isJSONBlank) { return }
        let root: JSONValue
        do {
            let repaired: Bool
            (root, repaired) = try parser.parseRepairingText(bytes)
            // Which record held the text is not known here: the finding names the file.
            if repaired { note(&result, Finding(path: path, outcome: .salvaged, reason: TextRepair.reason)) }
        } catch {
            // A gzip member that failed its check, and held the whole document, damaged its text
            // (lines of records inflated to garbage read as one document): that is the reason,
            // not a parse error per line. Pages in several members go on below, each read.
            if let distrust, reader.failedMembers.contains(where: { $0.failedMember.map { $0.lowerBound == 0 && $0.upperBound >= bytes.count } ?? false }) {
                rejectDistrusted(bytes, reason: distrust, line: nil, offset: nil, path: path, result: &result)
                return
            }
            // Pages written one after another (`cat page-1.json page-2.json > pages.json`): each
            // a document of its own, where the one parse saw text after the first page's end
            // and kept only that page.
            if let parts = JSONScanner.topLevelValues(in: bytes), parts.count > 1 {
                var locator = LineLocator(bytes, lineEnd: lineEnd)
                // Each page is distrusted only if a failed member holds some of it: a page in a
                // good member keeps its records (one failed member lost every page's).
                let failed = reader.failedMembers.compactMap(\.failedMember)
                let reason = distrust
                for (number, part) in parts.enumerated() {
                    if let reason {
                        let span = (part.lowerBound + skipped)..<(part.upperBound + skipped)
                        distrust = failed.contains { $0.overlaps(span) } ? reason : nil
                    }
                    let partBytes = UnsafeRawBufferPointer(rebasing: bytes[part])
                    let lineBase = locator.line(of: part.lowerBound) - 1
                    let value: JSONValue
                    let repaired: Bool
                    do {
                        (value, repaired) = try parser.parseRepairingText(partBytes)
                    } catch {
                        // That page keeps its complete records, as a page file does.
                        salvage(partBytes, path: path, syntax: (error as? JSONSyntaxError)?.message ?? "\(error)",
                                at: (lineBase, part.lowerBound), source: "\(fileIndex)#\(number + 1)/", result: &result)
                        if result.stoppedAt != nil { return }
                        continue
                    }
                    if repaired {
                        note(&result, Finding(path: path, line: lineBase + 1, offset: part.lowerBound, outcome: .salvaged, reason: TextRepair.reason))
                    }
                    guard try ingestRecords(of: value, bytes: partBytes, at: (line: lineBase, offset: part.lowerBound),
                                            source: "\(fileIndex)#\(number + 1)/", path: path, result: &result) else { return }
                }
            } else {
                salvage(bytes, path: path, syntax: (error as? JSONSyntaxError)?.message ?? "\(error)", result: &result)
            }
            if let damage = reader.damage {
                note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message)"))
            }
            return
        }
        guard try ingestRecords(of: root, bytes: bytes, at: (0, 0), source: "\(fileIndex)#", path: path, result: &result) else { return }
        if let damage = reader.damage {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message)"))
        }
    }

    /// The records of one parsed document (`root`, parsed from `bytes`, which start at line
    /// `place.line + 1` and byte `place.offset` of the file): an envelope's `results`, a bare
    /// array's elements (Rails-era dumps), or the document itself (one observation or taxon).
    /// Each is named by `source` and its index.
    ///
    /// - Returns: false when reading stopped over the reject limit.
    private func ingestRecords(
        of root: JSONValue, bytes: UnsafeRawBufferPointer, at place: (line: Int, offset: Int), source: String, path: String,
        result: inout Result
    ) throws -> Bool {
        let records: JSONValue
        let array: DocumentArray
        if root.isObject, let results = root["results"] {
            // The first list was read and the other dropped, records and all, without a word.
            let lists = root.members.count { $0.key.string == "results" }
            guard lists == 1 else {
                reject(&result, Finding(
                    path: path, line: place.line + 1,
                    reason: "the page gives \"results\" \(lists) times: which list holds its records would be a guess"))
                return true
            }
            guard results.isArray else {
                reject(&result, Finding(path: path, line: place.line + 1, reason: "results is \(RecordError.describe(results.kind)), expected an array"))
                return true
            }
            records = results
            array = .results
        } else if root.isArray {
            records = root
            array = .root
        } else if root.isObject {
            accept(root, source: source, result: &result) { reason in Finding(path: path, line: place.line + 1, offset: place.offset, reason: reason) }
            return true
        } else {
            throw FieldpackError(path: path, "valid JSON, but not an iNaturalist shape: the document is \(RecordError.describe(root.kind))")
        }
        // Where a record with a finding starts: from the structural positions of the parse just
        // made, read only as far as that record (`ElementStartScan`), or, when the parser read a
        // quoted copy (`parseQuotingNonFinite`), by scanning the page's bytes once.
        var scan = JSONScanner.ElementStartScan(named: array.key)
        var scannedStarts: [Int]? = nil
        var locator = LineLocator(bytes, lineEnd: lineEnd)
        func location(_ index: Int) -> (line: Int?, offset: Int?) {
            if scannedStarts == nil {
                if let structurals = parser.structurals(of: bytes) {
                    scan.advance(through: index, in: bytes, structurals: structurals)
                } else {
                    scannedStarts = JSONScanner.scanArray(named: array.key, in: bytes).elements.map(\.lowerBound)
                }
            }
            let starts = scannedStarts ?? scan.starts
            guard index < starts.count else { return (nil, nil) }
            return (place.line + locator.line(of: starts[index]), place.offset + starts[index])
        }
        var any = false
        for (index, element) in records.elements.enumerated() {
            any = true
            accept(element, source: "\(source)\(index)", result: &result) { reason in
                let (line, offset) = location(index)
                return Finding(path: path, line: line, offset: offset, record: array.label(index), reason: reason)
            }
            if stopsOverLimit(&result, at: array.label(index), path: path) { return false }
        }
        if !any {
            result.emptyPage = true
            note(&result, Finding(path: path, line: place.line + 1, outcome: .notice, reason: "the page holds no records (an empty \(array == .results ? "results array" : "array"))"))
        }
        return true
    }

    /// Rejects, for `reason` (a failed gzip member's), the records of a page or array that the
    /// member damaged past parsing: one rejection for each element the scan finds (a cut one
    /// included), at least one, so that the damage counts against the threshold as the records
    /// it cost, as it does when the page parses and each of its records is rejected.
    private func rejectDistrusted(
        _ bytes: UnsafeRawBufferPointer, reason: String, line: Int?, offset: Int?, path: String, result: inout Result
    ) {
        let array = DocumentArray.of(bytes)
        let scan = JSONScanner.scanArray(named: array.key, in: bytes)
        let count = scan.arrayStart == nil ? 0 : scan.elements.count + (scan.partialStart == nil ? 0 : 1)
        guard count > 0 else { return reject(&result, Finding(path: path, line: line, offset: offset, reason: reason)) }
        for index in 0..<count {
            reject(&result, Finding(path: path, line: line, offset: offset, record: array.label(index), reason: reason))
        }
    }

    /// Where a document keeps its records.
    private enum DocumentArray {
        /// The envelope's `results` member.
        case results
        /// The document is the array.
        case root

        var key: String? { self == .results ? "results" : nil }

        func label(_ index: Int) -> String { self == .results ? "results[\(index)]" : "[\(index)]" }

        /// Where the records of a document that does not parse would be, from its first byte.
        static func of(_ bytes: UnsafeRawBufferPointer) -> DocumentArray {
            var index = 0
            while index < bytes.count, [0x20, 0x09, 0x0D, 0x0A].contains(bytes[index]) { index += 1 }
            return index < bytes.count && bytes[index] == UInt8(ascii: "[") ? .root : .results
        }
    }

    /// A document that does not parse: keep every complete element of its records array (`results`,
    /// or the document itself if it is an array) before the damage.
    ///
    /// - Parameters:
    ///   - place: where `bytes` start in the file (a page on one line of JSON Lines): the lines
    ///     before them and their first byte.
    ///   - source: the records' sources before their index.
    private func salvage(
        _ bytes: UnsafeRawBufferPointer, path: String, syntax: String, at place: (line: Int, offset: Int) = (0, 0),
        source: String? = nil, result: inout Result
    ) {
        let array = DocumentArray.of(bytes)
        let scan = JSONScanner.scanArray(named: array.key, in: bytes)
        var lines = LineLocator(bytes, lineEnd: lineEnd)
        func lineOf(_ offset: Int) -> Int { place.line + lines.line(of: offset) }
        let source = source ?? "\(fileIndex)#"
        let acceptedBefore = result.accepted
        var anElementFailed = false
        for (index, range) in scan.elements.enumerated() {
            let element = UnsafeRawBufferPointer(rebasing: bytes[range])
            let line = lineOf(range.lowerBound)
            let offset = place.offset + range.lowerBound
            let value: JSONValue
            let repaired: Bool
            do {
                (value, repaired) = try elementParser.parseRepairingText(element)
            } catch {
                anElementFailed = true
                reject(&result, Finding(path: path, line: line, offset: offset, record: array.label(index),
                                        reason: "not valid JSON: \((error as? JSONSyntaxError)?.message ?? "\(error)")"))
                continue
            }
            accept(value, source: "\(source)\(index)", result: &result, repairedText: repaired) { reason in
                Finding(path: path, line: line, offset: offset, record: array.label(index), reason: reason)
            }
            if stopsOverLimit(&result, at: array.label(index), path: path) { return }
        }
        // The array whole and an element refused on its own: that element was why the document
        // did not parse, and it has its finding (a second one, "malformed after its results
        // array", counted one rejection too many).
        if scan.closed && anElementFailed && scan.partialStart == nil { return }
        let damageOffset = scan.partialStart ?? scan.elements.last?.upperBound ?? (scan.arrayStart ?? 0)
        let line = lineOf(damageOffset)
        let complete = scan.elements.count
        let what: String
        if scan.closed {
            what = "the document is malformed after its \(array == .results ? "results array" : "array")"
        } else if complete == 0 {
            what = "the document is truncated or corrupt before its first record"
        } else {
            what = "the document is truncated or corrupt after \(array.label(complete - 1))"
        }
        let kept = result.accepted - acceptedBefore
        let before = complete == 0 ? "no complete record before it"
            : kept == complete ? "kept the \(complete) complete record\(complete == 1 ? "" : "s") before it"
            : "of the \(complete) complete record\(complete == 1 ? "" : "s") before it \(kept) kept, \(complete - kept) rejected"
        reject(&result, Finding(
            path: path, line: line, offset: place.offset + damageOffset, record: array.label(complete),
            reason: "\(what) (\(syntax)); \(before)"))
    }

    /// - Parameter repairedText: the record was parsed with its text repaired (`TextRepair`): a
    ///   salvaged finding says so once it is accepted.
    private func accept(
        _ value: JSONValue, source: String, result: inout Result, repairedText: Bool = false, finding: (String) -> Finding
    ) {
        if let distrust {
            reject(&result, finding(distrust))
            return
        }
        let mark = extractor.out.count
        let counts = extractor.counts
        let nulsBefore = extractor.out.replacedNULs
        let shape = RecordShape.of(value)
        tally.add(records: 1)
        if shape == nil {
            result.unrecognized += 1
            if result.firstUnrecognized == nil { result.firstUnrecognized = RecordShape.describe(value) }
        }
        do {
            try extractor.extract(value, shape: shape, source: source)
            extractor.satellites.commit()
            result.accepted += 1
            if repairedText || extractor.out.replacedNULs != nulsBefore {
                var salvaged = finding(TextRepair.reason)
                salvaged.outcome = .salvaged
                note(&result, salvaged)
            }
            for part in extractor.dropped {
                var salvaged = finding(part.reason)
                salvaged.field = part.field
                salvaged.outcome = .salvaged
                note(&result, salvaged)
            }
            for duplicate in duplicateKeys.find(in: value) {
                var salvaged = finding("\(duplicate.path) appears \(duplicate.count) times in the record: the first value is kept")
                salvaged.field = duplicate.path
                salvaged.outcome = .salvaged
                note(&result, salvaged)
            }
        } catch {
            extractor.out.truncate(to: mark)
            extractor.satellites.discard()
            extractor.counts = counts
            var rejected = finding(error.reason)
            rejected.field = error.field.isEmpty ? nil : error.field
            reject(&result, rejected)
        }
    }

    /// The duplicated keys of the record being checked, at any depth (the rule: `DuplicateKeys`).
    private var duplicateKeys = DuplicateKeys()

    func reject(_ result: inout Result, _ finding: Finding) {
        var finding = finding
        finding.outcome = .rejected
        note(&result, finding)
    }

    /// Counts a finding by its outcome and writes it to the rejects lines; the first
    /// `sampleLimit` stay in memory too.
    func note(_ result: inout Result, _ finding: Finding) {
        switch finding.outcome {
        case .rejected: result.rejected += 1
        case .salvaged: result.salvaged += 1
        case .notice: break
        }
        result.findingCount += 1
        if result.findings.count < Self.sampleLimit { result.findings.append(finding) }
        finding.encodeRejectsLine(into: &rejects)
    }

    private func overLimit(_ result: Result) -> Bool {
        guard let rejectLimit else { return false }
        return result.rejected > rejectLimit
    }

    /// Stops reading at `place` when the rejected records are over the limit (`stop`); whether
    /// it stopped.
    private func stopsOverLimit(_ result: inout Result, at place: @autoclosure () -> String, path: String) -> Bool {
        guard overLimit(result) else { return false }
        stop(&result, at: place(), path: path)
        return true
    }

    /// Stops reading a file whose rejected records alone put the run over its limit.
    private func stop(_ result: inout Result, at place: String, path: String) {
        result.stoppedAt = place
        note(&result, Finding(
            path: path, outcome: .notice,
            reason: "stopped reading at \(place): \(result.rejected) records rejected, more than the --max-reject-rate "
                + "allows even if every other record of every input were good"))
    }
}
