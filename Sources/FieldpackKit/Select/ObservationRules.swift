/// What the observation rules of a selection read of one observation, as the bundle loads it:
/// the values its `observations` row gets, and whether the taxon it loads with is one the taxon
/// rule keeps.
struct ObservedValues {
    var longitude: Double?
    var latitude: Double?
    var obscured: Bool
    /// The loaded taxon is a loaded taxon that `Selection.taxa` keeps (false without a taxon).
    var taxonSelected: Bool
    var qualityGrade: UnsafeRawBufferPointer?
    var observedOn: UnsafeRawBufferPointer?
}

/// The selection's rules that decide an observation on its own values: places, taxa, quality
/// grades and the observed range, in `SelectionCounts.rules` order. The bundle's load applies
/// them to each observation as it arrives (`RecordParser`), so an observation they remove is
/// never inserted and its photo links never held; `min_photos` and the caps, which compare the
/// observations kept, are SQL on the loaded rows (`BundleSelection`).
extension Selection {
    /// Whether any of the four rules is given.
    var hasObservationRules: Bool {
        !places.isEmpty || !taxa.isEmpty || !qualityGrades.isEmpty || observedFrom != nil || observedTo != nil
    }

    /// The first rule that removes the observation, nil if none does.
    func removingRule(_ observation: ObservedValues) -> String? {
        if !places.isEmpty && !inPlaces(observation) { return "places" }
        if !taxa.isEmpty && !observation.taxonSelected { return "taxa" }
        if !qualityGrades.isEmpty {
            guard let grade = observation.qualityGrade, qualityGrades.contains(where: { $0.utf8.elementsEqual(grade) }) else {
                return "quality_grades"
            }
        }
        if observedFrom != nil || observedTo != nil {
            guard let observed = observation.observedOn else { return "observed" }
            let day = Self.day(of: observed)
            if let from = observedFrom, day.lexicographicallyPrecedes(from.utf8) { return "observed" }
            if let to = observedTo, to.utf8.lexicographicallyPrecedes(day) { return "observed" }
        }
        return nil
    }

    /// An observation is in the places when its point is in one of them; one without a point is
    /// in none, nor is an obscured one when `obscured` is `drop`.
    private func inPlaces(_ observation: ObservedValues) -> Bool {
        guard let longitude = observation.longitude, let latitude = observation.latitude else { return false }
        if obscured == .drop && observation.obscured { return false }
        return places.contains(longitude: longitude, latitude: latitude)
    }

    /// The date part of an `observed_on` value: its first 10 characters (a time may follow the
    /// date); a shorter value whole. Compared byte by byte with the range's `YYYY-MM-DD`.
    static func day(of observed: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var characters = 0
        for (index, byte) in observed.enumerated() where byte & 0xC0 != 0x80 {
            if characters == 10 { return UnsafeRawBufferPointer(rebasing: observed[0..<index]) }
            characters += 1
        }
        return observed
    }
}
