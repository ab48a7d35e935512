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
    }

    /// Reads `path`, adding its records to the chunk's writer (`extractor.out`), which spills to
    /// `output` when it grows large.
    func run(path: String, index: Int, output: PartBuffer) throws -> Result {
        fileIndex = index
        var result = Result(path: path)
        let (source, raw, gzip) = try openInput(path)
        let reader = LineReader(source: source, maxLineBytes: maxDocumentBytes)
        let format = try InputFormat.detect(reader, parser: parser)
        result.format = (gzip ? "gzip+" : "") + format.rawValue
        extractor.counts = RecordCounts()
        switch format {
        case .jsonLines: try ingestLines(reader, path: path, output: output, result: &result)
        case .document: try ingestDocument(reader, path: path, result: &result)
        }
        result.counts = extractor.counts
        result.sha256 = try raw.finishDigest()
        result.bytes = raw.bytesRead
        return result
    }

    private func ingestLines(_ reader: LineReader, path: String, output: PartBuffer, result: inout Result) throws {
        while let line = try reader.next() {
            if line.bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if line.unterminated, let damage = reader.damage {
                reject(&result, Finding(path: path, line: line.number, offset: line.offset,
                                        reason: "incomplete record at the end of a damaged stream (\(damage.message))"))
                continue
            }
            let value: JSONValue
            do {
                value = try parser.parseQuotingNonFinite(line.bytes)
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

    /// A whole document (an API page or one record) is held in memory, and so are its records.
    private func ingestDocument(_ reader: LineReader, path: String, result: inout Result) throws {
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = try reader.rest(limit: maxDocumentBytes)
        } catch let error as FieldpackError {
            throw FieldpackError(path: path, error.message)
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is empty"))
            return
        }
        var scan: JSONScanner.ArrayScan? = nil
        func location(_ index: Int) -> (line: Int?, offset: Int?) {
            if scan == nil { scan = JSONScanner.scanArray(named: "results", in: bytes) }
            guard let scan, index < scan.elements.count else { return (nil, nil) }
            let start = scan.elements[index].lowerBound
            return (JSONScanner.lineAndColumn(of: start, in: bytes).line, start)
        }
        do {
            let root = try parser.parseQuotingNonFinite(bytes)
            if let results = root["results"], root.isObject {
                guard results.isArray else {
                    reject(&result, Finding(path: path, line: 1, reason: "results is \(RecordError.describe(results.kind)), expected an array"))
                    return
                }
                for (index, element) in results.elements.enumerated() {
                    accept(element, source: "\(fileIndex)#\(index)", result: &result) { reason in
                        let (line, offset) = location(index)
                        return Finding(path: path, line: line, offset: offset, record: "results[\(index)]", reason: reason)
                    }
                }
            } else {
                accept(root, source: "\(fileIndex)#", result: &result) { reason in Finding(path: path, line: 1, offset: 0, reason: reason) }
            }
        } catch {
            salvage(bytes, path: path, syntax: (error as? JSONSyntaxError)?.message ?? "\(error)", result: &result)
        }
        if let damage = reader.damage {
            note(&result, Finding(path: path, outcome: .notice, reason: "input is damaged: \(damage.message)"))
        }
    }

    /// A page that does not parse: keep every complete element of `results` before the damage.
    private func salvage(_ bytes: UnsafeRawBufferPointer, path: String, syntax: String, result: inout Result) {
        let scan = JSONScanner.scanArray(named: "results", in: bytes)
        for (index, range) in scan.elements.enumerated() {
            let element = UnsafeRawBufferPointer(rebasing: bytes[range])
            let line = JSONScanner.lineAndColumn(of: range.lowerBound, in: bytes).line
            guard let value = try? elementParser.parseQuotingNonFinite(element) else {
                reject(&result, Finding(path: path, line: line, offset: range.lowerBound, record: "results[\(index)]",
                                        reason: "not valid JSON"))
                continue
            }
            accept(value, source: "\(fileIndex)#\(index)", result: &result) { reason in
                Finding(path: path, line: line, offset: range.lowerBound, record: "results[\(index)]", reason: reason)
            }
        }
        let damageOffset = scan.partialStart ?? scan.elements.last?.upperBound ?? (scan.arrayStart ?? 0)
        let line = JSONScanner.lineAndColumn(of: damageOffset, in: bytes).line
        let what = scan.closed ? "the document is malformed after its results array"
            : "the document is truncated or corrupt after results[\(scan.elements.count - 1)]"
        reject(&result, Finding(
            path: path, line: line, offset: damageOffset, record: "results[\(scan.elements.count)]",
            reason: "\(what) (\(syntax)); kept the \(scan.elements.count) complete record(s) before it"))
    }

    private func accept(
        _ value: JSONValue, source: String, result: inout Result, finding: (String) -> Finding
    ) {
        let mark = extractor.out.count
        let counts = extractor.counts
        do {
            try extractor.extract(value, source: source)
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
