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
/// Memory: two bits per taxon id up to the largest (iNaturalist's ids are below two million:
/// under 0.5 MB), while the tables are read; then one. An id of 2^27 or more (none in
/// iNaturalist) is held in a dictionary instead.
struct ExportTaxa: Sendable {
    /// Bit `id` set: the rule keeps taxon `id` (ids below `bitmapLimit`).
    private let kept: [UInt64]
    /// The kept ids from `bitmapLimit` up.
    private let keptLarge: Set<Int64>

    static let bitmapLimit: Int64 = 1 << 27

    /// Whether the rule keeps the taxon (false without one).
    @inline(__always)
    func keeps(_ taxon: Int64?) -> Bool {
        guard let taxon, taxon > 0 else { return false }
        guard taxon < Self.bitmapLimit else { return keptLarge.contains(taxon) }
        let word = Int(taxon >> 6)
        return word < kept.count && kept[word] & (1 << UInt64(taxon & 63)) != 0
    }

    /// Reads the taxa tables; nil when two of a taxon's rows disagree.
    ///
    /// - Throws: when a table cannot be read (never an early end).
    static func read(tables: [(path: String, header: OpenDataTable.Header)], rule: TaxonRule) throws -> ExportTaxa? {
        // Each taxon's answers so far: a bit in `kept` or in `removed` (both: they disagree).
        var kept: [UInt64] = [], removed: [UInt64] = []
        var large: [Int64: Bool] = [:]
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
                    guard let (id, keeps) = row.taxonDecision(bytes, by: rule) else { continue }
                    if id >= bitmapLimit {
                        if let earlier = large.updateValue(keeps, forKey: id), earlier != keeps { return nil }
                        continue
                    }
                    let (word, bit) = (Int(id >> 6), UInt64(1) << UInt64(id & 63))
                    if word >= kept.count {
                        let count = max(word + 1, kept.count * 2)
                        kept += repeatElement(0, count: count - kept.count)
                        removed += repeatElement(0, count: count - removed.count)
                    }
                    if keeps { kept[word] |= bit } else { removed[word] |= bit }
                    if kept[word] & removed[word] & bit != 0 { return nil }
                }
            } catch let error as FieldpackError where error.path == nil {
                throw FieldpackError(path: table.path, error.message)
            }
        }
        return ExportTaxa(kept: kept, keptLarge: Set(large.filter(\.value).keys))
    }
}
