import Dispatch

/// Loads deduped records into the bundle tables: a producer thread parses lines into
/// `RecordBatch`es (deciding which photos ship, see `PhotoShippingLoad`) while this thread inserts
/// them with reused prepared statements. The caller wraps the load in one transaction. Records
/// arrive sorted by kind and id, so rows go in key order.
final class RecordLoader {
    let database: Database
    private var statements: [RecordBatch.Table: Statement] = [:]
    private(set) var records = 0
    private(set) var newestSeen: Int64? = nil
    private(set) var report: CostReport? = nil
    /// The export observations that lost an observer or taxon no record has (`ExportObservationRules`).
    private(set) var missingParents = MissingParents()
    /// With a selection: what its observation rules removed as the records loaded (`RecordParser`).
    private(set) var selected: SelectionCounts? = nil
    private var inputs: [DedupedInputRecord] = []
    private let progress: StageProgress

    /// The observations `ObservationOrder` inserts each time the loader finds no batch waiting
    /// (a few milliseconds' work).
    static let observationsPerTurn = 512

    init(database: Database, progress: StageProgress = .silent()) throws {
        self.database = database
        self.progress = progress
        for table in RecordBatch.Table.allCases { statements[table] = try database.prepare(table.sql) }
    }

    /// - Parameters:
    ///   - paths: the deduped records file, or the parts of a sharded dedupe (k-way merged, see
    ///     `MergedRecords`).
    ///   - articles: each taxon's article id (from `ArticleLoader`).
    ///   - space: where the photo links and the export's uuid hashes spill (see `PhotoShippingLoad`,
    ///     `ExportIDs`).
    ///   - selection: the pipeline's `select`, whose observation rules apply as the records load
    ///     (see `RecordParser`); `BundleSelection` applies the rest once they are in.
    ///   - exportID: the id of an observation known only by its uuid, before collisions are
    ///     settled (`ObservationUUID.exportID`; tests pass a hash that collides).
    func load(
        paths: [String], policy: ShippingPolicy, measured: MeasuredSizes?, articles: [Int64: Int64], space: SortSpace = .memory,
        selection: Selection? = nil, exportID: @escaping @Sendable (ObservationUUID) -> Int64 = { $0.exportID }
    ) throws {
        let trace = PhaseTrace(stage: "bundle")
        let channel = Channel<RecordBatch>(capacity: 3)
        // A batch inserted goes back to the parsing thread, emptied, to be filled again, if the
        // one before it was taken: one held spare. (Five spares, as many as are ever in flight,
        // took 18 MB more at the peak of the 1M API pages' bundle for no more time saved.)
        let emptied = Channel<RecordBatch>(capacity: 1)
        for path in paths { _ = try ReadableFile(path: path) }  // fail here, with the path, if it cannot be opened
        let places = RecordPlaces(paths: paths)
        let producer = DispatchGroup()
        let progress = self.progress
        let order = ObservationOrder(space: space)
        let links = LinkOrder(space: space)
        DispatchQueue.global().async(group: producer) {
            do {
                try RecordParser(
                    places: places, policy: policy, measured: measured, articles: articles, progress: progress, space: space,
                    selection: selection
                ).run(exportID: exportID, into: channel, emptied: emptied)
            } catch {
                channel.fail(error)
            }
        }
        // If an insert fails, the parser's next send throws and it stops; wait for it to be gone.
        defer {
            channel.close()
            producer.wait()
        }
        // Once the observations have all come, they go in while the loader would otherwise wait
        // for the next batch (the parse of the photos): a few at a time, so a batch waits little.
        // An error there waits until every batch is in, so that a load with two faults fails on the
        // same one whatever the timing: the rows' (and the parser's) first, as if the observations
        // had all gone in at the end. The photo links held out of key order go in last
        // (`LinkOrder`): an error of theirs (a repeated link) comes after all of those.
        var observationsLeft = false
        var observationsError: Error? = nil
        receiving: while true {
            let batch: RecordBatch
            if observationsLeft {
                switch try channel.receiveIfWaiting() {
                case .element(let next):
                    batch = next
                case .notYet:
                    do {
                        observationsLeft = try order.insert(upTo: Self.observationsPerTurn, with: statements[.observations]!, places: places)
                    } catch {
                        observationsError = error
                        observationsLeft = false
                    }
                    if !observationsLeft { trace.mark("load: the observations in id order, beside the rows after them") }
                    continue receiving
                case .finished:
                    break receiving
                }
            } else {
                guard let next = try channel.receive() else { break receiving }
                batch = next
            }
            for row in batch.rows {
                if row.table == .observations {
                    try order.add(batch, row)
                    continue
                }
                if row.table == .observationPhotos {
                    try links.add(batch, row, with: statements[.observationPhotos]!, places: places)
                    continue
                }
                let statement = statements[row.table]!
                do {
                    try batch.run(row, with: statement)
                } catch let error as SQLiteError {
                    throw error.inserting(batch.values(of: row), at: Int(row.line), of: places)
                }
            }
            records += batch.records
            progress.add(records: batch.records)
            if let seen = batch.newestSeen { newestSeen = max(newestSeen ?? seen, seen) }
            inputs += batch.inputs
            if let report = batch.report { self.report = report }
            if let missing = batch.missingParents { missingParents = missing }
            if let counts = batch.selected { selected = counts }
            let observationsEnded = batch.observationsEnded
            batch.reset()
            emptied.offer(batch)
            if observationsEnded {
                trace.mark("load: the rows through the observations")
                try order.endAdding()
                observationsLeft = true
            }
        }
        trace.mark("load: the rest of the rows")
        if let observationsError { throw observationsError }
        try order.insert(with: statements[.observations]!, places: places)
        trace.mark("load: the observations left")
        try links.insertHeld(with: statements[.observationPhotos]!, places: places)
        trace.mark("load: the photo links held back (\(links.heldCount) of \(links.heldCount + links.insertedAsTheyCame)), in key order")
    }

    /// The input files as a JSON array sorted by path: `[{"path","bytes","sha256"}]`.
    func inputsJSON() -> String {
        let entries = inputs.map { FileEntry(path: $0.path, bytes: Int($0.bytes ?? 0), sha256: $0.sha256 ?? "") }
        var writer = JSONWriter()
        FileEntry.write(
            entries.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// The producer half of the load: deduped JSON Lines → row batches, in file order.
///
/// With a selection, its observation rules (places, taxa, quality grades, the observed range;
/// see `Selection.removingRule`) decide each observation as it arrives: one they remove is
/// counted under the first such rule and not inserted, nor are its photo links, and a photo no
/// observation left links and no taxon refers to is counted as not selected and not inserted
/// (`PhotoShippingLoad`). A regional guide of a large dump so loads its own share, not the whole
/// dump. What is inserted is what `BundleSelection` would have kept of the whole load, so the
/// bundle is the same. What dedupe's share of the rules removed before (`DedupeSelection`) is
/// counted from its `select` lines; a removed observation leaves nothing else behind, so the
/// bundle is the same whichever stage removed it.
struct RecordParser {
    /// Where the records are: an error names its record's file and line (`RecordPlaces`); a
    /// row carries its place's number (`MergedRecords.placeNumber`), given as `line` below.
    let places: RecordPlaces
    let policy: ShippingPolicy
    let measured: MeasuredSizes?
    let articles: [Int64: Int64]
    let progress: StageProgress
    let space: SortSpace
    let selection: Selection?
    private let userColumns = UserRecord.Column.bundleColumns
    private let observationColumns = ObservationRecord.Column.bundleColumns
    private let taxonColumns = TaxonRecord.Column.bundleColumns

    init(
        places: RecordPlaces, policy: ShippingPolicy, measured: MeasuredSizes?, articles: [Int64: Int64], progress: StageProgress,
        space: SortSpace = .memory, selection: Selection? = nil
    ) {
        self.places = places
        self.space = space
        self.selection = selection
        self.progress = progress
        self.policy = policy
        self.measured = measured
        self.articles = articles
    }

    func run(
        exportID: @escaping @Sendable (ObservationUUID) -> Int64, into channel: Channel<RecordBatch>,
        emptied: Channel<RecordBatch>? = nil
    ) throws {
        // Before any record loads: the export-only uuids of every part, for their ids.
        let paths = places.paths
        let ids = try ExportIDs(paths: paths, hash: exportID, space: space, selection: selection)
        var selected = LoadSelection(selection: selection, keptTaxa: ids.keptTaxa)
        // Records deduped under other rules fail here, before anything loads.
        for found in ids.selectLines { try selected.check(found.record, path: found.path, line: found.line) }
        var rules = ExportObservationRules(ids: ids)
        let records = try MergedRecords(paths: paths, progress: progress)
        var references = ReferenceCheck(places: places)
        var shipping = PhotoShippingLoad(policy: policy, measured: measured, space: space, selecting: selection != nil)
        let stream = BatchStream(channel: channel, emptied: emptied)
        var observationsEnded = false
        // The last observation's uuid and where it was: the records come in uuid order, so a
        // uuid given twice is given on adjacent lines (else the unique index refuses it later,
        // without a line).
        var previousUUID: (uuid: ObservationUUID, path: String, line: Int)? = nil
        while let (columns, kind, recordPath, recordLine, _) = try records.next() {
            let line = records.placeNumber
            // The records come in file order: past the observations, none follows.
            if !observationsEnded && RecordKey.rank(of: kind) > RecordKey.rank(of: .observation) {
                observationsEnded = true
                try stream.endObservations()
            }
            switch kind {
            case .observation:
                guard !observationsEnded else {
                    throw FieldpackError(
                        path: recordPath, line: recordLine,
                        "deduped records out of order: an observation after the select or photo records (taxa, users, observations, select, then photos)")
                }
                if let uuid = ObservationUUID(columns.text(ObservationRecord.Column.uuid)) {
                    if let previous = previousUUID, previous.uuid == uuid {
                        let place = previous.path == recordPath ? "line \(previous.line)" : "\(previous.path):\(previous.line)"
                        throw FieldpackError(
                            path: recordPath, line: recordLine,
                            "observation \(columns.string(ObservationRecord.Column.uuid) ?? "?") is given a second time (\(place)): a uuid names one observation, which dedupe writes once")
                    }
                    previousUUID = (uuid, recordPath, recordLine)
                }
                try observation(
                    columns, into: stream, references: &references, shipping: &shipping, rules: &rules, selected: &selected, line: line)
            case .photo:
                try photo(columns, into: stream, references: &references, shipping: &shipping, line: line)
            case .taxon:
                try taxon(columns, into: stream, references: &references, shipping: &shipping, selected: &selected, line: line)
            case .user:
                let id = try requiredID(columns, line: line)
                try references.add(.users, id: id, line: line)
                try stream.begin(.users, line: line).add(userColumns, from: columns)
                shipping.user(
                    id, name: UserRecord.creditName(
                        name: columns.string(UserRecord.Column.name), login: columns.string(UserRecord.Column.login)))
            case .selection:
                let part = try selected.check(DedupedSelectionRecord(columns), path: recordPath, line: recordLine)
                selected.add(deduped: part)
                shipping.countNotSelected(part.photosNotSelected)
                if let seen = part.seen { stream.batch.newestSeen = max(stream.batch.newestSeen ?? seen, seen) }
            case .input:
                guard let input = DedupedInputRecord(deduped: columns) else {
                    throw FieldpackError(path: recordPath, line: recordLine, "an input record has no path")
                }
                stream.batch.inputs.append(input)
            }
            stream.batch.records += 1
        }
        try shipping.finish(references: references, into: stream)
        selected.counts.photosNotSelected = shipping.notSelected
        try stream.finish(report: shipping.report, missingParents: rules.missing, selected: selection.map { _ in selected.counts })
    }

    private func photo(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, line: Int
    ) throws {
        let id = try requiredID(record, line: line)
        try references.add(.photos, id: id, line: line)
        try shipping.photo(record, id: id, line: line, references: references, into: stream)
    }

    private func observation(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, rules: inout ExportObservationRules, selected: inout LoadSelection, line: Int
    ) throws {
        typealias C = ObservationRecord.Column
        let recordID = try requiredID(record, line: line)
        try references.add(.observations, id: recordID, line: line)
        // The export's id, observer and taxon, as its whole-job rules decide.
        let loaded = rules.apply(record, id: recordID, references: references, line: line)
        let (id, user, taxon) = (loaded.id, loaded.user, loaded.taxon)
        if let seen = record.int64(C.seen) { stream.batch.newestSeen = max(stream.batch.newestSeen ?? seen, seen) }
        let researchGrade = record.text(C.qualityGrade)?.equals("research") ?? false
        // A removed observation leaves nothing behind: no row, no links, no finding, so the
        // bundle is the same whether dedupe removed it first (`DedupeSelection`) or not. A
        // photo's credit comes from its own record (`PhotoRecord.Column.observer`).
        guard !selected.removes(record, taxon: taxon) else { return }
        try rules.keep(loaded, references: references)
        // The hero's date is `updated_at`, as `BundleSelection.chooseHeroes` reads it from the
        // rows, never `seen`: an export copy's is its export's date, and `updated_at` unknown.
        let updated = researchGrade ? (record.text(C.updatedAt).flatMap { Timestamp.parse($0.bytes) } ?? Int64.min) : nil
        shipping.observation(id, taxon: taxon, researchGradeUpdated: updated)
        let batch = try stream.begin(.observations, line: line)
        for column in observationColumns {
            switch column {
            case .id: batch.int(id)
            case .user: batch.int(user)
            case .taxon: batch.int(taxon)
            default: batch.add(column, from: record)
            }
        }
        batch.bool(ObservationRecord.isObscured(record))
        batch.int(Int64(line))  // for `ObservationOrder`'s errors
        guard let links = record[C.photos] else { return }
        for link in links.elements {
            var pair = link.elements.makeIterator()
            guard let photo = pair.next()?.int64, let position = pair.next()?.int64 else {
                throw places.error(at: line, "photos must hold [photo id, position] pairs")
            }
            try shipping.link(observation: id, photo: photo, position: position, line: line)
        }
    }

    private func taxon(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, selected: inout LoadSelection, line: Int
    ) throws {
        typealias C = TaxonRecord.Column
        let id = try requiredID(record, line: line)
        try references.add(.taxa, id: id, line: line)
        let batch = try stream.begin(.taxa, line: line)
        batch.add(taxonColumns, from: record)
        batch.int(articles[id])
        // The default photo is set once it is known to ship.
        if let photo = record.int64(C.defaultPhoto) { shipping.defaultPhoto(taxon: id, photo: photo, line: line) }
        guard let photos = record[C.photos], photos.isArray else { return }
        for (position, photo) in photos.elements.enumerated() {
            guard let photoID = photo.int64 else {
                throw places.error(at: line, "photos must hold photo ids")
            }
            shipping.taxonPhoto(taxon: id, position: Int64(position), photo: photoID, line: line)
        }
    }

    private func requiredID(_ record: JSONColumns, line: Int) throws -> Int64 {
        guard let id = record.id else { throw places.error(at: line, "record has no integer id") }
        return id
    }
}

/// The selection's observation rules during the load (see `RecordParser`), and what they removed.
struct LoadSelection {
    let selection: Selection?
    /// The loaded taxa the taxon rule keeps (`ExportIDs.keptTaxa`: read from the taxon lines
    /// before the load); nil without a taxon rule.
    let keptTaxa: IDSet?
    /// Observations considered, and removed by each rule; photos not selected.
    var counts = SelectionCounts()
    /// `Selection.dedupeFingerprint(taxaKnown:)` both ways, once a deduped `select` record needs them.
    private var dedupeFingerprints: [String]? = nil
    /// The digest of the first deduped `select` record: every part's must be the same.
    private var partsFingerprint: String? = nil

    init(selection: Selection?, keptTaxa: IDSet?) {
        self.selection = selection
        self.keptTaxa = keptTaxa
    }

    /// A deduped `select` line, checked against this pipeline's `select`.
    ///
    /// - Throws: `FieldpackError` naming the file and line when the line is not that record's
    ///   shape, or the records were deduped under other rules than this pipeline's (or it has none).
    @discardableResult
    mutating func check(_ part: DedupedSelectionRecord?, path: String, line: Int) throws -> DedupedSelectionRecord {
        guard let part else {
            throw FieldpackError(
                path: path, line: line,
                "a select record is not [\"select\", fingerprint, {rule: count}, seen, photos not selected, stage, measured, taxa left out, users left out] (a dedupe "
                    + "before 2026-12-03 wrote no photo count): run fieldpack-dedupe again with this --pipeline")
        }
        guard part.stage == .dedupe else {
            throw FieldpackError(
                path: path, line: line,
                "a select record of fieldpack-inat's (the export rows it counted instead of writing): these are ingest's records, not deduped ones: run fieldpack-dedupe on them")
        }
        guard let selection else {
            throw FieldpackError(
                path: path, line: line,
                "these records were deduped under a pipeline's select, but this pipeline has none: run fieldpack-dedupe again with this --pipeline")
        }
        // Without the taxa (dedupe's own), or with them when ingest decided the taxon rule (`ExportTaxa`).
        if dedupeFingerprints == nil { dedupeFingerprints = [false, true].map { selection.dedupeFingerprint(taxaKnown: $0) } }
        guard dedupeFingerprints!.contains(part.fingerprint) else {
            let named = [false, true].map { known in
                let rules = selection.dedupeRules(taxaKnown: known)
                return "\(rules.isEmpty ? "none" : rules.joined(separator: ", ")): digest \(selection.dedupeFingerprint(taxaKnown: known).prefix(12))…"
            }
            throw FieldpackError(
                path: path, line: line,
                "these records were deduped under other select rules (digest \(part.fingerprint.prefix(12))…) than the ones of this pipeline applied before the bundle (\(named[0]); or, when ingest applied the taxon rule, \(named[1])): run fieldpack-dedupe again with this --pipeline")
        }
        // The parts of one job were pruned alike: two digests mean parts of two runs.
        if partsFingerprint == nil { partsFingerprint = part.fingerprint }
        guard partsFingerprint == part.fingerprint else {
            throw FieldpackError(
                path: path, line: line,
                "this dedupe part's rules (digest \(part.fingerprint.prefix(12))…) are not those of the part before it (\(partsFingerprint!.prefix(12))…): the parts come from two runs; build them again from one fieldpack-inat run")
        }
        return part
    }

    /// Counts what dedupe's share of the selection removed (`DedupeSelection`, a line `check`
    /// passed): observations that never reach the load, considered and removed under the rule
    /// dedupe counted them by.
    mutating func add(deduped part: DedupedSelectionRecord) {
        for (rule, count) in part.removed {
            counts.observationsConsidered += count
            counts.removed[rule, default: 0] += count
        }
        // The export's taxa and users ingest did not write: never loaded, but considered and
        // removed as if they had been (`ExportParents`).
        counts.taxaConsidered += part.taxaLeftOut
        counts.usersRemoved += part.usersLeftOut
    }

    /// Whether the observation rules remove the observation about to load with `taxon`; counts it.
    mutating func removes(_ record: JSONColumns, taxon: Int64?) -> Bool {
        guard let selection else { return false }
        counts.observationsConsidered += 1
        guard selection.hasObservationRules else { return false }
        let taxonSelected = keptTaxa?.contains(taxon) ?? false
        guard let rule = selection.removingRule(ObservedValues(record, taxonSelected: taxonSelected)) else { return false }
        counts.removed[rule, default: 0] += 1
        return true
    }
}
