/// Each taxon's hero photo, among the photos that ship: its default photo, else its first taxon
/// photo (in their order), else the photo of its newest research-grade observation (by
/// `updated_at` in absolute time; ties to the higher observation id, then the lower position,
/// then the lower photo id). Deterministic whatever order the candidates are offered in.
struct HeroChoice {
    struct Candidate: Equatable {
        var updated: Int64
        var observation: Int64
        var position: Int64
        var photo: Int64

        /// Whether `self` ranks before `other`.
        func beats(_ other: Candidate) -> Bool {
            if updated != other.updated { return updated > other.updated }
            if observation != other.observation { return observation > other.observation }
            if position != other.position { return position < other.position }
            return photo < other.photo
        }
    }

    struct Choice: Equatable {
        var taxon: Int64
        var defaultPhoto: Int64?
        var hero: Int64
    }

    private var defaults: [Int64: Int64] = [:]
    private var firstTaxonPhotos: [Int64: Int64] = [:]
    private var observed: [Int64: Candidate] = [:]

    /// The taxon's default photo, which ships.
    mutating func defaultPhoto(taxon: Int64, photo: Int64) {
        defaults[taxon] = photo
    }

    /// A taxon photo that ships, offered in the taxon's order: the first one counts.
    mutating func taxonPhoto(taxon: Int64, photo: Int64) {
        if firstTaxonPhotos[taxon] == nil { firstTaxonPhotos[taxon] = photo }
    }

    /// A shipped photo of a research-grade observation of `taxon`.
    mutating func offer(taxon: Int64, _ candidate: Candidate) {
        if let best = observed[taxon], !candidate.beats(best) { return }
        observed[taxon] = candidate
    }

    /// Every taxon with a hero, by taxon id.
    func choices() -> [Choice] {
        let taxa = Set(defaults.keys).union(firstTaxonPhotos.keys).union(observed.keys).sorted()
        return taxa.map { taxon in
            let hero = defaults[taxon] ?? firstTaxonPhotos[taxon] ?? observed[taxon]!.photo
            return Choice(taxon: taxon, defaultPhoto: defaults[taxon], hero: hero)
        }
    }
}
