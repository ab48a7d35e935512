/// The open-data export's two whole-job rules, applied by the bundle stage as each observation
/// loads: an export-only observation's id (`ExportIDs`), and an observer or taxon that no record
/// of any input has.
///
/// The export's observations name their observer and taxon by id only, in tables of their own
/// (an API observation carries both inside it). An `observer_id` or `taxon_id` of an observation
/// whose winning copy came from the export (it has an `ExportOrigin`) that no record of any input
/// has (the row was rejected, or the table is missing it) is dropped from the observation, which
/// is kept: a *salvaged* finding names the export file, the line and the id. (Its photo rows
/// name the same observer, who is credited: with no row for them either, those photos have
/// nobody to credit and do not ship.) Any other observation's missing parent is a foreign key
/// violation, as before. Both count only for an observation the selection keeps.
///
/// Both rules need every record of the job, which only the bundle stage sees (dedupe may run as
/// N shards or in spill partitions): taxa and users load before observations, so the loaded ids
/// (`ReferenceCheck`) say which exist, and the export-only uuids are read before the load.
struct ExportObservationRules {
    let ids: ExportIDs
    /// The findings, in load order (dedupe's key order: `RecordKey`'s signed high word, then
    /// the low one, so a uuid from `8` to `f` comes before one from `0` to `7`).
    private(set) var missing = MissingParents()

    init(ids: ExportIDs) {
        self.ids = ids
    }

    /// What an observation loads with, once `apply` has looked at it.
    struct Loaded {
        var id: Int64
        var user: Int64?
        var taxon: Int64?
        /// What it lost (an export observation's missing observer or taxon).
        var findings: [Finding] = []
        /// The foreign key violation of an observation not from the export whose observer or
        /// taxon has no row.
        var violation: ReferenceCheck.Violation? = nil
    }

    /// What an observation record loads with: its id, observer and taxon, the findings of what
    /// it lost and any violation. Both count only if it is kept (`keep`): a guide answers for the
    /// observations it ships, whether the selection removed the others in the bundle or before
    /// it, in dedupe.
    func apply(_ record: JSONColumns, id: Int64, references: ReferenceCheck, line: Int) -> Loaded {
        typealias C = ObservationRecord.Column
        var user = record.int64(C.user)
        var taxon = record.int64(C.taxon)
        guard let origin = ExportOrigin.of(record) else {
            var loaded = Loaded(id: id, user: user, taxon: taxon)
            if let user, references.position(of: user, in: .users) == nil {
                loaded.violation = .init(parent: .users, id: user, column: "observations.user_id", line: line)
            } else if let taxon, references.position(of: taxon, in: .taxa) == nil {
                loaded.violation = .init(parent: .taxa, id: taxon, column: "observations.taxon_id", line: line)
            }
            return loaded
        }
        var findings: [Finding] = []
        let loadedID = ExportIDs.exportOnlyUUID(record).map { ids.id(of: $0) } ?? id
        let uuid = record.string(C.uuid) ?? "?"
        if let observer = user, references.position(of: observer, in: .users) == nil {
            user = nil
            findings.append(Finding(
                path: origin.path, line: origin.line, field: "observer_id", outcome: .salvaged,
                reason: "observation \(uuid): observer_id \(observer) has no row in observers (nor an API copy); "
                    + "kept without its observer (user_id null), so its photos have no one to credit"))
        }
        if let parent = taxon, references.position(of: parent, in: .taxa) == nil {
            taxon = nil
            findings.append(Finding(
                path: origin.path, line: origin.line, field: "taxon_id", outcome: .salvaged,
                reason: "observation \(uuid): taxon_id \(parent) has no row in taxa (nor an API copy); kept without its taxon (taxon_id null)"))
        }
        return Loaded(id: loadedID, user: user, taxon: taxon, findings: findings)
    }

    /// An observation that is kept: throws its violation, counts its findings.
    mutating func keep(_ loaded: Loaded, references: ReferenceCheck) throws {
        if let violation = loaded.violation { throw references.error(violation) }
        for finding in loaded.findings { missing.add(finding, observation: loaded.id) }
    }
}

/// The missing-parent findings of the export's observations: all counted, the first `limit`
/// kept in full (in load order, dedupe's key order whatever the dedupe's split).
///
/// The load keeps an observation by the rules that read it alone; `min_photos` and the caps
/// then remove some in SQL (`BundleSelection`). A finding about one of those named an
/// observation the guide does not ship, so each finding's observation is kept (8 bytes a
/// finding, and the first `candidates` findings whole) until `keepOnly` drops theirs.
public struct MissingParents: Sendable, Equatable {
    public var count = 0
    public var shown: [Finding] = []
    public static let limit = 100
    /// The findings held whole, for `shown` after `keepOnly`.
    static let candidates = 10 * limit
    /// The observation of every finding, in order, and whether it lost its taxon (else its observer).
    private var observations: [Int64] = []
    private var lostTaxon: [Bool] = []
    private var held: [(observation: Int64, finding: Finding)] = []

    public init() {}

    /// Of `count`, the findings of an observer and of a taxon: the report shows them (they were
    /// said on standard error alone, and the page said nothing was salvaged).
    public var withoutObserver: Int { lostTaxon.count { !$0 } }
    public var withoutTaxon: Int { lostTaxon.count { $0 } }

    /// `bundle_info`'s rows of them (none when there are none).
    var bundleInfo: [(String, String)] {
        count == 0 ? [] : [("observations.without_observer", String(withoutObserver)), ("observations.without_taxon", String(withoutTaxon))]
    }

    mutating func add(_ finding: Finding, observation: Int64) {
        count += 1
        observations.append(observation)
        lostTaxon.append(finding.field == "taxon_id")
        if held.count < Self.candidates { held.append((observation, finding)) }
        if shown.count < Self.limit { shown.append(finding) }
    }

    /// Leaves out the findings about observations `isKept` says are gone. Past `candidates`
    /// findings whole, `shown` may hold fewer than `limit` when the selection removed many of
    /// them; `count` stays exact.
    mutating func keepOnly(_ isKept: (Int64) throws -> Bool) rethrows {
        var kept: [Int64] = []
        var keptLostTaxon: [Bool] = []
        for (observation, taxon) in zip(observations, lostTaxon) where try isKept(observation) {
            kept.append(observation)
            keptLostTaxon.append(taxon)
        }
        let gone = Set(observations).subtracting(kept)
        observations = kept
        lostTaxon = keptLostTaxon
        count = kept.count
        held.removeAll { gone.contains($0.observation) }
        shown = held.prefix(Self.limit).map(\.finding)
    }

    public static func == (a: MissingParents, b: MissingParents) -> Bool {
        a.count == b.count && a.shown == b.shown && a.observations == b.observations
    }
}
