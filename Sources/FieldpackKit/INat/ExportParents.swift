import Dispatch
import Synchronization

/// Which of the export's taxa and users ingest writes, when every input is an export table and it
/// prunes by a selection (`ExportLinkPruning.Singles`): only those a kept row may need. The others
/// are read and checked (their findings are the same) but not written, and counted once for the
/// whole job, each id once, in ingest's `select` line (`DedupedSelectionRecord.Column.taxaLeftOut`,
/// `.usersLeftOut`); the bundle adds them to the taxa it considered and the users it removed, so
/// the bundle and its report are the same bytes. A regional guide of the export keeps a few of
/// its taxa and observers, and every stage after ingest held all of them: at 10M observations
/// 59 of dedupe's 61 MB of occurrences were the 240,004 taxa and 500,000 observers.
///
/// What a kept row may need, a superset of what the bundle keeps or reads:
/// - users: the observer of every observations row the rules keep (the bundle keeps the users of
///   its kept observations), and the observer of every row of a photo that such a row may link,
///   or that has measured sizes (the bundle credits a photo it decides with its own row's
///   observer, who may be another user than its observation's, and dedupe may pick any row of
///   the photo as the winner);
/// - taxa: the taxon of every observations row the rules keep, every id in the ancestry of any
///   row of those taxa, and so on up, through the ancestors' own rows, until no row names another
///   (the bundle keeps its kept observations' taxa and all their ancestors, reading the lineages
///   of the ancestors in turn: rows of different dates may name different lineages).
/// A taxon or user outside these is never kept, linked or credited by the bundle, so leaving it
/// out changes nothing but what the bundle would have counted as considered or removed.
///
/// Memory: a bit per id (`IDSet`: about 1.25 MB for iNaturalist's user ids, 0.25 MB for its taxon
/// ids, up to twice that as the bitmap doubles) for the needed and for the seen ids of each kind,
/// per reading thread and merged; a Bloom filter of 4 MiB of the photos the kept rows link, per
/// photos range that links one and merged. The seen ids of an archive's taxa and observers are
/// held from its listing on (`Listed`). The observers of a repeated photo's other rows ride
/// beside the photo's key (`RepeatedKeys.Collector` with values). On disk, while the plan runs:
/// 16 bytes for each (taxon, ancestor) pair of an archive's taxa rows.
final class ExportParents: Sendable {
    let taxa: IDSet
    let users: IDSet
    /// The distinct ids of the export's taxa and observers tables not written.
    let taxaLeftOut: Int
    let usersLeftOut: Int
    /// The input (its index in ingest's inputs) whose first range writes the counts: the first
    /// taxa or observers table; nil when there is none.
    let countingInput: Int?

    init(taxa: IDSet, users: IDSet, taxaLeftOut: Int, usersLeftOut: Int, countingInput: Int?) {
        self.taxa = taxa
        self.users = users
        self.taxaLeftOut = taxaLeftOut
        self.usersLeftOut = usersLeftOut
        self.countingInput = countingInput
    }

    @inline(__always)
    func writes(taxon id: Int64) -> Bool { taxa.contains(id) }

    @inline(__always)
    func writes(user id: Int64) -> Bool { users.contains(id) }

    /// The photos the rows the rules keep link, by their key (`ExportLinkPruning.Singles.key`,
    /// the key the repeated keys sort them by; `BloomBits`). It never misses a linked photo; a
    /// photo it takes for linked by mistake only adds its observers to those written.
    struct Linked: Sendable {
        private var bits = BloomBits()

        @inline(__always)
        private static func hash(_ key: UInt64) -> UInt64 { BloomWord.mix(key ^ 0x5EED_F00D) }

        mutating func insert(photo key: UInt64) { bits.insert(Self.hash(key)) }

        @inline(__always)
        func mayContain(photo key: UInt64) -> Bool { bits.mayContain(Self.hash(key)) }

        mutating func formUnion(_ other: Linked) { bits.formUnion(other.bits) }
    }

    /// The taxa and observers rows of an archive's members, taken as the plan lists the archive
    /// (`ExportLinkPruning.plan`), before it knows which taxa the kept rows need: the ids seen,
    /// and each taxa row's ancestors, set aside on disk (`WordSpill`: 16 bytes a (taxon, ancestor)
    /// pair, about 230 MB for 1.5 million taxa at twelve ancestors each), so that the plan need
    /// not stream the archive again for them. Not thread-safe: the listing is one pass.
    struct Listed {
        fileprivate var seenTaxa = IDSet(), seenUsers = IDSet()
        fileprivate let ancestors: WordSpill
        private var batch: WordSpill.Batch

        init(in folder: String) throws {
            ancestors = try WordSpill(in: folder, rowWords: 2)
            batch = WordSpill.Batch(ancestors)
        }

        mutating func addTaxon(_ row: OpenDataRow, _ bytes: UnsafeRawBufferPointer) throws {
            guard let (id, ancestry) = row.taxonParents(bytes) else { return }
            seenTaxa.insert(id)
            try ExportParents.forEachAncestor(in: ancestry) { ancestor in
                try batch.add(UInt64(bitPattern: id))
                try batch.add(UInt64(bitPattern: ancestor))
            }
        }

        mutating func addObserver(_ row: OpenDataRow, _ bytes: UnsafeRawBufferPointer) {
            if let id = row.observerID(bytes) { seenUsers.insert(id) }
        }

        /// Writes out the pairs held; before they are read.
        mutating func flush() throws { try batch.flush() }
    }

    /// Calls `body` with each id of a taxa row's valid ancestry (`OpenDataRow.taxonParents`).
    private static func forEachAncestor(in ancestry: String?, _ body: (Int64) throws -> Void) throws {
        guard var ancestry else { return }
        try ancestry.withUTF8 { bytes in
            for ancestor in TaxonRule.ancestors(UnsafeRawBufferPointer(bytes)) where ancestor > 0 { try body(ancestor) }
        }
    }

    /// Reads the export's taxa and observers tables for the ids they hold, and returns what ingest
    /// writes of them: `taxa` with the ancestors of its taxa's rows, `users` as they are.
    ///
    /// - Parameters:
    ///   - tables: the taxa and observers tables, with their index among ingest's inputs.
    ///   - listed: the rows of those of them that are archive members, taken as the archives were
    ///     listed (`Listed`, flushed): those members are not read again.
    ///   - taxa: the taxa the kept rows name.
    ///   - users: the users the kept rows and their photos name.
    /// - Throws: when a table cannot be read (never an early end).
    static func read(
        tables: [(input: Int, file: ExportTableFile)], listed: Listed?, taxa needed: IDSet, users: IDSet
    ) throws -> ExportParents {
        var taxa = needed
        var seenTaxa = listed?.seenTaxa ?? IDSet(), seenUsers = listed?.seenUsers ?? IDSet()
        // The taxa whose rows' ancestries this pass reads, and the ancestors it finds that are not
        // yet in `taxa` (read in the next pass: usually none, as an ancestor's own lineage is a
        // part of its descendant's).
        var reading = needed
        var found = IDSet()
        func add(_ ancestor: Int64) {
            guard !taxa.contains(ancestor) else { return }
            taxa.insert(ancestor)
            found.insert(ancestor)
        }
        // An archive's members in its order, each archive read once (`forEachRow(in:)`).
        let all = tables.filter { listed == nil || $0.file.member == nil }.sorted {
            ($0.input, $0.file.member?.position ?? 0) < ($1.input, $1.file.member?.position ?? 0)
        }
        var first = true
        repeat {
            // Any row of a needed taxon: the one dedupe picks is among them.
            try listed?.ancestors.forEachPair { taxon, ancestor in
                if reading.contains(Int64(bitPattern: taxon)) { add(Int64(bitPattern: ancestor)) }
            }
            // After the first pass, the taxa tables only.
            let tablesRead = first ? all : all.filter { $0.file.header.table == .taxa }
            try OpenDataRow.forEachRow(in: tablesRead.map(\.file)) { index, row, bytes in
                if tablesRead[index].file.header.table == .taxa {
                    guard let (id, ancestry) = row.taxonParents(bytes) else { return true }
                    if first { seenTaxa.insert(id) }
                    if reading.contains(id) { try forEachAncestor(in: ancestry) { add($0) } }
                } else if let id = row.observerID(bytes) {
                    seenUsers.insert(id)
                }
                return true
            }
            (reading, found, first) = (found, IDSet(), false)
        } while !reading.isEmpty
        return ExportParents(
            taxa: taxa, users: users, taxaLeftOut: seenTaxa.count(notIn: taxa), usersLeftOut: seenUsers.count(notIn: users),
            countingInput: tables.map(\.input).min())
    }
}
