/// The pipeline's `select`, as far as dedupe applies it: each winning observation is judged on
/// its own values by `Selection.dedupeRules` (places; quality grades and the observed range too
/// when there is no taxon rule), and one they remove is not written, nor its photo links. When
/// ingest decided the taxon rule (`ExportTaxa`: its inputs' records say so, by the digest they
/// were pruned under), the rules are `Selection.dedupeRules(taxaKnown: true)`: every export copy
/// is marked with the rule that removes it, which dedupe takes as it is, and judges only the
/// places itself (it has no taxa). What
/// they removed is counted in a `select` line after the observations (`DedupedSelectionRecord`),
/// which the bundle adds to its own counts, so the report is the one the bundle alone would
/// make; the bundle applies every rule again to what reaches it.
///
/// A regional guide of a large dump so writes, and the bundle reads, its own share of the
/// observations, not the whole dump's. Photos, taxa and users are written as before: which photos
/// the kept observations link is known only across every part (the bundle counts the others as
/// not selected without deciding them).
struct DedupeSelection: Sendable {
    let selection: Selection
    let rules: [String]
    let fingerprint: String
    /// Ingest applied the taxon rule (`ExportTaxa`): every input must be an export table.
    let taxaKnown: Bool

    /// Nil when the selection has no rule dedupe applies.
    ///
    /// - Parameter taxaKnown: ingest decided the taxon rule (`ExportRules`).
    init?(_ selection: Selection?, taxaKnown: Bool = false) {
        guard let selection, !selection.dedupeRules(taxaKnown: taxaKnown).isEmpty else { return nil }
        self.selection = selection
        rules = selection.dedupeRules(taxaKnown: taxaKnown)
        fingerprint = selection.dedupeFingerprint(taxaKnown: taxaKnown)
        self.taxaKnown = taxaKnown
    }

    /// The judge for records whose inputs were pruned under the digests `pruned` (their input
    /// records' `pruned`): the one that decided the taxon rule when any was (`checkPruning`
    /// refuses the others), else the one without.
    init?(_ selection: Selection?, pruned: [String]) {
        let taxaKnown = selection.map { !$0.taxa.isEmpty && pruned.contains($0.dedupeFingerprint(taxaKnown: true)) } ?? false
        self.init(selection, taxaKnown: taxaKnown)
    }

    /// Adds to `photos` the photos a deduped record refers to, as the bundle reads them: an
    /// observation's linked photos, a taxon's default photo and photo list. A photo no written
    /// record refers to is one the bundle counts as not selected.
    static func addPhotoReferences(of record: JSONColumns, kind: RecordKind, to photos: inout [Int64]) {
        switch kind {
        case .observation:
            guard let links = record[ObservationRecord.Column.photos], links.isArray else { return }
            for link in links.elements {
                var pair = link.elements.makeIterator()
                if let photo = pair.next()?.int64 { photos.append(photo) }
            }
        case .taxon:
            if let photo = record.int64(TaxonRecord.Column.defaultPhoto) { photos.append(photo) }
            if let list = record[TaxonRecord.Column.photos], list.isArray {
                for photo in list.elements { if let id = photo.int64 { photos.append(id) } }
            }
        default: break
        }
    }

    /// An empty count of what the rules removed.
    func emptyCounts() -> DedupedSelectionRecord {
        DedupedSelectionRecord(fingerprint: fingerprint, rules: rules)
    }

    /// The index in `rules` of the rule that removes the observation of a record's columns.
    func removingRule(_ record: JSONColumns) -> Int? {
        // Without the taxa even when ingest applied the taxon rule: its marks say what it removed.
        guard let rule = selection.removingRuleInDedupe(ObservedValues(record, taxonSelected: false), taxaKnown: false) else { return nil }
        return rules.firstIndex(of: rule)
    }

    /// The rule that removes the observation of a deduped record's columns, and its `seen`.
    func removes(_ record: JSONColumns) -> (rule: String, seen: Int64?)? {
        guard let rule = selection.removingRuleInDedupe(ObservedValues(record, taxonSelected: false), taxaKnown: false) else { return nil }
        return (rule, record.int64(ObservationRecord.Column.seen))
    }
}
