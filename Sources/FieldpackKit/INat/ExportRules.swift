/// The selection's rules ingest judges an export observations row by (`ExportLinkPruning`):
/// `Selection.dedupeRules(taxaKnown:)`, with the taxon rule among them when the export's taxa
/// tables decide it (`taxa`). A class: every export observations row is judged by it, and as a
/// struct (160 bytes) read through `ExportLinkPruning` it was copied for each.
final class ExportRules: Sendable {
    let selection: Selection
    /// Which taxa the taxon rule keeps; nil: the taxon rule is left to the bundle.
    let taxa: ExportTaxa?
    /// Whether a row with unknown values is kept (`removingRule`): when API pages are inputs too.
    let keepsUnknown: Bool

    init(selection: Selection, taxa: ExportTaxa?, keepsUnknown: Bool = false) {
        self.selection = selection
        self.taxa = taxa
        self.keepsUnknown = keepsUnknown
    }

    /// The rules applied, in `SelectionCounts.rules` order.
    var rules: [String] { selection.dedupeRules(taxaKnown: taxa != nil) }

    /// Their digest, which dedupe and the bundle check (`Selection.dedupeFingerprint(taxaKnown:)`).
    var fingerprint: String { selection.dedupeFingerprint(taxaKnown: taxa != nil) }

    /// The rule that removes an export observation with the values of `record`, nil if they keep it.
    /// With API pages among the inputs (`keepsUnknown`), a row with values it leaves unknown
    /// (`ObservationRecord.unknown`: dropped as unusable, a blank date) is kept: an API copy may
    /// give them when dedupe merges, and dedupe judges the merged copy (judged on its own blanks,
    /// its photo links were pruned here and the kept observation shipped without them). With
    /// only export tables, nothing can give them, and its own values judge it, as dedupe would.
    func removingRule(_ record: ObservationRecord) -> String? {
        if keepsUnknown && record.unknown != 0 { return nil }
        var values = ObservedValues(export: record)
        if let taxa { values.taxonSelected = taxa.keeps(record.taxon) }
        return selection.removingRuleInDedupe(values, taxaKnown: taxa != nil)
    }
}

extension ExportRules {
    /// How the rules judge an export observation while the taxa tables have not yet decided the
    /// taxon rule (`PendingObservations`).
    enum Pending {
        /// The places remove it, whatever the taxa decide.
        case removed
        /// Every rule but the taxon rule keeps it: kept when its taxon is.
        case keptIfTaxonKept
        /// The places keep it and another rule removes it: kept only when the taxa tables
        /// disagree, which leaves every rule but the places to the bundle.
        case keptIfTaxaDisagree
    }

    /// How `selection`'s rules, with a taxon rule the taxa tables are to decide, judge an export
    /// observation with the values of `record`.
    static func pending(_ selection: Selection, _ record: ObservationRecord) -> Pending {
        var values = ObservedValues(export: record)
        if selection.removingRuleInDedupe(values, taxaKnown: false) != nil { return .removed }
        values.taxonSelected = true
        return selection.removingRuleInDedupe(values, taxaKnown: true) == nil ? .keptIfTaxonKept : .keptIfTaxaDisagree
    }
}
