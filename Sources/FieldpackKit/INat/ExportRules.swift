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
/// Memory: a set of the kept ids, and the rows' ids while they are checked (about 16 bytes a
/// taxa row: the size of the taxonomy, not of the export).
struct ExportTaxa: Sendable {
    private let kept: Set<Int64>

    /// Whether the rule keeps the taxon (false without one).
    @inline(__always)
    func keeps(_ taxon: Int64?) -> Bool {
        guard let taxon else { return false }
        return kept.contains(taxon)
    }

    /// Reads the taxa tables; nil when two of a taxon's rows disagree.
    ///
    /// - Throws: when a table cannot be read (never an early end).
    static func read(tables: [(path: String, header: OpenDataTable.Header)], rule: TaxonRule) throws -> ExportTaxa? {
        var decisions: [(id: Int64, keeps: Bool)] = []
        for table in tables {
            let reader = LineReader(source: try openInput(table.path, hashing: false).source)
            var row = OpenDataRow(header: table.header, seen: nil)
            do {
                while let line = try reader.next() {
                    if line.number == 1 { continue }  // the header
                    var bytes = line.bytes
                    if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
                    // As ingest reads it: an incomplete row of a damaged stream is rejected.
                    if bytes.isEmpty || (line.unterminated && reader.damage != nil) { continue }
                    if let decision = row.taxonDecision(bytes, by: rule) { decisions.append(decision) }
                }
            } catch let error as FieldpackError where error.path == nil {
                throw FieldpackError(path: table.path, error.message)
            }
        }
        decisions.sort { $0.id < $1.id }
        var kept = Set<Int64>()
        var index = 0
        while index < decisions.count {
            let (id, keeps) = decisions[index]
            var next = index + 1
            while next < decisions.count && decisions[next].id == id {
                if decisions[next].keeps != keeps { return nil }
                next += 1
            }
            if keeps { kept.insert(id) }
            index = next
        }
        return ExportTaxa(kept: kept)
    }
}
