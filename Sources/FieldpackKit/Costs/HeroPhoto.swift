/// Picks each taxon's hero photo: its default photo if that may ship, else the next best — its
/// taxon photos in their order, then photos of its research-grade observations, newest
/// observation first (ties: higher observation id, then lower position). Deterministic.
public enum HeroPhoto {
    public struct ObservationPhoto: Sendable, Equatable {
        public var photo: Int64
        public var observation: Int64
        /// The observation's `updated_at`, Unix ms.
        public var updated: Int64
        public var position: Int
        public var researchGrade: Bool

        public init(photo: Int64, observation: Int64, updated: Int64, position: Int, researchGrade: Bool) {
            self.photo = photo
            self.observation = observation
            self.updated = updated
            self.position = position
            self.researchGrade = researchGrade
        }
    }

    public static func choose(
        defaultPhoto: Int64?, taxonPhotos: [Int64], observationPhotos: [ObservationPhoto], ships: (Int64) -> Bool
    ) -> Int64? {
        if let defaultPhoto, ships(defaultPhoto) { return defaultPhoto }
        if let photo = taxonPhotos.first(where: ships) { return photo }
        let ranked = observationPhotos.filter { $0.researchGrade && ships($0.photo) }.sorted { a, b in
            if a.updated != b.updated { return a.updated > b.updated }
            if a.observation != b.observation { return a.observation > b.observation }
            if a.position != b.position { return a.position < b.position }
            return a.photo < b.photo
        }
        return ranked.first?.photo
    }
}
