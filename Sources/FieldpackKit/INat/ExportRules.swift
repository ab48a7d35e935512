/// The selection's rules ingest judges an export observations row by (`ExportLinkPruning`):
/// `Selection.dedupeRules(taxaKnown:)`, with the taxon rule among them when the export's taxa
/// tables decide it (`taxa`).
struct ExportRules: Sendable {
    let selection: Selection
    /// Which taxa the taxon rule keeps; nil: the taxon rule is left to the bundle.
    let taxa: ExportTaxa?

    /// The rules applied, in `SelectionCounts.rules` order.
    var rules: [String] { selection.dedupeRules(taxaKnown: taxa != nil) }

    /// Their digest, which dedupe and the bundle check (`Selection.dedupeFingerprint(taxaKnown:)`).
    var fingerprint: String { selection.dedupeFingerprint(taxaKnown: taxa != nil) }

    /// The rule that removes an export observation with the values of `record`, nil if they keep it.
    func removingRule(_ record: ObservationRecord) -> String? {
        var values = ObservedValues(export: record)
        if let taxa { values.taxonSelected = taxa.keeps(record.taxon) }
        return selection.removingRuleInDedupe(values, taxaKnown: taxa != nil)
    }
}
