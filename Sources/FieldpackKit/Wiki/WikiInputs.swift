/// How the wiki stage reads its inputs: each file, and each member of an archive, by its content
/// (`DumpContent`): NDJSON lines, one JSON document (an article object or an array of them),
/// an HTML page, or something else, which is skipped with a finding.
extension WikiStage {
    /// What one pass shares while it reads.
    struct Reading {
        var wanted: WikiWants
        var maker: BlurbMaker
        var pool: BlurbPool
        var parser: JSONParser
        /// Whether this is the first pass (the one that counts lines and records findings about
        /// whole files).
        var counting: Bool
        /// What this shard reads on this pass (later passes read everything).
        var share: WikiShare
        /// What the earlier passes wanted: a copy they wanted was read by them (in a sharded
        /// run, by the shard whose share holds it), and is not read again as another copy.
        var earlier: WikiWants?

        /// Whether the earlier passes wanted a copy of `title`, with item `wikidata` and
        /// `redirects` (the aliases it lists).
        func wantedEarlier(title: String, wikidata: String?, redirects: [String] = []) -> Bool {
            guard let earlier else { return false }
            return earlier.titles[title] != nil || wikidata.map { earlier.wikidata[$0.uppercased()] != nil } ?? false
                || redirects.contains { earlier.titles[WikiTitle.normalize($0)] != nil }
        }
    }

    /// Reads every input once, keeping the wanted articles (`earlier`: what the passes before
    /// this one wanted).
    func pass(wanted: WikiWants, earlier: WikiWants? = nil, into run: inout Run) throws {
        run.summary.passes += 1
        let maker = BlurbMaker(rules: options.rules)
        let pool = BlurbPool(
            maker: maker, byteBudget: options.inFlightBytes, maximumJobs: options.workers * 16, release: options.freedMemoryRelease)
        // Each pass reads every input again: the total grows by their size.
        options.progress.expect(bytes: run.summary.passes * options.inputs.reduce(0) { $0 + (FileSystem.size($1) ?? 0) })
        defer { for (article, result) in pool.drain() { finish(article, result, into: &run) } }
        let share = run.summary.passes == 1 ? WikiShare(shard: options.shard, files: options.inputs.count) : .everything
        let reading = Reading(
            wanted: wanted, maker: maker, pool: pool, parser: JSONParser(), counting: run.summary.passes == 1, share: share, earlier: earlier)
        for (position, input) in options.inputs.enumerated() where share.reads(file: position) {
            let whole = share.ownsWhole(file: position)
            // libarchive cannot open an empty file: it holds nothing to read.
            // A file named like a dump or an archive that is empty is a damaged dump (a download
            // that wrote nothing); any other (a job's `_SUCCESS` marker, a placeholder) is skipped.
            if FileSystem.size(input) == 0 {
                if whole && DumpContent.namedLikeADumpOrArchive(fileName(of: input)) {
                    reject(Finding(path: input, reason: "the file is empty (0 bytes): no Wikipedia dump or page"), counting: reading.counting, into: &run)
                } else if whole {
                    skipFile(input, "an empty file (0 bytes), not a Wikipedia dump or page", reading, into: &run)
                }
                continue
            }
            // A gzip member whose check fails is known only at its end: the file is read again
            // with that member's records rejected, from the state before it.
            var checks = MemberChecks()
            while true {
                let archive: ArchiveReader
                // Progress counts the file once a pass: not again when a failed member rereads it.
                let progress = checks.failed.isEmpty ? options.progress : nil
                do {
                    archive = try ArchiveReader(path: input, progress: progress)
                } catch let damage as StreamDamage {
                    if whole { reject(Finding(path: input, reason: damage.message), counting: reading.counting, into: &run) }
                    break
                }
                let before: Run? = archive.isGzip ? settled(pool, &run) : nil
                defer { archive.countRest() }
                try members(of: archive, input: input, position: position, checks: checks, reading, into: &run)
                guard let before, archive.failedMembers.count > checks.failed.count else { break }
                let spillError = settled(pool, &run).spillError
                run = before
                run.spillError = run.spillError ?? spillError  // a failed spill write is never forgotten
                checks.failed = archive.failedMembers
                checks.reason = archive.failureReason ?? "its gzip member fails its check"
            }
        }
    }

    /// `run` with every blurb in flight finished into it.
    private func settled(_ pool: BlurbPool, _ run: inout Run) -> Run {
        for (article, result) in pool.drain() { finish(article, result, into: &run) }
        return run
    }

    /// The gzip members of a file whose CRC-32 or length check failed (inflated offsets): the
    /// records read from them are rejected.
    struct MemberChecks {
        var failed: [Range<Int>] = []
        var reason = ""
        /// Whether the whole current member (a tar member) lies in a failed gzip member.
        var wholeMember = false

        func rejects(_ range: Range<Int>) -> Bool {
            wholeMember || failed.contains { $0.overlaps(range) || $0.contains(range.lowerBound) }
        }
    }

    /// Reads every member of one file.
    func members(
        of archive: ArchiveReader, input: String, position: Int = 0, checks: MemberChecks = MemberChecks(), _ reading: Reading,
        into run: inout Run
    ) throws {
        let share = reading.share
        let whole = share.ownsWhole(file: position)
        var members = 0
        while true {
            let next: String?
            do {
                next = try archive.nextMember()
            } catch let damage as StreamDamage {
                // The damage is where the next member would start, and that member's shard tells
                // it; or inside the data of the member just passed over, and that member's shard
                // tells it (its reader met it, or it too passed over a member it did not read).
                // Told by the next member's shard as well, one damage was two findings.
                let member = archive.isTar && members > 0 && archive.damageIsInCurrentMember ? members - 1 : members
                let owner = archive.isTar ? share.owns(member: member, file: position) : whole
                if owner { reject(Finding(path: input, reason: damage.message), counting: reading.counting, into: &run) }
                break
            }
            guard let member = next else { break }
            members += 1
            // Another shard's member: passed over unread (libarchive still inflates it).
            if archive.isTar && !share.owns(member: members - 1, file: position) { continue }
            let ownsWhole = archive.isTar || whole
            let name = archive.isTar ? "\(input)#\(member)" : input
            var checks = checks
            // A tar member a failed gzip member touches is rejected whole; one it does not, not
            // at all: its readers count offsets from its own start, not the stream's, which the
            // failed ranges are in.
            if archive.isTar {
                checks.wholeMember = checks.failed.contains { $0.overlaps(archive.memberRange) }
                checks.failed = []
            }
            // What macOS's tar packs beside each file that carries extended attributes (a
            // downloaded dump's quarantine flag): `._<name>` AppleDouble files, or a zip's
            // `__MACOSX/` folder. Named like the dump, their bytes were read as its damaged lines,
            // and the rejects put the whole stage over its limit.
            if archive.isTar, Self.isMacOSMetadata(member) {
                skipFile(name, "macOS metadata (an AppleDouble \"._\" file beside the dump it describes), not a Wikipedia dump", reading, into: &run)
                continue
            }
            let reader = LineReader(source: archive.memberSource(named: name))
            try reader.detectLineEnd()
            // As much as a new reader's first read held before `peek` gave no more than asked:
            // a first line longer than the head is taken for a line of JSON Lines.
            let head = try reader.peek(atLeast: LineReader.defaultChunkSize)
            switch DumpContent.detect(head, name: archive.isTar ? member : input) {
            case .jsonLines:
                let lineShare = archive.isTar
                    ? ByteRangeLines.all
                    : share.lines(file: position, size: FileSystem.size(input) ?? 0, compressed: WikiShare.isCompressed(input))
                try lines(reader, source: name, share: lineShare, checks: checks, reading, into: &run)
            case .jsonDocument where ownsWhole:
                try document(reader, source: name, checks: checks, reading, into: &run)
            case .html where ownsWhole:
                try page(reader, source: name, fileName: archive.isTar ? member : input, checks: checks, reading, into: &run)
            case .other(let looks) where ownsWhole:
                if let damage = reader.damage {
                    // Damage inside the bytes that tell what the file is: what came out is not the
                    // file (a corrupt gzip stream inflates to noise), so it is rejected, never
                    // skipped as a file that holds no articles (the stage then shipped none).
                    reject(Finding(path: name, reason: "\(damage.message): damaged before what it holds could be told, so it is rejected"),
                           counting: reading.counting, into: &run)
                } else {
                    skipFile(name, "\(looks), not a Wikipedia dump or page", reading, into: &run)
                }
            case .jsonDocument, .html, .other:
                break  // another shard's
            }
            // A dump of many small documents or pages holds its findings within bounds too.
            try stopIfOverLimit(at: name, into: &run)
        }
        if members == 0 && whole {
            reject(Finding(path: input, reason: "nothing to read: libarchive finds an archive with no members (a file of NUL bytes reads so)"),
                   counting: reading.counting, into: &run)
        }
    }

    /// Whether an archive member is macOS's metadata of another member: an AppleDouble `._` file,
    /// or anything under `__MACOSX/`.
    static func isMacOSMetadata(_ member: String) -> Bool {
        let name = member.split(separator: "/").last.map(String.init) ?? member
        return name.hasPrefix("._") || member.hasPrefix("__MACOSX/") || member.contains("/__MACOSX/")
    }

    /// Reading stops once the rejected lines alone put the run over its limit, whatever the rest
    /// of the inputs hold (see `rejectLimit`), so findings never grow past what the input's size
    /// allows under the limit.
    private func stopIfOverLimit(at place: String, into run: inout Run) throws {
        try spillFindings(&run)
        guard let limit = run.rejectLimit, run.summary.rejected > limit else { return }
        run.stoppedAt = place
        throw StopReading()
    }

    struct StopReading: Error {}

    /// Rejected lines past which the rate rejected / lines cannot end at or under
    /// `maxRejectRate`: no input holds more lines than its bytes allow (a line that is not
    /// rejected is at least `{}` and its newline, 3 bytes; deflate inflates at most 1032 times).
    /// Nil for a rate of 1.
    static func rejectLimit(inputs: [String], maxRejectRate: Double) -> Int? {
        guard maxRejectRate < 1 else { return nil }
        var lines = 0.0
        for input in inputs {
            guard let size = FileSystem.size(input) else { return nil }
            var magic = [UInt8](repeating: 0, count: 2)
            let got = (try? ReadableFile(path: input)).flatMap { file in
                try? magic.withUnsafeMutableBytes { try file.read(at: 0, count: 2, into: $0) }
            } ?? 0
            lines += Double(size) * (got == 2 && magic == [0x1F, 0x8B] ? 1032 : 1) / 3
        }
        // Never fewer than ingest's floor: a small file's findings are all listed.
        let limit = max(Double(INatIngest.rejectFloor), (maxRejectRate / (1 - maxRejectRate) * lines).rounded(.down))
        return limit < Double(Int.max / 2) ? Int(limit) : nil
    }

    /// A refused line or file: a finding, counted as a rejected line on the first pass.
    private func reject(_ finding: Finding, counting: Bool, into run: inout Run) {
        guard counting else { return }
        run.findings.append(finding)
        run.summary.rejected += 1
        run.summary.lines += 1
    }

    /// A file (or member) that holds no articles: a finding of kind `skipped`, not a rejection.
    private func skipFile(_ source: String, _ reason: String, _ reading: Reading, into run: inout Run) {
        guard reading.counting else { return }
        run.skips.append(Finding(path: source, reason: "\(reason): skipped"))
        run.summary.filesSkipped += 1
    }

    /// NDJSON: one article object per line. A first line that is JSON but not an article (a
    /// dump's metadata) skips the file.
    private func lines(
        _ reader: LineReader, source: String, share: ByteRangeLines, checks: MemberChecks, _ reading: Reading, into run: inout Run
    ) throws {
        var first = true
        // Where the next line starts: a damaged stream is told by the shard that owns that byte.
        var next = 0
        var grown = false
        // Whether the last line read was cut short by the damage that ended the stream.
        var cutShort = false
        while true {
            // A multi-megabyte line grew the line buffer and the parser's: give that memory back
            // (a wanted article's HTML is copied out by now) rather than keep it while a worker
            // builds the article's tree.
            if grown {
                reader.shrinkBuffer(toAtMost: LineReader.defaultChunkSize)
                reading.parser.releaseCapacity()
            }
            let line: LineReader.Line?
            do {
                line = try reader.next()
            } catch let error as StreamDamage {
                // A damaged stream: every complete line before it was read.
                if share.owns(offset: next) {
                    reject(Finding(path: source, line: reader.linesRead + 1, reason: error.message), counting: reading.counting, into: &run)
                }
                return
            }
            guard let line else { break }
            next = line.offset + line.bytes.count + 1
            let blank = line.bytes.allSatisfy(isJSONBlank)
            // Whether the line's own shard tells the damage, as this line "truncated" (below):
            // not a blank line, nor one a failed gzip member rejects.
            cutShort = line.unterminated && !blank && !checks.rejects(line.offset..<next)
            grown = line.bytes.count > Self.longLineBytes
            if blank { continue }
            // Another shard's line: read only while the file's first line (which decides whether
            // the file holds articles at all) is still to come.
            let owned = share.owns(offset: line.offset)
            if !owned && !first {
                if share.isPast(offset: line.offset) { break }
                continue
            }
            if owned && reading.counting { run.summary.bytes += line.bytes.count + 1 }
            if checks.rejects(line.offset..<(line.offset + line.bytes.count + 1)) {
                guard owned else { continue }
                reject(Finding(path: source, line: line.number, reason: "\(checks.reason): rejected"), counting: reading.counting, into: &run)
                try stopIfOverLimit(at: "\(source):\(line.number)", into: &run)
                continue
            }
            if line.unterminated, let damage = reader.damage {
                if owned { reject(Finding(path: source, line: line.number, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run) }
                return
            }
            let value: JSONValue
            let repaired: Bool
            do {
                // Text that is not UTF-8 or a lone surrogate escape (`\ud800`) in one field
                // refused the whole article; repaired to U+FFFD, as ingest does, it is kept.
                (value, repaired) = try reading.parser.parseRepairingText(
                    line.number == 1 ? withoutByteOrderMark(line.bytes) : line.bytes, quotingNonFinite: false)
            } catch let error as JSONSyntaxError {
                first = false
                guard owned else { continue }
                reject(Finding(path: source, line: line.number, reason: "not JSON: \(error.message)"), counting: reading.counting, into: &run)
                try stopIfOverLimit(at: "\(source):\(line.number)", into: &run)
                continue
            }
            if first, value.isObject, !EnterpriseLine.isArticle(value) {
                guard owned else { return }
                return skipFile(source, EnterpriseLine.notArticles(value, "JSON Lines whose first object is not a Wikipedia article (no \"article_body\")"), reading, into: &run)
            }
            first = false
            guard owned else { continue }
            if reading.counting { run.summary.lines += 1 }
            try record(value, source: source, line: line.number, record: nil, repaired: repaired, reading, into: &run)
            for (article, result) in reading.pool.collect() { finish(article, result, into: &run) }
            try stopIfOverLimit(at: "\(source):\(line.number)", into: &run)
        }
        // A stream damaged between two lines (a gzip member cut short after a whole line) ends
        // the reader as if the file ended there: every line before it was read, and the cut is a
        // finding, at the line that would have come next, of the shard that owns that byte. Not
        // when it cut a line short: that line's shard told it (as "truncated", at its line), and
        // the shard owning the cut's end, passing over the line, told it again.
        if let damage = reader.damage, !cutShort, share.owns(offset: next) {
            reject(Finding(path: source, line: reader.linesRead + 1, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
        }
    }

    /// The finding of a page cut short (`isCutDocument`).
    static let cutDocument = "the page starts as a whole HTML document but ends before its </html>: cut short (a download or a copy that stopped); rejected, not shipped with the text the cut left"

    /// Whether `bytes` start as a whole HTML document (`<!DOCTYPE html` or `<html`, after a byte
    /// order mark and white space) and hold no `</html>` in their last 4 KiB. Parsoid's pages and
    /// saved page views end with it; a fragment (a section's HTML) is not judged.
    static func isCutDocument(_ bytes: UnsafeRawBufferPointer) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }
        func matches(_ word: String, at start: Int) -> Bool {
            let word = Array(word.utf8)
            guard start + word.count <= bytes.count else { return false }
            return word.indices.allSatisfy { lower(bytes[start + $0]) == word[$0] }
        }
        var start = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard matches("<!doctype html", at: start) || matches("<html", at: start) else { return false }
        let tail = max(start, bytes.count - 4096)
        return !(tail..<bytes.count).contains { bytes[$0] == UInt8(ascii: "<") && matches("</html", at: $0) }
    }

    /// The finding of a line or document whose text was repaired (`TextRepair`).
    static let repairedText = "\(TextRepair.repairs); the article was read from the repaired text"

    /// A line longer than this gives back what it grew the reader's buffers to.
    static let longLineBytes = 2 * LineReader.defaultChunkSize

    /// One JSON document: an article object (an Enterprise On-demand or Structured Contents
    /// response, pretty-printed or not), or an array of them; anything else skips the file.
    private func document(_ reader: LineReader, source: String, checks: MemberChecks, _ reading: Reading, into run: inout Run) throws {
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = try reader.rest(limit: reader.maxLineBytes)
        } catch let error as FieldpackError where error.path == nil {
            // The reader's size limit (a read error names its file, and stops the stage).
            return reject(Finding(path: source, reason: error.message), counting: reading.counting, into: &run)
        }
        if checks.rejects(0..<max(1, bytes.count)) {
            return reject(Finding(path: source, reason: "\(checks.reason): rejected"), counting: reading.counting, into: &run)
        }
        let document = withoutByteOrderMark(bytes)
        if let damage = reader.damage {
            if Self.isArray(document) { return try salvage(document, source: source, reason: "truncated: \(damage.message)", reading, into: &run) }
            return reject(Finding(path: source, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
        }
        let root: JSONValue
        let repaired: Bool
        do {
            (root, repaired) = try reading.parser.parseRepairingText(document, quotingNonFinite: false)
        } catch let error as JSONSyntaxError {
            if Self.isArray(document) { return try salvage(document, source: source, reason: "not JSON: \(error.message)", reading, into: &run) }
            return reject(Finding(path: source, reason: "not JSON: \(error.message)"), counting: reading.counting, into: &run)
        }
        if reading.counting { run.summary.bytes += bytes.count }
        if root.isArray {
            var index = 0
            for element in root.elements {
                if index == 0 && !EnterpriseLine.isArticle(element) {
                    return skipFile(source, EnterpriseLine.notArticles(element, "a JSON array whose first element is not a Wikipedia article (no \"article_body\")"), reading, into: &run)
                }
                if reading.counting { run.summary.lines += 1 }
                try record(element, source: source, line: nil, record: "[\(index)]", repaired: repaired, reading, into: &run)
                for (article, result) in reading.pool.collect() { finish(article, result, into: &run) }
                try stopIfOverLimit(at: "\(source) [\(index)]", into: &run)
                index += 1
            }
            if index == 0 { skipFile(source, "an empty JSON array", reading, into: &run) }
        } else if EnterpriseLine.isArticle(root) {
            if reading.counting { run.summary.lines += 1 }
            try record(root, source: source, line: nil, record: nil, repaired: repaired, reading, into: &run)
        } else {
            skipFile(source, EnterpriseLine.notArticles(root, "JSON that is not a Wikipedia article (no \"article_body\")"), reading, into: &run)
        }
    }

    /// Whether a document is a JSON array (its first byte past blanks a `[`): an On-demand
    /// export of articles.
    private static func isArray(_ document: UnsafeRawBufferPointer) -> Bool {
        document.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "[")
    }

    /// A JSON array of articles that does not parse whole (one record broken, or the file cut
    /// short): one bad byte rejected every article of the file, with no place named. Its
    /// complete records (`JSONScanner.scanArray`) are read one by one, each named by its line
    /// and place (`[2]`), a record that does not parse on its own rejected alone; where the
    /// array stops being readable is a finding of its own, unless that record was the damage.
    private func salvage(_ document: UnsafeRawBufferPointer, source: String, reason: String, _ reading: Reading, into run: inout Run) throws {
        let scan = JSONScanner.scanArray(named: nil, in: document)
        var lines = LineLocator(document)
        var anElementFailed = false
        var kept = 0
        if reading.counting { run.summary.bytes += document.count }
        for (index, range) in scan.elements.enumerated() {
            let line = lines.line(of: range.lowerBound)
            let value: JSONValue
            let repaired: Bool
            do {
                (value, repaired) = try reading.parser.parseRepairingText(UnsafeRawBufferPointer(rebasing: document[range]), quotingNonFinite: false)
            } catch {
                anElementFailed = true
                reject(Finding(path: source, line: line, record: "[\(index)]", reason: "not JSON: \((error as? JSONSyntaxError)?.message ?? "\(error)")"),
                       counting: reading.counting, into: &run)
                try stopIfOverLimit(at: "\(source):\(line) [\(index)]", into: &run)
                continue
            }
            if index == 0 && !EnterpriseLine.isArticle(value) {
                return skipFile(source, EnterpriseLine.notArticles(value, "a JSON array whose first element is not a Wikipedia article (no \"article_body\")"), reading, into: &run)
            }
            kept += 1
            if reading.counting { run.summary.lines += 1 }
            try record(value, source: source, line: line, record: "[\(index)]", repaired: repaired, reading, into: &run)
            for (article, result) in reading.pool.collect() { finish(article, result, into: &run) }
            try stopIfOverLimit(at: "\(source):\(line) [\(index)]", into: &run)
        }
        // The array whole and a record refused on its own: that record was the damage, named.
        if scan.closed && anElementFailed && scan.partialStart == nil { return }
        let complete = scan.elements.count
        let damage = scan.partialStart ?? scan.elements.last?.upperBound ?? (scan.arrayStart ?? 0)
        let what = complete == 0 ? "before its first record" : "after its record [\(complete - 1)]"
        let before = complete == 0 ? "no complete record before it"
            : kept == complete ? "kept the \(complete) complete record\(complete == 1 ? "" : "s") before it"
            : "of the \(complete) complete record\(complete == 1 ? "" : "s") before it \(kept) read, \(complete - kept) rejected"
        reject(Finding(path: source, line: lines.line(of: damage), record: "[\(complete)]", reason: "the array cannot be read \(what) (\(reason)); \(before)"),
               counting: reading.counting, into: &run)
    }

    /// One article object, from a line or a document: kept for a blurb if it is wanted. One
    /// `repaired` (`JSONParser.parseRepairingText`, without the quoting of NaN or 1e400 ingest
    /// does: a dump line's numbers are its ids) is a salvaged finding, once it is known to be
    /// wanted.
    private func record(
        _ value: JSONValue, source: String, line: Int?, record: String?, repaired: Bool = false, _ reading: Reading, into run: inout Run
    ) throws {
        options.progress.add(records: 1)
        let fields: EnterpriseLine
        do {
            fields = try EnterpriseLine(value)
        } catch let problem as EnterpriseLine.Problem {
            if reading.counting {
                run.findings.append(Finding(path: source, line: line, record: record, reason: problem.reason))
                run.summary.rejected += 1
            }
            return
        }
        let wanted = reading.wanted
        // The wiki a line is of: the one its `is_part_of` names, when it names one (Simple
        // English Wikipedia's lines are `in_language` `en`: judged by their language, a `simple`
        // guide skipped every line); else its language, or, when it states none, the wiki its
        // address names. A line of another wiki in the wanted language (Wiktionary, Simple
        // English Wikipedia for `en`) is skipped too: its title matches a wanted one, with
        // another text.
        let language = fields.project != nil ? nil : fields.language ?? fields.url.flatMap(WikiTitle.fromURL)?.language
        if language.map({ $0 != wanted.language }) ?? false || fields.isOfAnotherWiki(than: wanted.language) {
            if reading.counting {
                run.summary.skipped += 1
                run.summary.otherWikis[fields.project ?? language ?? fields.url.flatMap(WikiTitle.host) ?? "?", default: 0] += 1
            }
            return
        }
        if reading.counting { run.summary.linesOfTheWiki += 1 }
        var title = WikiTitle.normalize(fields.name)
        // The wanted title's own string, so that the run's table shares its storage with the wants.
        if let index = wanted.titles.index(forKey: title) { title = wanted.titles[index].key }
        let isWanted = wanted.titles[title] != nil || fields.wikidata.map { wanted.wikidata[$0.uppercased()] != nil } ?? false
            || fields.redirects.contains { wanted.titles[WikiTitle.normalize($0)] != nil }
        guard isWanted, let html = fields.html else {
            if reading.counting { run.summary.skipped += 1 }
            return
        }
        if reading.wantedEarlier(title: title, wikidata: fields.wikidata, redirects: fields.redirects) { return }
        if repaired && reading.counting {
            run.salvaged.append(Finding(path: source, line: line, record: record, outcome: .salvaged, reason: Self.repairedText))
        }
        if reading.counting {
            for part in fields.dropped {
                run.salvaged.append(Finding(path: source, line: line, record: record, field: part.field, outcome: .salvaged, reason: part.reason))
            }
        }
        let url = Self.creditURL(fields.url, title: title, language: wanted.language) { reason in
            if reading.counting { run.salvaged.append(Finding(path: source, line: line, record: record, field: "url", outcome: .salvaged, reason: reason)) }
        }
        run.summary.htmlBytes += html.count
        var article = Article(
            title: title, pageID: fields.pageID, revision: fields.revision, modified: fields.modified,
            url: url, wikidata: fields.wikidata,
            statedLicense: fields.license, source: source, line: line, record: record,
            blurb: Blurb(kind: .article, html: "", summary: "", title: nil, sections: 0))
        article.htmlBytes = html.count
        let late = run.recordsLate && run.summary.passes > 1
        if late, wanted.titles[title] != nil { article.matched.append(title) }
        for alias in fields.redirects {
            let normalized = WikiTitle.normalize(alias)
            if wanted.titles[normalized] != nil { Self.note(alias: normalized, of: &article, into: &run) }
        }
        reading.pool.submit(article, html: html.bytes)
    }

    /// Notes that the wanted title `alias` leads to `article` (an alias in a dump line's
    /// `redirects`, or the title a saved page was reached through): followed as a redirect
    /// stub's is, and in a later pass recorded for the parts' merge.
    private static func note(alias: String, of article: inout Article, into run: inout Run) {
        claim(&run.redirects, alias: alias, target: article.title)
        if run.recordsLate && run.summary.passes > 1 {
            article.matched.append(alias)
            run.late.redirects.append(LateFinds.Redirect(alias: alias, target: article.title, matched: [alias], htmlBytes: 0))
        }
    }

    /// An HTML page: titled by its `<title>` (without " - Wikipedia"), else by the address it
    /// gives for itself, else by its file name; its page id, revision, date and licence are what
    /// its HTML says (`PageMetadata`).
    private func page(
        _ reader: LineReader, source: String, fileName: String, checks: MemberChecks, _ reading: Reading, into run: inout Run
    ) throws {
        let limit = options.rules.maximumArticleBytes
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = try reader.rest(limit: limit)
        } catch let error as FieldpackError where error.path == nil {
            _ = error  // the reader's size limit; a read error names its file and stops the stage
            return reject(Finding(path: source, reason: "the page is over the \(limit)-byte limit for one article"), counting: reading.counting, into: &run)
        }
        if checks.rejects(0..<max(1, bytes.count)) {
            return reject(Finding(path: source, reason: "\(checks.reason): rejected"), counting: reading.counting, into: &run)
        }
        if let damage = reader.damage {
            return reject(Finding(path: source, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
        }
        // A whole document that stops before its end (a plain page whose download or copy
        // stopped): its blurb stopped mid-sentence, shipped without a word.
        if Self.isCutDocument(bytes) {
            return reject(Finding(path: source, reason: Self.cutDocument), counting: reading.counting, into: &run)
        }
        if reading.counting {
            run.summary.lines += 1
            run.summary.bytes += bytes.count
        }
        // Bytes that are not UTF-8 (a page saved in its declared ISO-8859-1) are read repaired
        // (`HTMLDocument`), and said, as a dump line's are.
        let repaired = HTMLDocument.needsRepair(bytes)
        let blurb: Blurb
        do {
            blurb = try reading.maker.blurb(html: bytes)
        } catch {
            if reading.counting {
                run.findings.append(Finding(path: source, reason: "\(error)"))
                run.summary.rejected += 1
            }
            return
        }
        let wanted = reading.wanted
        // A saved page of another wiki (Wiktionary's "dog - Wiktionary") is not the article.
        if let host = blurb.page.url.flatMap(WikiTitle.host), !host.hasSuffix(".wikipedia.org") {
            if reading.counting {
                run.summary.skipped += 1
                run.summary.otherWikis[host, default: 0] += 1
            }
            return
        }
        let (title, language) = WikiTitle.ofPage(url: blurb.page.url, title: blurb.title, fileName: fileName)
        // A page of another language's Wikipedia is skipped, as a dump line of one is: its
        // title would match a wanted title of the same spelling ("Lion") with another text.
        if let language, language != wanted.language {
            if reading.counting {
                run.summary.skipped += 1
                run.summary.otherWikis[language, default: 0] += 1
            }
            return
        }
        if reading.counting { run.summary.linesOfTheWiki += 1 }
        // The wanted title it was reached through ("Parus major" for a page saved from that
        // address, which shows and names "Great tit"), as an alias in a dump line's redirects.
        let alias = blurb.page.redirectedFrom.map(WikiTitle.normalize).flatMap { $0 != title && wanted.titles[$0] != nil ? $0 : nil }
        guard wanted.titles[title] != nil || alias != nil || blurb.page.wikidata.map({ wanted.wikidata[$0.uppercased()] != nil }) ?? false else {
            if reading.counting { run.summary.skipped += 1 }
            return
        }
        // Whether wanted in this pass or an earlier one, as a dump line's aliases are: a page
        // kept for its alias in the first pass is read again for its title in a later one.
        if reading.wantedEarlier(title: title, wikidata: blurb.page.wikidata, redirects: blurb.page.redirectedFrom.map { [$0] } ?? []) { return }
        if repaired && reading.counting {
            run.salvaged.append(Finding(path: source, outcome: .salvaged, reason: Self.repairedText))
        }
        let url = Self.creditURL(blurb.page.url, title: title, language: wanted.language) { reason in
            if reading.counting { run.salvaged.append(Finding(path: source, field: "url", outcome: .salvaged, reason: reason)) }
        }
        run.summary.htmlBytes += bytes.count
        var article = Article(
            title: title, pageID: nil, revision: nil, modified: nil, url: url,
            wikidata: nil, statedLicense: nil, source: source, line: nil, record: nil, blurb: blurb)
        article.complete(with: blurb.page)
        article.htmlBytes = bytes.count
        if wanted.titles[title] != nil { article.matched = [title] }
        if let alias { Self.note(alias: alias, of: &article, into: &run) }
        keep(article, into: &run)
    }

    /// The article's credit link, which the app opens: its stated address when that is an https
    /// one (`WikiTitle.shippedURL`), else the address built from its title, and `unusable` told
    /// why the stated one was not shipped.
    static func creditURL(_ stated: String?, title: String, language: String, unusable: (String) -> Void) -> String {
        if let stated {
            if let shipped = WikiTitle.shippedURL(stated, language: language) { return shipped }
            unusable("url \"\(stated)\" is not an https address on \(language).wikipedia.org: the article's address is built from its title")
        }
        return url(of: title, language: language)
    }
}
