/// A place the app describes (a park, a reserve), from the pipeline's `destinations`.
public struct Destination: Sendable, Equatable {
    public var id: String
    public var name: String
    /// The article's title, or nil when the destination names a Wikidata item instead.
    public var wikipedia: String?
    public var wikidata: String?

    /// The keys of a destination in the pipeline file.
    static let keys = ["id", "name", "wikipedia", "wikidata"]
    /// Those the wiki stage reads: which article it wants, and for whom (`WikiWants`).
    static let wantKeys = ["id", "wikipedia", "wikidata"]

    public init(id: String, name: String, wikipedia: String?, wikidata: String?) {
        self.id = id
        self.name = name
        self.wikipedia = wikipedia
        self.wikidata = wikidata
    }
}
