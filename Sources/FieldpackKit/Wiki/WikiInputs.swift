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
    }

    /// Reads every input once, keeping the wanted articles.
    func pass(wanted: WikiWants, into run: inout Run) throws {
        run.summary.passes += 1
        let maker = BlurbMaker(rules: options.rules)
        let pool = BlurbPool(maker: maker, inFlight: options.workers * 2)
        defer { for (article, result) in pool.drain() { finish(article, result, into: &run) } }
        let reading = Reading(wanted: wanted, maker: maker, pool: pool, parser: JSONParser(), counting: run.summary.passes == 1)
        for input in options.inputs {
            // A file libarchive cannot read, or whose archive breaks between members, is a
            // finding: the lines already read count, the rest of the file is lost.
            // libarchive cannot open an empty file: it holds nothing to read.
            if FileSystem.size(input) == 0 {
                skipFile(input, "an empty file, not a Wikipedia dump or page", reading, into: &run)
                continue
            }
            let archive: ArchiveReader
            do {
                archive = try ArchiveReader(path: input)
            } catch let error as FieldpackError {
                reject(Finding(path: input, reason: error.message), counting: reading.counting, into: &run)
                continue
            }
            try members(of: archive, input: input, reading, into: &run)
        }
    }

    /// Reads every member of one input (a bare file is one member), each by its content.
    func members(of archive: ArchiveReader, input: String, _ reading: Reading, into run: inout Run) throws {
        while true {
            let next: String?
            do {
                next = try archive.nextMember()
            } catch let error as FieldpackError {
                reject(Finding(path: input, reason: error.message), counting: reading.counting, into: &run)
                break
            }
            guard let member = next else { break }
            let name = archive.isTar ? "\(input)#\(member)" : input
            let reader = LineReader(source: archive.memberSource())
            let head = try reader.peek(atLeast: 1 << 16)
            switch DumpContent.detect(head, name: archive.isTar ? member : input) {
            case .jsonLines:
                try lines(reader, source: name, reading, into: &run)
            case .jsonDocument:
                try document(reader, source: name, reading, into: &run)
            case .html:
                try page(reader, source: name, fileName: archive.isTar ? member : input, reading, into: &run)
            case .other(let looks):
                skipFile(name, "\(looks), not a Wikipedia dump or page", reading, into: &run)
            }
        }
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
    private func lines(_ reader: LineReader, source: String, _ reading: Reading, into run: inout Run) throws {
        var first = true
        while true {
            let line: LineReader.Line?
            do {
                line = try reader.next()
            } catch let error as FieldpackError {
                // A damaged stream: every complete line before it was read.
                reject(Finding(path: source, line: reader.linesRead + 1, reason: error.message), counting: reading.counting, into: &run)
                break
            }
            guard let line else { break }
            if line.bytes.allSatisfy(isJSONBlank) { continue }
            if reading.counting { run.summary.bytes += line.bytes.count + 1 }
            if line.unterminated, let damage = reader.damage {
                reject(Finding(path: source, line: line.number, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
                break
            }
            let value: JSONValue
            do {
                value = try reading.parser.parse(line.bytes)
            } catch let error as JSONSyntaxError {
                reject(Finding(path: source, line: line.number, reason: "not JSON: \(error.message)"), counting: reading.counting, into: &run)
                first = false
                continue
            }
            if first, value.isObject, !EnterpriseLine.isArticle(value) {
                return skipFile(source, "JSON Lines whose first object is not a Wikipedia article (no \"article_body\")", reading, into: &run)
            }
            first = false
            if reading.counting { run.summary.lines += 1 }
            try record(value, source: source, line: line.number, record: nil, reading, into: &run)
            for (article, result) in reading.pool.collect() { finish(article, result, into: &run) }
        }
    }

    /// One JSON document: an article object (an Enterprise On-demand or Structured Contents
    /// response, pretty-printed or not), or an array of them; anything else skips the file.
    private func document(_ reader: LineReader, source: String, _ reading: Reading, into run: inout Run) throws {
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = try reader.rest(limit: reader.maxLineBytes)
        } catch let error as FieldpackError {
            return reject(Finding(path: source, reason: error.message), counting: reading.counting, into: &run)
        }
        if let damage = reader.damage {
            return reject(Finding(path: source, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
        }
        let root: JSONValue
        do {
            root = try reading.parser.parse(bytes)
        } catch let error as JSONSyntaxError {
            return reject(Finding(path: source, reason: "not JSON: \(error.message)"), counting: reading.counting, into: &run)
        }
        if reading.counting { run.summary.bytes += bytes.count }
        if root.isArray {
            var index = 0
            for element in root.elements {
                if index == 0 && !EnterpriseLine.isArticle(element) {
                    return skipFile(source, "a JSON array whose first element is not a Wikipedia article (no \"article_body\")", reading, into: &run)
                }
                if reading.counting { run.summary.lines += 1 }
                try record(element, source: source, line: nil, record: "[\(index)]", reading, into: &run)
                for (article, result) in reading.pool.collect() { finish(article, result, into: &run) }
                index += 1
            }
            if index == 0 { skipFile(source, "an empty JSON array", reading, into: &run) }
        } else if EnterpriseLine.isArticle(root) {
            if reading.counting { run.summary.lines += 1 }
            try record(root, source: source, line: nil, record: nil, reading, into: &run)
        } else {
            skipFile(source, "JSON that is not a Wikipedia article (no \"article_body\")", reading, into: &run)
        }
    }

    /// One article object, from a line or a document: kept for a blurb if it is wanted.
    private func record(
        _ value: JSONValue, source: String, line: Int?, record: String?, _ reading: Reading, into run: inout Run
    ) throws {
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
        if let language = fields.language, language != wanted.language {
            if reading.counting { run.summary.skipped += 1 }
            return
        }
        let title = WikiTitle.normalize(fields.name)
        let isWanted = wanted.titles[title] != nil || fields.wikidata.map { wanted.wikidata[$0.uppercased()] != nil } ?? false
            || fields.redirects.contains { wanted.titles[WikiTitle.normalize($0)] != nil }
        guard isWanted, let html = fields.html else {
            if reading.counting { run.summary.skipped += 1 }
            return
        }
        run.summary.htmlBytes += html.count
        let article = Article(
            title: title, pageID: fields.pageID, revision: fields.revision, modified: fields.modified,
            url: fields.url ?? Self.url(of: title, language: wanted.language), wikidata: fields.wikidata,
            statedLicense: fields.license, source: source, line: line, record: record,
            blurb: Blurb(kind: .article, html: "", summary: "", title: nil, sections: 0))
        for alias in fields.redirects {
            let normalized = WikiTitle.normalize(alias)
            if wanted.titles[normalized] != nil { run.redirects[normalized] = title }
        }
        reading.pool.submit(BlurbPool.Job(article: article, html: Array(html.bytes)))
    }

    /// An HTML page: titled by its `<title>` (without " - Wikipedia"), else by the address it
    /// gives for itself, else by its file name; its page id, revision, date and licence are what
    /// its HTML says (`PageMetadata`).
    private func page(_ reader: LineReader, source: String, fileName: String, _ reading: Reading, into run: inout Run) throws {
        let limit = options.rules.maximumArticleBytes
        let bytes: UnsafeRawBufferPointer
        do {
            bytes = try reader.rest(limit: limit)
        } catch is FieldpackError {
            return reject(Finding(path: source, reason: "the page is over the \(limit)-byte limit for one article"), counting: reading.counting, into: &run)
        }
        if let damage = reader.damage {
            return reject(Finding(path: source, reason: "truncated: \(damage.message)"), counting: reading.counting, into: &run)
        }
        if reading.counting {
            run.summary.lines += 1
            run.summary.bytes += bytes.count
        }
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
        var name = String(fileName.split(separator: "/").last ?? "")
        if let dot = name.lastIndex(of: ".") { name = String(name[..<dot]) }
        if let fromURL = blurb.page.url.flatMap(WikiTitle.fromURL) { name = fromURL.title }
        if var title = blurb.title {
            for suffix in [" - Wikipedia", " — Wikipedia"] where title.hasSuffix(suffix) { title = String(title.dropLast(suffix.count)) }
            name = title
        }
        let title = WikiTitle.normalize(name)
        let wanted = reading.wanted
        guard wanted.titles[title] != nil || blurb.page.wikidata.map({ wanted.wikidata[$0.uppercased()] != nil }) ?? false else {
            if reading.counting { run.summary.skipped += 1 }
            return
        }
        run.summary.htmlBytes += bytes.count
        var article = Article(
            title: title, pageID: nil, revision: nil, modified: nil, url: blurb.page.url ?? Self.url(of: title, language: wanted.language),
            wikidata: nil, statedLicense: nil, source: source, line: nil, record: nil, blurb: blurb)
        article.complete(with: blurb.page)
        keep(&article, into: &run)
    }
}
