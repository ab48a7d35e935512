extension RecordExtractor {
    /// An element of a `/v1/observations/species_counts` page, `{"count": 12, "taxon": {…}}`: the
    /// taxon (and its default photo), carrying the count (`TaxonRecord.speciesCount`).
    ///
    /// - Throws: `RecordError` when the taxon is missing or the count is not a non-negative integer.
    mutating func speciesCount(_ element: Fields, source: String) throws(RecordError) {
        guard let taxon = try element.object("taxon") else { throw .missing(element.name("taxon")) }
        guard let count = try element.int("count") else { throw .missing(element.name("count")) }
        guard count >= 0 else {
            throw RecordError(at: element.name("count"), "\(element.name("count")) is \(count), expected a count of 0 or more")
        }
        write(try self.taxon(taxon, seen: nil, from: .speciesCount(count)), source: source)
    }
}

extension TaxonRecord.Origin {
    init(_ origin: RecordExtractor.TaxonOrigin) {
        switch origin {
        case .taxa: self = .taxa
        case .observation, .ancestor: self = .observation
        case .speciesCount: self = .speciesCounts
        }
    }
}
