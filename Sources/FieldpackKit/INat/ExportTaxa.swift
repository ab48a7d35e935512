/// Which taxa a selection's taxon rule keeps, read from the export's taxa tables before any
/// observation, so that ingest applies the taxon rule too: a one-group guide of the whole export
/// then writes only that group's observations and links, not every one for the bundle to remove.
///
/// The bundle decides an observation's taxon on the taxon it loads (`LoadSelection`): the copy
/// dedupe picks among the rows of that id. So the rule is decided here only when that copy's
/// choice cannot matter: every input is an export table (no API taxon can win), and every row
/// of a taxon that ingest writes gives the same answer (its ancestry and rank as ingest writes
/// them: a malformed ancestry is dropped). A taxon no row names is not loaded, so not kept, as
/// in the bundle. Two exports of different dates whose taxonomy moved a taxon across the rule's
/// line disagree: then the bundle applies the rule, as before.
///
/// Memory: two `IDSet`s while the tables are read (a bit per id each: about 0.5 MB, up to twice that, for
/// iNaturalist's ids, below two million), then one.
struct ExportTaxa: Sendable {
    private let kept: IDSet

    /// Whether the rule keeps the taxon (false without one).
    @inline(__always)
    func keeps(_ taxon: Int64?) -> Bool { kept.contains(taxon) }

    /// What the taxa tables decide: which taxa the rule keeps, or the first taxon (in the
    /// tables' order) whose rows disagree.
    enum Reading {
        case decided(ExportTaxa)
        case disagree(taxon: Int64)
    }

    /// The taxa tables' rows taken one by one, in the tables' order (the rows of an export's
    /// archive as its members are listed, `ExportTableFile.tables(inArchive:taxa:judging:)`).
    struct Reader {
        let rule: TaxonRule
        // Each taxon's answers so far (in both: its rows disagree).
        private var kept = IDSet(), removed = IDSet()
        private var disagreeing: Int64? = nil

        init(rule: TaxonRule) { self.rule = rule }

        /// Takes a taxa row; false once two rows disagree (the rest need not be read).
        mutating func add(_ row: OpenDataRow, _ bytes: UnsafeRawBufferPointer) -> Bool {
            guard disagreeing == nil else { return false }
            guard let (id, keeps) = row.taxonDecision(bytes, by: rule) else { return true }
            if keeps { kept.insert(id) } else { removed.insert(id) }
            if kept.contains(id) && removed.contains(id) { disagreeing = id }
            return disagreeing == nil
        }

        /// What the rows taken so far decide.
        var reading: Reading { disagreeing.map { .disagree(taxon: $0) } ?? .decided(ExportTaxa(kept: kept)) }
    }
}
