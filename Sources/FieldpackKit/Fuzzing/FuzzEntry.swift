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
