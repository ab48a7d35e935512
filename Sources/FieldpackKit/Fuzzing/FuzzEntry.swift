#if canImport(Glibc)
import Glibc
#endif

/// The in-memory entry points behind `FuzzTarget`: each calls the stage's own code (no copy of
/// it) on bytes in memory, with no file per input, and checks the target's invariant.
///
/// Each call builds its own readers, so an input's outcome never depends on the inputs before
/// it (a saved crash replays alone). Not thread-safe across targets sharing nothing but libxml2,
/// which the stages already make safe.
package enum FuzzEntry {
    /// The name inputs carry in findings.
    static let inputName = "fuzz-input"

    /// One iNaturalist input through `FileIngest`, as `fieldpack-inat` reads a file. Reads come
    /// in chunks of a size set by the input's length, so short reads are exercised too.
    static func ingest(_ bytes: [UInt8]) -> String? {
        let ingest = FileIngest(maxDocumentBytes: 4 << 20)
        // The part spills only past 64 MiB, far over any fuzz input: the path is never created.
        let part = PartBuffer(spillPath: "/nonexistent/fieldpack-fuzz.spill")
        let source = MemorySource(bytes, chunk: 1 + bytes.count % 4093)
        let result: FileIngest.Result
        do {
            result = try ingest.ingest(source, path: inputName, index: 0, gzip: false, output: part)
        } catch {
            return nil  // a clear error for the whole input: what the stage reports
        }
        ingest.extractor.flushSatellites()
        for finding in result.findings where finding.reason.isEmpty {
            return "a finding without a reason at line \(finding.line.map(String.init) ?? "-")"
        }
        return recordsProblem(ingest.extractor.out.bytes)
    }

    /// The open-data export's tables through ingest's pruning (`ExportLinkPruning`), against the
    /// same tables read without it, under `exportSelection`. The input holds up to four tables,
    /// each from its header line, apart by a line `%%` (`exportTables`); they are written to files
    /// (the plan reads its inputs by path, as the stage does) in a folder of this process's, and
    /// read as one run reads its inputs. What the pruning may change is what it leaves out, never
    /// what is said of a row nor what a kept observation ships with. Invariants:
    /// - every finding (a rejected row, a salvaged part) is the same, at the same line;
    /// - every observation the pruned run writes as kept (unmarked) is written the same without
    ///   pruning, with as many photo links: the plan never judges a row removed that ingest keeps,
    ///   which would drop a kept observation's photos from the bundle;
    /// - read in ingest's units (byte ranges of 64 bytes), the pruned run writes the same records
    ///   and findings whether or not the plan found each row's fate (`ExportRowFates`), which
    ///   lets ingest leave out a quiet row by its key alone.
    static func exportPruning(_ bytes: [UInt8]) -> String? {
        let tables = exportTables(bytes)
        // A folder of this call's own: two calls at once (the test runner replays saved inputs
        // beside the sample's check, in one process) wrote each other's tables.
        guard !tables.isEmpty, let parent = exportFolder,
            let folder = try? FileSystem.makeUniqueDirectory(in: parent, prefix: "input-")
        else { return nil }
        var paths: [String] = []
        defer {
            for path in paths { unlink(path) }
            rmdir(folder)
        }
        for (index, table) in tables.enumerated() {
            let path = "\(folder)/table-\(index).csv"
            paths.append(path)
            let written = table.withUnsafeBytes { bytes -> Bool in
                let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard descriptor >= 0 else { return false }
                defer { close(descriptor) }
                return (try? FileSystem.writeAll(bytes, to: descriptor, path: path)) != nil
            }
            guard written else { return nil }
        }
        let pruning: ExportLinkPruning?
        do {
            pruning = try ExportLinkPruning.plan(
                inputs: paths, selection: exportSelection, openDataDate: exportDate, scratch: folder, workers: 1)
        } catch {
            return nil  // a table that cannot be read: the stage's clear error
        }
        guard let pruning else { return nil }  // no table the rules prune
        /// The records and findings of one run over the tables (in `units`, else each whole), or
        /// nil when it stops with an error.
        func read(pruning: ExportLinkPruning?, units: [IngestUnit]? = nil) -> (records: [UInt8], findings: [Finding])? {
            let ingest = FileIngest(maxDocumentBytes: 4 << 20, openDataDate: exportDate)
            ingest.linkPruning = pruning
            let part = PartBuffer(spillPath: "/nonexistent/fieldpack-fuzz.spill")
            var findings: [Finding] = []
            for unit in units ?? paths.indices.map({ IngestUnit(file: $0) }) {
                let path = paths[unit.file]
                let result = try? unit.range.map { range in
                    try ingest.runRange(path: path, index: unit.file, range: range, header: unit.header, output: part, hashing: false)
                } ?? ingest.run(path: path, index: unit.file, output: part)
                guard let result else { return nil }
                findings += result.findings
            }
            return (ingest.extractor.out.bytes, findings)
        }
        // The plan again, in ingest's units of 64 bytes, finding each row's fate (on three workers,
        // a table's units in runs); it reads what the first plan read, and fails only as it does.
        if let units = try? IngestUnits.plan(inputs: paths, shards: 1, sharded: false, rangeBytes: 256 << 20, tableRangeBytes: 64) {
            let quick: ExportLinkPruning
            do {
                guard let planned = try ExportLinkPruning.plan(
                    inputs: paths, selection: exportSelection, openDataDate: exportDate, scratch: folder, workers: 3, units: units)
                else { return "the plan in ingest's units pruned nothing where the plan without them did" }
                quick = planned
            } catch {
                return "the plan in ingest's units failed where the plan without them did not: \(error)"
            }
            let (slow, fast) = (read(pruning: pruning, units: units), read(pruning: quick, units: units))
            if (slow == nil) != (fast == nil) { return "the rows' fates made one run stop with an error and not the other" }
            if let slow, let fast, slow.records != fast.records || slow.findings != fast.findings {
                return "the rows' fates changed the records (\(fast.records.count) bytes against \(slow.records.count)) or the findings "
                    + "(\(fast.findings.count) against \(slow.findings.count))"
            }
        }
        let (prunedRun, wholeRun) = (read(pruning: pruning), read(pruning: nil))
        guard let pruned = prunedRun, let whole = wholeRun else {
            // Both stopped: the stage's clear error. One alone: the pruning made the difference.
            return (prunedRun == nil) == (wholeRun == nil) ? nil : "one run stopped with an error and the other did not"
        }
        if pruned.findings != whole.findings {
            let first = zip(pruned.findings, whole.findings).first { $0 != $1 }
            return "pruning changed the findings (\(pruned.findings.count) against \(whole.findings.count); first: "
                + "\(first.map { "\($0.0.line ?? 0): \($0.0.reason) | \($0.1.line ?? 0): \($0.1.reason)" } ?? "a finding more"))"
        }
        if let problem = recordsProblem(whole.records) { return problem }
        let kept = observations(in: pruned.records), all = observations(in: whole.records)
        for (uuid, mine) in kept where !mine.records.isEmpty {
            guard let theirs = all[uuid], Set(mine.records).isSubset(of: Set(theirs.records)) else {
                return "the kept observation \(uuid) is written with pruning and not (or not the same) without"
            }
            if mine.links != theirs.links {
                return "the kept observation \(uuid) has \(mine.links) photo links with pruning, \(theirs.links) without"
            }
        }
        return nil
    }

    /// The selection `exportPruning` prunes by: every rule ingest applies (places, taxa, grades,
    /// dates), with the sample export's region in it, so that mutated sample rows are kept.
    static let exportSelection: Selection = {
        let json = #"""
            {"bbox": [[3.0, 51.25, 3.45, 51.45], [170, -50, -170, -30]], "taxa": {"include": [3]},
             "quality_grades": ["research", "needs_id"], "observed": {"from": "2015-01-01", "to": "2024-12-31"}}
            """#
        let parser = JSONParser()
        // A constant that reads: a failure here is a programming error.
        return try! Selection.read(try! parser.parse(PaddedBuffer(copying: Array(json.utf8))), pipelinePath: "fuzz")
    }()

    /// The loose tables' export date (`open_data_date`): 2024-11-27.
    static let exportDate = Timestamp.day("2024-11-27")

    /// The tables of an `exportPruning` input: its parts apart by a line `%%`, at most four.
    static func exportTables(_ bytes: [UInt8]) -> [[UInt8]] {
        var tables: [[UInt8]] = []
        var start = 0
        var index = 0
        let separator: [UInt8] = Array("\n%%\n".utf8)
        while index + separator.count <= bytes.count && tables.count < 3 {
            if bytes[index..<(index + separator.count)].elementsEqual(separator) {
                tables.append(Array(bytes[start...index]))
                start = index + separator.count
                index = start
            } else {
                index += 1
            }
        }
        tables.append(Array(bytes[start...]))
        return tables.filter { !$0.isEmpty }
    }

    /// This process's folder for `exportPruning`'s tables and the plan's spills (nil if it
    /// cannot be made): one for every input, each input's files written over the last's.
    private static let exportFolder: String? = {
        let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        guard let folder = try? FileSystem.makeUniqueDirectory(in: parent, prefix: "fieldpack-fuzz-export-") else { return nil }
        // Removed when the process exits (each call removes its own folder, and its spills are
        // unlinked as they are made).
        atexit {
            guard let folder = FuzzEntry.exportFolder else { return }
            rmdir(folder)
        }
        return folder
    }()

    /// The observation records of ingest's output by uuid: each unmarked record's line, and how
    /// many link records (one photo row's link each) name it.
    private static func observations(in output: [UInt8]) -> [String: (records: [ArraySlice<UInt8>], links: Int)] {
        let parser = JSONParser()
        var found: [String: (records: [ArraySlice<UInt8>], links: Int)] = [:]
        for line in output.split(separator: UInt8(ascii: "\n")) {
            guard let value = try? parser.parse(PaddedBuffer(copying: Array(line))), value.isArray else { continue }
            let columns = Array(value.elements)
            guard columns.first?.text.flatMap({ RecordKind(tag: $0) }) == .observation,
                  columns.count > ObservationRecord.Column.part.rawValue,
                  let uuid = columns[ObservationRecord.Column.uuid.rawValue].text?.string
            else { continue }
            let part = columns[ObservationRecord.Column.part.rawValue].text?.string
            let key = uuid.lowercased()
            if part == "links" {
                found[key, default: ([], 0)].links += 1
            } else if part == nil {
                found[key, default: ([], 0)].records.append(line)
            }
        }
        return found
    }

    /// Why ingest's output is not records dedupe can read (one JSON array per line, headed by a
    /// known kind's tag), or nil.
    package static func recordsProblem(_ output: [UInt8]) -> String? {
        let parser = JSONParser()
        var number = 0
        for line in output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast() {
            number += 1
            let value: JSONValue
            do {
                // simdjson reads past the end: the line goes into a padded buffer.
                value = try parser.parse(PaddedBuffer(copying: Array(line)))
            } catch {
                return "output record \(number) is not JSON: \(error)"
            }
            var kind: RecordKind? = nil
            if value.isArray {
                for first in value.elements {
                    kind = first.text.flatMap { RecordKind(tag: $0) }
                    break
                }
            }
            if kind == nil || kind == .selection {
                return "output record \(number) is not headed by an ingest record kind: \(String(decoding: line.prefix(80), as: UTF8.self))"
            }
        }
        if let last = output.last, last != UInt8(ascii: "\n") { return "the output does not end with a newline" }
        return nil
    }

    /// Any HTML through the sanitizer; what it writes must pass verify's markup check.
    static func sanitize(_ bytes: [UInt8]) -> String? {
        let output = bytes.withUnsafeBytes { Sanitizer().sanitize($0) }
        guard let output else { return nil }  // refused: too large or too deep
        return markupProblem(output, of: "the sanitizer's output")
    }

    /// Any HTML as a Wikipedia article; its blurb must pass verify's markup check.
    static func article(_ bytes: [UInt8]) -> String? {
        let blurb: Blurb
        do {
            blurb = try bytes.withUnsafeBytes { try BlurbMaker().blurb(html: $0) }
        } catch {
            return nil  // refused with a reason, as the wiki stage records it
        }
        return markupProblem(blurb.html, of: "the blurb")
    }

    /// The titles the archive target wants: those of the sample dumps, so mutated samples reach
    /// the blurb maker.
    static let wantedTitles = [
        "Monarch butterfly", "Great tit", "European robin", "Danaus plexippus", "Kalmthoutse Heide",
        "Forêt de Soignes", "Lixus", "Dog", "Tokyo",
    ]

    /// Any bytes as one wiki-stage input file: libarchive, then each member by its content, as
    /// `WikiStage.pass` reads a file. Wanted articles become blurbs that must pass the markup check.
    static func archive(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty else { return nil }  // the stage skips an empty file before libarchive
        var wants = WikiWants(language: "en")
        for title in wantedTitles { wants.want(title: WikiTitle.normalize(title), by: .destination("fuzz")) }
        let stage = WikiStage(options: WikiStage.Options(inputs: [], wants: wants, output: "", report: "", rejects: ""))
        let maker = BlurbMaker(rules: stage.options.rules)
        let pool = BlurbPool(maker: maker, byteBudget: 0, maximumJobs: 1)
        let reading = WikiStage.Reading(wanted: wants, maker: maker, pool: pool, parser: JSONParser(), counting: true, share: .everything)
        var run = WikiStage.Run()
        do {
            let archive = try ArchiveReader(memory: bytes, name: inputName)
            try stage.members(of: archive, input: inputName, reading, into: &run)
        } catch {
            // A read error stops the stage with its message; the pool still finishes below.
        }
        for (article, result) in pool.drain() { stage.finish(article, result, into: &run) }
        for title in run.articles.keys.sorted() {
            let html: String
            do {
                html = try stage.record(of: try stage.article(run.articles[title]!, in: run.spill), spill: run.spill, language: "en").html
            } catch {
                return "the blurb of \"\(title)\" cannot be read back: \(error)"
            }
            if let problem = markupProblem(html, of: "the blurb of \"\(title)\"") { return problem }
        }
        return nil
    }

    /// Any bytes through verify's blurb markup check: it must not crash, whatever it decides.
    static func markup(_ bytes: [UInt8]) -> String? {
        _ = DatabaseChecks.blurbDefect(String(decoding: bytes, as: UTF8.self))
        return nil
    }

    private static func markupProblem(_ html: String, of what: String) -> String? {
        guard let defect = DatabaseChecks.blurbDefect(html) else { return nil }
        return "\(what) fails verify's markup check (\(defect)): \(html.utf8.count > 300 ? String(html.prefix(300)) + "…" : html)"
    }
}
