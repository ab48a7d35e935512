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

    /// Each article in title order, with where it was read.
    private func forEachArticle(_ body: (ArticleRecord, String, Int) throws -> Void) throws {
        if paths.count == 1, !FileSystem.isDirectory(paths[0]) {
            let path = paths[0]
            let reader = LineReader(source: try RawFileSource(path: path))
            let parser = JSONParser()
            while let line = try reader.next() {
                if line.bytes.isEmpty { continue }
                try body(try ArticleRecord(decoding: try parser.parse(line, in: path), path: path, line: line.number), path, line.number)
            }
        } else {
            try WikiMerge(parts: paths).forEachArticle(body)
        }
    }

    func load(into database: Database, destinations: [Destination]) throws -> (byTaxon: [Int64: Int64], count: Int) {
        let insert = try database.prepare(ArticleRecord.insertSQL)
        var byTaxon: [Int64: Int64] = [:]
        var byDestination: [String: Int64] = [:]
        var id: Int64 = 0
        var previous: String? = nil
        try forEachArticle { article, path, line in
            let title = article.title
            if let previous, !Array(previous.utf8).lexicographicallyPrecedes(Array(title.utf8)) {
                throw FieldpackError(path: path, line: line, "articles are not sorted by title (\"\(title)\" after \"\(previous)\")")
            }
            previous = title
            id += 1
            let values = [SQLValue.integer(id)] + article.bundleValues
            precondition(values.count == insert.parameterCount, "an article binds \(values.count) of \(insert.parameterCount) parameters")
            do {
                try insert.bind(values)
                try insert.run()
            } catch let error as SQLiteError {
                throw error.inserting(values, from: path, line: line)
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
