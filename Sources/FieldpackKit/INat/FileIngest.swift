/// Ingests one input file into normalized records (JSON Lines) and findings.
///
/// Not thread-safe: one per worker thread; it owns a parser and an output buffer.
final class FileIngest {
    let parser = JSONParser()
    let elementParser = JSONParser()
    var extractor = RecordExtractor()
    let maxDocumentBytes: Int
    private var fileIndex = 0

    init(maxDocumentBytes: Int) {
        self.maxDocumentBytes = maxDocumentBytes
    }

    /// Forgets a failed chunk's partial output.
    func reset() {
        extractor.out.reset()
        extractor.satellites = Satellites()
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
        var findings: [Finding] = []
        /// Records of no iNaturalist shape (`RecordShape`), and what the first one was.
        var unrecognized = 0
        var firstUnrecognized: String? = nil
    }

    /// Reads `path`, adding its records to the chunk's writer (`extractor.out`), which spills to
    /// `output` when it grows large.
    func run(path argument: String, index: Int, output: PartBuffer) throws -> Result {
        let path = argument == StandardInput.argument ? StandardInput.name : argument
        let (source, raw, gzip) = try openInput(argument)
        var result = try ingest(source, path: path, index: index, gzip: gzip, output: output)
        result.sha256 = try raw.finishDigest()
        result.bytes = raw.bytesRead
        return result
    }

    /// The records and findings of one input open as `source` (a file's bytes, or bytes in memory
    /// for the fuzz targets, `FuzzEntry`); `path` names it in findings. The caller fills in the
    /// input's size and digest.
    func ingest(_ source: ByteSource, path: String, index: Int, gzip: Bool, output: PartBuffer) throws -> Result {
        fileIndex = index
        var result = Result(path: path)
        let reader = LineReader(source: source, maxLineBytes: maxDocumentBytes)
        if let kind = ForeignInput.describe(try reader.peek(atLeast: ForeignInput.headBytes)) {
            throw FieldpackError(path: path, "not iNaturalist JSON: this looks like \(gzip ? "gzip-compressed " : "")\(kind)")
        }
        let format = try InputFormat.detect(reader, parser: parser)
        result.format = (gzip ? "gzip+" : "") + format.rawValue
        extractor.counts = RecordCounts()
        switch format {
        case .jsonLines: try ingestLines(reader, path: path, output: output, result: &result)
        case .document: try ingestDocument(reader, path: path, result: &result)
        }
        if result.accepted == 0 && result.unrecognized > 0 && result.unrecognized == result.rejected {
            throw FieldpackError(
                path: path, "valid JSON, but not an iNaturalist shape (an API page of observations, taxa or species counts, "
                    + "an observation or a taxon): \(result.firstUnrecognized ?? "no record")")
        }
        result.counts = extractor.counts
        return result
    }

    private func ingestLines(_ reader: LineReader, path: String, output: PartBuffer, result: inout Result) throws {
        while let line = try reader.next() {
            if line.bytes.allSatisfy(isJSONBlank) { continue }
            if line.unterminated, let damage = reader.damage {
                reject(&result, Finding(path: path, line: line.number, offset: line.offset,
                                        reason: "incomplete record at the end of a damaged stream (\(damage.message))"))
                continue
            }
            let value: JSONValue
            do {
                value = try parser.parseQuotingNonFinite(line.number == 1 ? withoutByteOrderMark(line.bytes) : line.bytes)
            } catch {
                let message = (error as? JSONSyntaxError)?.message ?? "\(error)"
                let reason = line.unterminated
                    ? "incomplete record at the end of the file: \(message)" : "not valid JSON: \(message)"
                reject(&result, Finding(path: path, line: line.number, offset: line.offset, reason: reason))
                continue
            }
            accept(value, source: "\(fileIndex):\(line.number)", result: &result) { reason in
                Finding(path: path, line: line.number, offset: line.offset, reason: reason)
            }
            if extractor.out.count > PartBuffer.limit { try output.spill(&extractor.out) }
            if extractor.satellites.isFull { extractor.flushSatellites() }
        }
        if let damage = reader.damage {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message); every complete record before it was kept"))
        }
    }

    /// A whole document (an API page, a bare array of records, or one record) is held in memory,
    /// and so are its records.
    private func ingestDocument(_ reader: LineReader, path: String, result: inout Result) throws {
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = withoutByteOrderMark(try reader.rest(limit: maxDocumentBytes))
        } catch let error as FieldpackError {
            throw FieldpackError(path: path, error.message)
        }
        if bytes.allSatisfy(isJSONBlank) {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is empty"))
            return
        }
        let root: JSONValue
        do {
            root = try parser.parseQuotingNonFinite(bytes)
        } catch {
            salvage(bytes, path: path, syntax: (error as? JSONSyntaxError)?.message ?? "\(error)", result: &result)
            if let damage = reader.damage {
                note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message)"))
            }
            return
        }
        // The records: an envelope's `results`, a bare array's elements (Rails-era dumps), or the
        // document itself (one observation or taxon).
        let records: JSONValue
        let array: DocumentArray
        if root.isObject, let results = root["results"] {
            guard results.isArray else {
                reject(&result, Finding(path: path, line: 1, reason: "results is \(RecordError.describe(results.kind)), expected an array"))
                return
            }
            records = results
            array = .results
        } else if root.isArray {
            records = root
            array = .root
        } else if root.isObject {
            accept(root, source: "\(fileIndex)#", result: &result) { reason in Finding(path: path, line: 1, offset: 0, reason: reason) }
            return
        } else {
            throw FieldpackError(path: path, "valid JSON, but not an iNaturalist shape: the document is \(RecordError.describe(root.kind))")
        }
        var scan: JSONScanner.ArrayScan? = nil
        func location(_ index: Int) -> (line: Int?, offset: Int?) {
            if scan == nil { scan = JSONScanner.scanArray(named: array.key, in: bytes) }
            guard let scan, index < scan.elements.count else { return (nil, nil) }
            let start = scan.elements[index].lowerBound
            return (JSONScanner.lineAndColumn(of: start, in: bytes).line, start)
        }
        for (index, element) in records.elements.enumerated() {
            accept(element, source: "\(fileIndex)#\(index)", result: &result) { reason in
                let (line, offset) = location(index)
                return Finding(path: path, line: line, offset: offset, record: array.label(index), reason: reason)
            }
        }
        if let damage = reader.damage {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message)"))
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
    private func salvage(_ bytes: UnsafeRawBufferPointer, path: String, syntax: String, result: inout Result) {
        let array = DocumentArray.of(bytes)
        let scan = JSONScanner.scanArray(named: array.key, in: bytes)
        for (index, range) in scan.elements.enumerated() {
            let element = UnsafeRawBufferPointer(rebasing: bytes[range])
            let line = JSONScanner.lineAndColumn(of: range.lowerBound, in: bytes).line
            guard let value = try? elementParser.parseQuotingNonFinite(element) else {
                reject(&result, Finding(path: path, line: line, offset: range.lowerBound, record: array.label(index),
                                        reason: "not valid JSON"))
                continue
            }
            accept(value, source: "\(fileIndex)#\(index)", result: &result) { reason in
                Finding(path: path, line: line, offset: range.lowerBound, record: array.label(index), reason: reason)
            }
        }
        let damageOffset = scan.partialStart ?? scan.elements.last?.upperBound ?? (scan.arrayStart ?? 0)
        let line = JSONScanner.lineAndColumn(of: damageOffset, in: bytes).line
        let what = scan.closed ? "the document is malformed after its \(array == .results ? "results array" : "array")"
            : "the document is truncated or corrupt after \(array.label(scan.elements.count - 1))"
        reject(&result, Finding(
            path: path, line: line, offset: damageOffset, record: array.label(scan.elements.count),
            reason: "\(what) (\(syntax)); kept the \(scan.elements.count) complete record(s) before it"))
    }

    private func accept(
        _ value: JSONValue, source: String, result: inout Result, finding: (String) -> Finding
    ) {
        let mark = extractor.out.count
        let counts = extractor.counts
        let shape = RecordShape.of(value)
        if shape == nil {
            result.unrecognized += 1
            if result.firstUnrecognized == nil { result.firstUnrecognized = RecordShape.describe(value) }
        }
        do {
            try extractor.extract(value, shape: shape, source: source)
            extractor.satellites.commit()
            result.accepted += 1
            for part in extractor.dropped {
                var salvaged = finding(part.reason)
                salvaged.field = part.field
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

    private func reject(_ result: inout Result, _ finding: Finding) {
        var finding = finding
        finding.outcome = .rejected
        note(&result, finding)
    }

    /// Keeps a finding and counts it by its outcome.
    private func note(_ result: inout Result, _ finding: Finding) {
        switch finding.outcome {
        case .rejected: result.rejected += 1
        case .salvaged: result.salvaged += 1
        case .notice: break
        }
        result.findings.append(finding)
    }
}
