/// Loads the wiki stage's articles (`wiki/articles.jsonl`, sorted by title) into `articles`,
/// numbering them in that order, and the pipeline's destinations into `destinations`; returns
/// each taxon's article id for the taxa rows.
struct ArticleLoader {
    let path: String

    func load(into database: Database, destinations: [Destination]) throws -> (byTaxon: [Int64: Int64], count: Int) {
        let insert = try database.prepare("""
            INSERT INTO articles (id, title, language, url, page_id, revision, modified, wikidata_id, license, sections,
                                  summary, blurb_html)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let reader = LineReader(source: try RawFileSource(path: path))
        let parser = JSONParser()
        var byTaxon: [Int64: Int64] = [:]
        var byDestination: [String: Int64] = [:]
        var id: Int64 = 0
        var previous: String? = nil
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            let record = try parser.parse(line, in: path)
            guard let title = record["title"]?.string, let url = record["url"]?.string,
                  let html = record["html"]?.text, let summary = record["summary"]?.text
            else { throw FieldpackError(path: path, line: line.number, "an article needs a title, url, html and summary") }
            if let previous, !Array(previous.utf8).lexicographicallyPrecedes(Array(title.utf8)) {
                throw FieldpackError(path: path, line: line.number, "articles are not sorted by title (\"\(title)\" after \"\(previous)\")")
            }
            previous = title
            id += 1
            try insert.bind([
                .integer(id), .text(title), .text(record["language"]?.string ?? "en"), .text(url),
                record["page_id"]?.int64.map { .integer($0) } ?? .null,
                record["revision"]?.int64.map { .integer($0) } ?? .null,
                record["modified"]?.string.map { .text($0) } ?? .null,
                record["wikidata"]?.string.map { .text($0) } ?? .null,
                .text(record["license"]?.string ?? "CC-BY-SA-4.0"), .integer(record["sections"]?.int64 ?? 0),
                .text(summary.string), .text(html.string),
            ])
            try insert.run()
            for taxon in record["taxa"]?.elements.compactMap(\.int64) ?? [] { byTaxon[taxon] = id }
            for destination in record["destinations"]?.elements.compactMap(\.string) ?? [] { byDestination[destination] = id }
        }
        let place = try database.prepare(
            "INSERT INTO destinations (id, name, wikipedia_title, wikidata_id, article_id) VALUES (?, ?, ?, ?, ?)")
        for destination in destinations.sorted(by: { $0.id < $1.id }) {
            try place.bind([
                .text(destination.id), .text(destination.name), destination.wikipedia.map { .text($0) } ?? .null,
                destination.wikidata.map { .text($0) } ?? .null, byDestination[destination.id].map { .integer($0) } ?? .null,
            ])
            try place.run()
        }
        return (byTaxon, Int(id))
    }
}
