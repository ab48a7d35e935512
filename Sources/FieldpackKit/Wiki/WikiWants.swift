/// The articles the bundle needs: the taxa's `wikipedia_url` titles (from the deduped iNat
/// records) and the pipeline's destinations (a `wikipedia` title or a Wikidata `wikidata` QID),
/// each with who asked for it. Titles are compared normalized (`WikiTitle.normalize`).
public struct WikiWants: Sendable {
    public enum Requester: Hashable, Sendable, Comparable {
        case taxon(Int64)
        case destination(String)
    }

    public private(set) var titles: [String: RequesterSet] = [:]
    public private(set) var wikidata: [String: RequesterSet] = [:]
    public internal(set) var language: String

    public init(language: String) {
        self.language = language
    }

    public mutating func want(title: String, by requester: Requester) {
        titles[WikiTitle.normalize(title, language: language), default: []].insert(requester)
    }

    /// Wants `title` read, for no requester of its own (an article found by its Wikidata item,
    /// read again for its other copies: its requesters are the item's, whichever title wins).
    mutating func want(title: String) {
        let title = WikiTitle.normalize(title, language: language)
        if titles[title] == nil { titles[title] = [] }
    }

    public mutating func want(wikidata id: String, by requester: Requester) {
        wikidata[id.uppercased(), default: []].insert(requester)
    }

    /// Adds everything `other` wants.
    public mutating func add(_ other: WikiWants) {
        for (title, requesters) in other.titles { titles[title, default: []].formUnion(requesters) }
        for (id, requesters) in other.wikidata { wikidata[id, default: []].formUnion(requesters) }
    }

    public var isEmpty: Bool { titles.isEmpty && wikidata.isEmpty }
    public var count: Int { titles.count + wikidata.count }

    /// Adds the taxa of a deduped records file whose `wikipedia_url` is an article in `language`.
    /// Taxa come before users, observations and photos in that file, so reading stops there.
    public mutating func addTaxa(fromDeduped path: String) throws {
        let reader = LineReader(source: try RawFileSource(path: path))
        let parser = JSONParser()
        var columns = JSONColumns()
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            guard let kind = RecordKind.of(line.bytes) else {
                throw FieldpackError(path: path, line: line.number, "not a deduped record")
            }
            if kind == .input { continue }
            if kind != .taxon { break }
            do {
                _ = columns.load(try parser.parse(line.bytes))
            } catch {
                throw FieldpackError(path: path, line: line.number, "not valid JSON: \(error)")
            }
            guard let id = columns.int64(TaxonRecord.Column.id), let url = columns.string(TaxonRecord.Column.wikipediaURL),
                  let article = WikiTitle.fromURL(url), article.language == language
            else { continue }
            want(title: article.title, by: .taxon(id))
        }
    }
}

extension ArticleRecord {
    /// Sets the taxa and destinations that asked for the article, ascending.
    mutating func setRequesters(_ requesters: WikiWants.RequesterSet) {
        let sorted = requesters.sorted()
        taxa = sorted.compactMap { if case .taxon(let id) = $0 { id } else { nil } }
        destinations = sorted.compactMap { if case .destination(let id) = $0 { id } else { nil } }
    }
}

extension WikiWants {
    /// The pipeline at `path`, and what its destinations want from Wikipedia, in its language.
    /// The destinations go straight into the wants as they are read: the pipeline returned has
    /// none (`Pipeline.load(_:destinations:)`).
    public static func loading(pipeline path: String) throws -> (pipeline: Pipeline, wants: WikiWants) {
        var wants = WikiWants(language: "")
        let pipeline = try Pipeline.load(path, for: .wiki) { destination in
            if let title = destination.wikipedia { wants.want(title: title, by: .destination(destination.id)) }
            if let id = destination.wikidata { wants.want(wikidata: id, by: .destination(destination.id)) }
        }
        wants.language = pipeline.wikipediaLanguage
        return (pipeline, wants)
    }
}
