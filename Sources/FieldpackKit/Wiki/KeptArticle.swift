extension WikiStage {
    /// What a run holds in memory of a kept article: its Wikidata item (attaching the requesters
    /// of a wanted item needs it) and where the rest of it is in the run's spill file
    /// (`StoredArticle`). The title is the table's key.
    ///
    /// Choosing between two copies of a page reads the kept copy back (a page is seldom in the
    /// dumps twice), and the articles are read back one at a time when they are written, so
    /// memory holds 32 bytes inline per article and nothing on the heap for a QID (a string of
    /// at most 15 bytes is stored inline), whatever the article's metadata and blurb.
    struct KeptArticle: Sendable {
        var wikidata: String?
        var stored: SpillFile.Location
    }

    /// Appends `article` to the spill file: its blurb's HTML and summary, then its metadata
    /// (`StoredArticle`), which says where they are.
    func store(_ article: Article, in spill: SpillFile) throws -> KeptArticle {
        var article = article
        if article.stored == nil {
            article.stored = StoredBlurb(html: try spill.append(article.blurb.html), summary: try spill.append(article.blurb.summary))
        }
        let bytes = StoredArticle.encode(article)
        let location = try bytes.withUnsafeBytes { try spill.append($0) }
        return KeptArticle(wikidata: article.wikidata, stored: location)
    }

    /// A kept article read back from the spill file: its metadata, with its blurb's HTML and
    /// summary left in the file (`stored`; `record(of:spill:language:)` reads them).
    func article(_ kept: KeptArticle, in spill: SpillFile) throws -> Article {
        try spill.withBytes(at: kept.stored) { try StoredArticle.decode($0, from: spill.folder) }
    }
}

/// The layout of a kept article's metadata in the run's spill file: every field of
/// `WikiStage.Article` a run writes or decides with, except the blurb's text (stored before it,
/// at `stored`). Integers are 8 bytes little-endian; an optional is a byte (0 none, 1 some) and
/// then the value; a string is its UTF-8 length and bytes; a list is its count and elements.
enum StoredArticle {
    static func encode(_ article: WikiStage.Article) -> [UInt8] {
        var out = Encoder()
        out.string(article.title)
        out.int(article.pageID)
        out.int(article.revision)
        out.string(article.modified)
        out.string(article.url)
        out.string(article.wikidata)
        out.string(article.statedLicense)
        out.string(article.source)
        out.int(article.line.map(Int64.init))
        out.string(article.record)
        out.int(Int64(article.blurb.sections))
        let stored = article.stored ?? WikiStage.StoredBlurb(html: .init(offset: 0, count: 0), summary: .init(offset: 0, count: 0))
        for location in [stored.html, stored.summary] {
            out.int(location.offset)
            out.int(Int64(location.count))
        }
        out.int(Int64(article.matched.count))
        for title in article.matched { out.string(title) }
        out.int(Int64(article.htmlBytes))
        return out.bytes
    }

    /// - Throws: `FieldpackError` naming `folder` if the bytes end early (a damaged scratch file).
    static func decode(_ bytes: UnsafeRawBufferPointer, from folder: String) throws -> WikiStage.Article {
        var input = Decoder(bytes: bytes, folder: folder)
        let title = try input.string()
        let pageID = try input.optionalInt()
        let revision = try input.optionalInt()
        let modified = try input.optionalString()
        let url = try input.string()
        let wikidata = try input.optionalString()
        let statedLicense = try input.optionalString()
        let source = try input.string()
        let line = try input.optionalInt().map(Int.init)
        let record = try input.optionalString()
        let sections = Int(try input.int())
        var locations: [SpillFile.Location] = []
        for _ in 0..<2 { locations.append(SpillFile.Location(offset: try input.int(), count: Int(try input.int()))) }
        var article = WikiStage.Article(
            title: title, pageID: pageID, revision: revision, modified: modified, url: url, wikidata: wikidata,
            statedLicense: statedLicense, source: source, line: line, record: record,
            blurb: Blurb(kind: .article, html: "", summary: "", title: nil, sections: sections))
        article.stored = WikiStage.StoredBlurb(html: locations[0], summary: locations[1])
        let matched = Int(try input.int())
        for _ in 0..<max(0, matched) { article.matched.append(try input.string()) }
        article.htmlBytes = Int(try input.int())
        return article
    }

    private struct Encoder {
        var bytes: [UInt8] = []

        mutating func int(_ value: Int64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func int(_ value: Int64?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { int(value) }
        }

        mutating func string(_ value: String) {
            int(Int64(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }

        mutating func string(_ value: String?) {
            bytes.append(value == nil ? 0 : 1)
            if let value { string(value) }
        }
    }

    private struct Decoder {
        let bytes: UnsafeRawBufferPointer
        let folder: String
        var at = 0

        mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count >= 0, count <= bytes.count - at else {
                throw FieldpackError(path: folder, "a scratch file's article record ends early (byte \(at) of \(bytes.count))")
            }
            defer { at += count }
            return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + count)])
        }

        mutating func int() throws -> Int64 {
            var value: Int64 = 0
            let raw = try take(8)
            withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: raw) }
            return Int64(littleEndian: value)
        }

        mutating func isPresent() throws -> Bool { try take(1)[0] != 0 }

        mutating func optionalInt() throws -> Int64? {
            guard try isPresent() else { return nil }
            return try int()
        }

        mutating func string() throws -> String {
            let count = Int(try int())
            return String(decoding: try take(count), as: UTF8.self)
        }

        mutating func optionalString() throws -> String? {
            guard try isPresent() else { return nil }
            return try string()
        }
    }
}
