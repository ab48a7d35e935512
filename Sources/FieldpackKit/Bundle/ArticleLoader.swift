/// Loads the wiki stage's articles (`wiki/articles.jsonl`, sorted by title, or the parts of a
/// sharded wiki stage, merged by `WikiMerge`) into `articles`, numbering them in that order, and
/// the pipeline's destinations into `destinations`; returns each taxon's article id for the taxa
/// rows.
struct ArticleLoader {
    /// One `articles.jsonl`, or wiki part folders (or folders of them).
    let paths: [String]

    init(path: String) {
        paths = [path]
    }

    init(paths: [String]) {
        self.paths = paths
    }

    /// Each article in title order, with its HTML's bytes (valid during the call) and where it
    /// was read. From one `articles.jsonl`, the record is read without its HTML, whose bytes are
    /// the parser's (`ArticleRecord.init(decodingAllButHTML:)`).
    private func forEachArticle(_ body: (ArticleRecord, UnsafeRawBufferPointer, String, Int) throws -> Void) throws {
        if paths.count == 1, !FileSystem.isDirectory(paths[0]) {
            let path = paths[0]
            let reader = LineReader(source: try RawFileSource(path: path))
            let parser = JSONParser()
            while let line = try reader.next() {
                if line.bytes.isEmpty { continue }
                let value = try parser.parse(line, in: path)
                let article = try ArticleRecord(decodingAllButHTML: value, path: path, line: line.number)
                try body(article, ArticleRecord.htmlText(of: value)!.bytes, path, line.number)
            }
        } else {
            try WikiMerge(parts: paths).forEachArticle { article, path, line in
                var html = article.html
                try html.withUTF8 { try body(article, UnsafeRawBufferPointer($0), path, line) }
            }
        }
    }

    func load(into database: Database, destinations: [Destination]) throws -> (byTaxon: [Int64: Int64], count: Int) {
        let insert = try database.prepare(ArticleRecord.insertSQL)
        var byTaxon: [Int64: Int64] = [:]
        var byDestination: [String: Int64] = [:]
        var id: Int64 = 0
        var previous: String? = nil
        precondition(ArticleRecord.htmlParameter == insert.parameterCount, "an article binds its HTML last")
        try forEachArticle { article, html, path, line in
            let title = article.title
            if let previous, !Array(previous.utf8).lexicographicallyPrecedes(Array(title.utf8)) {
                throw FieldpackError(path: path, line: line, "articles are not sorted by title (\"\(title)\" after \"\(previous)\")")
            }
            previous = title
            id += 1
            let values = [SQLValue.integer(id)] + article.bundleValuesButHTML
            do {
                // The HTML's bytes stay bound until `run` resets the statement.
                try insert.run {
                    try insert.bind(values)
                    try insert.bind(borrowing: html, at: ArticleRecord.htmlParameter)
                }
            } catch let error as SQLiteError {
                throw error.inserting(values + [.text(String(decoding: html, as: UTF8.self))], from: path, line: line)
            }
            for taxon in article.taxa { byTaxon[taxon] = id }
            for destination in article.destinations { byDestination[destination] = id }
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
