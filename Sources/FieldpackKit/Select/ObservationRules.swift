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

    /// The values of a deduped observation line's columns (valid while its parse is).
    init(_ record: JSONColumns, taxonSelected: Bool) {
        typealias C = ObservationRecord.Column
        longitude = record.double(C.longitude)
        latitude = record.double(C.latitude)
        obscured = ObservationRecord.isObscured(record)
        self.taxonSelected = taxonSelected
        qualityGrade = record.text(C.qualityGrade)?.bytes
        observedOn = record.text(C.observedOn)?.bytes
    }

    /// The values of an observation record as ingest makes it, before it is written: the same
    /// values its line gives once read back (valid while its texts are).
    init(export record: ObservationRecord) {
        longitude = record.longitude
        latitude = record.latitude
        obscured = record.coordinatesObscured
        taxonSelected = false
        qualityGrade = record.qualityGrade?.bytes
        observedOn = record.observedOn?.bytes
    }
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
        if let rule = placeRule(observation) { return rule }
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

    /// The place rule that removes the observation, nil if none does: `places` when its point is
    /// in none of them (one without a point is in none), else `obscured` when it is obscured
    /// and `obscured` is `drop` (a user reading `places` would think its point outside).
    private func placeRule(_ observation: ObservedValues) -> String? {
        guard !places.isEmpty else { return nil }
        guard let longitude = observation.longitude, let latitude = observation.latitude,
              places.contains(longitude: longitude, latitude: latitude)
        else { return "places" }
        return obscured == .drop && observation.obscured ? "obscured" : nil
    }

    /// Whether `obscured` removes anything: `drop`, with places selected.
    var dropsObscured: Bool { !places.isEmpty && obscured == .drop }

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

/// The part of the observation rules applied before the bundle, so that what a guide leaves out
/// of a large dump is not written, read and parsed again by the later stages (see
/// `DedupeSelection`, `ExportLinkPruning`). Dedupe sees one observation at a time, without the
/// taxa, so it applies the rules that read only the observation's own values and that come
/// before the taxon rule in `SelectionCounts.rules` order, so an observation it removes is
/// counted under the rule the bundle would have counted it under: places always; quality grades
/// and the observed range too when there is no taxon rule.
///
/// When the taxon of every observation is known to be kept or not before the bundle
/// (`taxaKnown`: ingest read an export whose taxa tables agree on each taxon, and no other
/// input; see `ExportTaxa`), every rule applies: places, taxa, grades and the range. The bundle
/// applies every rule again to what reaches it.
extension Selection {
    /// The rules dedupe applies without the taxa, in `SelectionCounts.rules` order; empty: none.
    public var dedupeRules: [String] { dedupeRules(taxaKnown: false) }

    /// The rules applied before the bundle, in `SelectionCounts.rules` order; with `taxaKnown`,
    /// the taxon rule and the ones after it too.
    public func dedupeRules(taxaKnown: Bool) -> [String] {
        var rules: [String] = []
        if !places.isEmpty { rules.append("places") }
        if dropsObscured { rules.append("obscured") }
        if !taxa.isEmpty && taxaKnown { rules.append("taxa") }
        if taxa.isEmpty || taxaKnown {
            if !qualityGrades.isEmpty { rules.append("quality_grades") }
            if observedFrom != nil || observedTo != nil { rules.append("observed") }
        }
        return rules
    }

    /// The first of `dedupeRules(taxaKnown:)` that removes the observation, nil if none does.
    /// With `taxaKnown`, `observation.taxonSelected` must say whether its taxon is kept.
    func removingRuleInDedupe(_ observation: ObservedValues, taxaKnown: Bool = false) -> String? {
        if taxa.isEmpty || taxaKnown { return removingRule(observation) }
        return placeRule(observation)
    }

    /// The digest of `dedupeRules` (see `dedupeFingerprint(taxaKnown:)`).
    public var dedupeFingerprint: String { dedupeFingerprint(taxaKnown: false) }

    /// A digest of what `dedupeRules(taxaKnown:)` are (the boxes, the polygons' rings, the
    /// obscured rule, the taxon rule, the grades and the range they apply): dedupe writes it with
    /// its counts, and the bundle refuses deduped records whose rules are not its own pipeline's
    /// (`DedupeSelection`). Without a taxon rule, the same whatever `taxaKnown`.
    public func dedupeFingerprint(taxaKnown: Bool) -> String {
        let rules = dedupeRules(taxaKnown: taxaKnown)
        var writer = JSONWriter()
        writer.beginArray()
        for rule in rules { writer.string(rule) }
        if !places.isEmpty {
            writer.string(obscured.rawValue)
            for box in places.boxes {
                writer.beginArray()
                for value in [box.west, box.south, box.east, box.north] { writer.double(value) }
                writer.endArray()
            }
            for polygon in places.polygons {
                writer.beginArray()
                for ring in polygon.rings {
                    writer.beginArray()
                    for value in ring { writer.double(value) }
                    writer.endArray()
                }
                writer.endArray()
            }
        }
        if rules.contains("taxa") {
            for id in taxa.include.sorted() { writer.string("include \(id)") }
            for id in taxa.exclude.sorted() { writer.string("exclude \(id)") }
            for rank in taxa.ranks.sorted() { writer.string("rank \(rank)") }
        }
        if taxa.isEmpty || taxaKnown {
            for grade in qualityGrades { writer.string(grade) }
            if let observedFrom { writer.string("from \(observedFrom)") }
            if let observedTo { writer.string("to \(observedTo)") }
        }
        writer.endArray()
        return SHA256.hex(of: writer.bytes)
    }
}
