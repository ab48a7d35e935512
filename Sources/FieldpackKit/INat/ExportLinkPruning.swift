import Dispatch
import Synchronization

/// Ingest's share of a pipeline's `select` for the open-data export: a photo row whose
/// observation the selection's dedupe rules remove (`ExportRules`: the places, and without a
/// taxon rule the grades and the observed range; every rule when the export's taxa tables decide
/// the taxon rule, `ExportTaxa`) is written as its photo record only,
/// without the link record to that observation. A regional guide of an export removes most of
/// its observations, and their links were 40% of ingest's records (a link record per photo row).
///
/// Before the tables are read, the export's observations tables are read once for what the rules
/// keep: each kept row's uuid and export date go into a filter of at most 4 MiB (`Kept`, a Bloom
/// filter), folded once every observations row is judged to 64–128 bits a kept row
/// (`BloomBits.fold(toHold:)`), since every photos row asks it. A photo row of date `d` keeps its
/// link when the filter may hold its uuid at `d`. The filter never misses a kept observation; it
/// may answer yes for a removed one (61 of the 1.87M links of removed observations on the
/// benchmark's 1M export, with 17,806 rows kept; at most about 1 in 5,000 folded; unfolded, by its
/// arithmetic, about 1 in 30 with four million kept), and that link is written, as without
/// pruning: the memory stays the same whatever the export's size or the selection's, and the
/// output is still exact.
///
/// The bundle is the same bytes as without pruning, because dedupe takes an export observation's
/// links only from its export's link records, and only when a copy of that export wins
/// (`Winners.exportLinks`): a link is pruned only when every copy of its observation at its
/// export's date is removed by the rules, on the very values its record has, so either such a
/// copy wins and dedupe removes the observation with its links (it applies the same rules, and
/// columns filled from an API copy can only add `obscured`, which removes, never keeps; a row
/// whose values are unknown, which an API copy may fill, is kept here when API pages are inputs,
/// `ExportRules.keepsUnknown`), or a copy of another date or from the API wins, which never
/// takes these links (`Winners`: an API copy without a photo list takes no export links). A photo's record
/// is written even when its link is not, unless the photo has no other row (`Singles`): which
/// photos ship, and the count of those not selected, are decided as before.
///
/// Off (nil) when the pipeline has no such rules, or when an input is standard input (read
/// once). The export's tar archive, as iNaturalist publishes it, is planned from its members
/// (`ExportTableFile`). At first each reading streamed the archive again, inflating it again up
/// to the last member it read: the listing (with the taxa rows, `ExportTaxa.Reader`), the
/// observations, the photos, and the taxa and observers (up to the last of them), before
/// ingest's own reading. Even so it cost far less than writing every row and deduping them: on
/// the benchmark's 1M export as one `.tar.gz`, by hand, ingest went from 8.3 s and 1.1 GB of
/// records to 2.9–3.3 s and 23 MB, dedupe from 2.6 s to 0.14 s. Fewer readings since:
/// - The observers of repeated photos come from the photos' reading (each photos row's observer
///   spilled beside its key, `RepeatedKeys.Collector` with values), not from one more.
/// - The listing judges an archive's observations as it passes them. Without a taxon rule that
///   the taxa tables decide (a `select` of places, grades or dates alone, or an input besides
///   the export), by the rules, known before any table is read. With one, the rows the places
///   keep wait on disk with their taxon, and whether the other rules keep them
///   (`PendingObservations`, 24 bytes a row), until every taxa row has been read wherever the
///   taxa tables are (before the observations, after them, in another export, loose); they are
///   then judged by the rule those rows decide.
/// - The listing takes an archive's photos rows too, when every input is an export table: they
///   wait on disk (`PendingPhotos`, 24 bytes a row) until every observations table is judged.
/// - And its taxa and observers rows (`ExportParents.Listed`): the ids seen, and each taxa row's
///   ancestors on disk, until the kept rows say which taxa they need.
/// So the plan streams an archive once, whatever the order of its members, and ingest's own
/// reading is the second.
///
/// With the taxon rule (`ExportTaxa`), dedupe's output differs from the one without pruning:
/// it removes, and counts, the observations outside the taxa, which the bundle would have
/// removed and counted the same way. The bundle is the same bytes, and so is its report.
///
/// The observations rows the rules remove are written marked with their rule
/// (`ObservationRecord.Part.removedByPlaces`, …), so that dedupe ranks them without parsing them
/// (`RemovedObservationLine`), unless their uuid has no other row (`Singles`): then they are only
/// counted.
///
/// The plan reads each row of the plain tables whole, so it also finds which rows ingest's own
/// reading has nothing to say of and writes only when their key repeats (`ExportRowFates`): it
/// reads them in ingest's units, and ingest then leaves such a row out by its key alone, without
/// splitting and parsing it again. The same records and findings either way; on the benchmark's
/// 1M export, by hand, ingest's CPU fell by about 15% and its wall time by about 12%.
///
/// Dedupe is told: the export tables' `input` records name the rules' digest
/// (`InputRecord.pruned`); dedupe takes the rules with the taxon rule from that digest, and
/// refuses records pruned under rules other than its pipeline's.
public final class ExportLinkPruning: Sendable {
    /// The observations the export's tables keep, by uuid and export date: a Bloom filter
    /// (`BloomBits`: 4 MiB, four probes in one word), folded to the rows kept once every
    /// observations row is in, before the photos rows ask it, and shared read-only by the
    /// workers from then on.
    struct Kept: Sendable {
        private var bits = BloomBits()

        /// The hash of an observation at a date, by its uuid's key (`Singles.key`).
        @inline(__always)
        private static func hash(key: UInt64, date: Int64?) -> UInt64 {
            BloomWord.mix(key ^ BloomWord.mix(UInt64(bitPattern: date ?? Int64.min)))
        }

        @inline(__always)
        private static func hash(_ uuid: ObservationUUID, date: Int64?) -> UInt64 { hash(key: Singles.key(uuid), date: date) }

        mutating func insert(_ uuid: ObservationUUID, date: Int64?) { bits.insert(Self.hash(uuid, date: date)) }

        /// Inserts the observation whose uuid has the key `key` (`Singles.key`).
        mutating func insert(key: UInt64, date: Int64?) { bits.insert(Self.hash(key: key, date: date)) }

        /// False only for an observation not inserted at that date.
        @inline(__always)
        func mayContain(_ uuid: ObservationUUID, date: Int64?) -> Bool { bits.mayContain(Self.hash(uuid, date: date)) }

        /// False only for an observation not inserted at that date, by its uuid's key.
        @inline(__always)
        func mayContain(key: UInt64, date: Int64?) -> Bool { bits.mayContain(Self.hash(key: key, date: date)) }

        mutating func formUnion(_ other: Kept) { bits.formUnion(other.bits) }

        /// Folds the filter to the `rows` kept (`BloomBits.fold(toHold:)`), once every kept row
        /// is in: the photos rows ask it, each a cache miss at 4 MiB.
        mutating func fold(toHold rows: Int) { bits.fold(toHold: rows) }

        var byteCount: Int { bits.byteCount }
    }

    /// The digest of the rules (`ExportRules.fingerprint`).
    public let fingerprint: String
    /// The rules: ingest marks the export copies they remove.
    let rules: ExportRules
    /// What the rules keep of the export's observations tables.
    let kept: Kept
    /// How many observations rows the rules keep (a row in two tables counts twice).
    public let keptRows: Int
    /// When every input is an export table read here (`Singles`): which uuids and photo ids may
    /// have more than one row, and the photos with measured sizes. Nil: every row is written.
    let singles: Singles?
    /// With `singles`: the taxa and users ingest writes (`ExportParents`).
    let parents: ExportParents?
    /// With `singles`, when the plan read the plain tables in ingest's units: each row's fate,
    /// which lets ingest leave out a quiet row by its key alone (`ExportRowFates`).
    let fates: ExportRowFates?
    /// The digest of the photos with measured sizes, which ingest's counts name
    /// (`DedupedSelectionRecord.Column.measured`).
    let measuredDigest: String
    /// The archives' observations and photos members judged in the pass that listed them, not
    /// in one more.
    let judgedWhileListed: Int

    /// What lets ingest leave out a row whole, not only a link: a removed observation's row and
    /// an unselected photo's row, when no other row of any input has the same uuid or photo id.
    /// Such a row's record would be a group of one in dedupe, whose outcome is known here: the
    /// observation is removed by the rule its row is marked with, and the photo, linked by no
    /// kept observation, is not selected (it cannot conflict with another copy, nor have its
    /// dimensions filled by one). Ingest counts them instead, in a `select` line of its own
    /// (`DedupedSelectionRecord.Column.stage`), which dedupe adds to its counts. A photo with
    /// measured sizes is always written (dedupe writes it whatever the selection keeps), and the
    /// line names their digest, which dedupe checks against its own.
    ///
    /// A link the `Kept` filter keeps by mistake may still point to an observation left out:
    /// dedupe then sees a group of links only, which it never writes (`Winners.writeRecord`, as
    /// for links to an observation no table holds), so its photo is not referred to, and counted
    /// as not selected, as with the row written.
    ///
    /// Only when every input is an export table (API pages may hold the same observations and
    /// photos, unseen here). Which uuids and photo ids repeat is known exactly (`RepeatedKeys`:
    /// the keys of every row spilled to the build folder, 8 bytes an observations row and 16 a
    /// photos row with its observer, and sorted a partition at a time), in memory that does not
    /// grow with the export: 8 MiB per worker while the keys are sorted, then the repeated keys,
    /// at most `repeat_filter_bytes` (default 64 MiB: 8 million keys), and a filter of at most
    /// 1 MiB in front of each kind's. Past that, as when two exports of different dates repeat
    /// every uuid, the keys of the partitions over their share are all taken as repeated and
    /// their rows written, as without pruning, with a notice: the output is still exact.
    final class Singles: Sendable {
        let observations: RepeatedKeys
        let photos: RepeatedKeys
        let measured: Set<Int64>

        init(observations: RepeatedKeys, photos: RepeatedKeys, measured: Set<Int64>) {
            self.observations = observations
            self.photos = photos
            self.measured = measured
        }

        func mayRepeat(_ uuid: ObservationUUID) -> Bool { observations.mayRepeat(Self.key(uuid)) }

        /// Whether a photo's row may be left out (with its link pruned): one row, no measured size.
        func leavesOut(photo id: Int64) -> Bool {
            !photos.mayRepeat(Self.key(photo: id)) && (measured.isEmpty || !measured.contains(id))
        }

        /// The key an observation's uuid is added under (`RepeatedKeys`).
        @inline(__always)
        static func key(_ uuid: ObservationUUID) -> UInt64 { BloomWord.hash(uuid) }

        /// The key a photo id is added under.
        @inline(__always)
        static func key(photo id: Int64) -> UInt64 { BloomWord.mix(UInt64(bitPattern: id)) }

        /// The rows a table of `bytes` bytes may hold, over-counted (for its keys' partitions).
        static func rows(bytes: Int, gzip: Bool) -> Int { gzip ? bytes / 20 : bytes / 80 }
    }

    /// The observations the rules keep of every export observations table among `inputs`, or nil
    /// when ingest does not prune (see the type's comment); when every input is an export table,
    /// also which of their observations and photos have one row (`Singles`).
    ///
    /// - Parameters:
    ///   - openDataDate: the pipeline's date of loose tables whose names do not carry one.
    ///   - measuredPhotos: the photos with measured sizes, whose rows are always written.
    ///   - filterBytes: the most the repeated uuids and photo ids may take (`RepeatedKeys`).
    ///   - scratch: the folder the keys of every row spill to while they are sorted (a photos
    ///     row's with its observer), and what an archive's listing sets aside: observations rows
    ///     waiting for the taxon rule (`PendingObservations`), photos rows waiting for the kept
    ///     observations (`PendingPhotos`), and its taxa rows' ancestors (`ExportParents.Listed`).
    ///   - workers: how many threads read the tables.
    ///   - units: ingest's units (`IngestUnits`): the plain tables are read in runs of them, and
    ///     each row's fate is found for ingest's reading (`ExportRowFates`, its scratch file in
    ///     `scratch` too); nil: no fates.
    ///   - notice: told why the taxon rule is left to the bundle when the taxa tables disagree,
    ///     and when some repeated keys could not be kept.
    /// - Throws: when a table cannot be read (never an early end).
    static func plan(
        inputs: [String], selection: Selection, openDataDate: Int64?, measuredPhotos: [Int64] = [],
        filterBytes: Int = defaultFilterBytes, scratch: String, workers: Int, units: [IngestUnit]? = nil,
        notice: (String) -> Void = { _ in }
    ) throws -> ExportLinkPruning? {
        guard !selection.dedupeRules(taxaKnown: true).isEmpty else { return nil }
        // The observations and photos tables, their date as ingest dates their rows, and their
        // size (a file's on disk; an archive member's inflated).
        var tables: [(input: Int, file: ExportTableFile, date: Int64?, gzip: Bool, bytes: Int)] = []
        // The taxa and observers tables, by their index among the inputs (`ExportParents`).
        var parentTables: [(input: Int, file: ExportTableFile)] = []
        // What each input is, by its head: an export tar archive, an export table, or another input.
        var kinds: [(tar: Bool, header: OpenDataTable.Header?, gzip: Bool, unread: Bool)] = []
        for path in inputs {
            if path == StandardInput.argument { return nil }
            let (source, _, gzip) = try openInput(path, hashing: false)
            // As much of the head as ingest reads, so that both tell the same tables apart.
            let reader = LineReader(source: source, chunkSize: ForeignInput.headBytes)
            // The head is a view into the reader's buffer: the reader must outlive every use of it.
            kinds.append(try withExtendedLifetime(reader) {
                let head = try reader.peek(atLeast: ForeignInput.headBytes)
                return (FileIngest.isTar(head), try? FileIngest.openDataHeader(head, path: path), gzip, OpenDataTable.unreadExportTable(head) != nil)
            })
        }
        // A table of the export that ingest passes over (observations_projects) holds no record.
        let onlyExport = kinds.allSatisfy { $0.tar || $0.header != nil || $0.unread }
        // With another input the taxa decide nothing: without other rules, nothing is pruned.
        if !onlyExport && selection.dedupeRules(taxaKnown: false).isEmpty { return nil }
        // The taxon rule, when the taxa tables decide it (`ExportTaxa`): their rows in the inputs'
        // order, an archive's as its members are listed.
        var taxaReader = onlyExport && !selection.taxa.isEmpty ? ExportTaxa.Reader(rule: selection.taxa) : nil
        let found = Mutex(Found())
        let measured = Set(measuredPhotos)
        let trace = PhaseTrace(stage: "inat")
        // An archive's tables are read in the pass that lists its members, not in more passes
        // over it. Its observations: without a taxon rule that the taxa tables decide, judged by
        // the rules, known before any table is read; with one, the rows the places keep set
        // aside with their taxon (`PendingObservations`) until every taxa row has been read. Its
        // photos set aside until the observations are judged (`PendingPhotos`); its taxa and
        // observers for `ExportParents` (`ExportParents.Listed`). The keys' partitions are then
        // sized before the members' sizes are known, from the archive's (an over-count costs
        // only more partitions; which partitions count as repeated whole, near
        // `repeat_filter_bytes`, may differ from a sizing by the members, never the bundle).
        var listing: (rules: ExportRules, collectors: Collectors?)? = nil
        if kinds.contains(where: \.tar) {
            let rules = ExportRules(selection: selection, taxa: nil, keepsUnknown: !onlyExport)
            if taxaReader == nil && rules.rules.isEmpty { return nil }
            var sizes: [(table: OpenDataTable?, bytes: Int, gzip: Bool)] = []
            for (path, kind) in zip(inputs, kinds) { sizes.append((kind.header?.table, FileSystem.size(path) ?? 0, kind.gzip)) }
            listing = (rules, onlyExport ? try Self.collectors(sizes, scratch: scratch) : nil)
        }
        // The archives' observations and photos members judged while they were listed: (input,
        // position); and those whose rows wait for the taxon rule, or for the kept observations.
        var judged: Set<[Int]> = []
        var pending: [PendingObservations] = []
        var pendingPhotos: [PendingPhotos] = []
        // The taxa and observers rows of the archives' members, read as they are listed, when
        // ingest chooses the taxa and users it writes (`ExportParents`).
        var listedParents = onlyExport && listing != nil ? try ExportParents.Listed(in: scratch) : nil
        func add(_ file: ExportTableFile, input: Int, date: Int64?, gzip: Bool, bytes: Int) {
            let table = file.header.table
            if table == .taxa || table == .observers { parentTables.append((input, file)) }
            if table == .observations || (table == .photos && onlyExport) { tables.append((input, file, date, gzip, bytes)) }
        }
        for (input, (path, kind)) in zip(inputs, kinds).enumerated() {
            if kind.tar {
                // The export as published: its tables are read as the archive is listed, once
                // (ingest dates a member's rows by the member's name first).
                func date(_ file: ExportTableFile) -> Int64? { OpenDataDate.of(member: file.member!.name, inArchive: path) ?? openDataDate }
                func judging(_ file: ExportTableFile, _ reader: LineReader) throws {
                    guard let listing else { return }
                    let seen = date(file)
                    func rows(_ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool) throws {
                        _ = try OpenDataRow.rows(of: reader, header: file.header, seen: seen, body)
                    }
                    if file.header.table == .observers {
                        if listedParents != nil { try rows { row, bytes in listedParents!.addObserver(row, bytes); return true } }
                        return
                    }
                    if file.header.table == .photos {
                        // Its rows wait for every observations table (the photos are judged only
                        // when every input is an export table).
                        guard let collectors = listing.collectors else { return }
                        let waiting = try PendingPhotos(in: scratch, date: seen)
                        _ = try Self.judge(
                            photos: true, date: seen, rules: listing.rules, keptSoFar: nil, keys: collectors.photos, choosingParents: true,
                            measured: measured, waiting: .photos(waiting), rows: rows)
                        pendingPhotos.append(waiting)
                    } else {
                        let waiting = taxaReader == nil ? nil : try PendingObservations(in: scratch, date: seen)
                        let mine = try Self.judge(
                            photos: false, date: seen, rules: listing.rules, keptSoFar: nil, keys: listing.collectors?.observations,
                            choosingParents: onlyExport, measured: measured, waiting: waiting.map { .observations($0) }, rows: rows)
                        if let waiting { pending.append(waiting) } else { found.withLock { $0.add(mine) } }
                    }
                    judged.insert([input, file.member!.position])
                }
                // A taxa row decides the taxon rule (once its rows disagree, the rest need not be
                // read for it), and its ancestors are set aside.
                func taxon(_ row: OpenDataRow, _ bytes: UnsafeRawBufferPointer) throws -> Bool {
                    let deciding = taxaReader?.add(row, bytes) ?? false
                    try listedParents?.addTaxon(row, bytes)
                    return deciding || listedParents != nil
                }
                let listed = try ExportTableFile.tables(
                    inArchive: path, taxa: taxaReader == nil && listedParents == nil ? nil : taxon, judging: judging)
                for (file, bytes) in listed { add(file, input: input, date: date(file), gzip: false, bytes: bytes) }
            } else if let header = kind.header {
                let file = ExportTableFile(path: path, header: header)
                add(file, input: input, date: OpenDataDate.of(path) ?? openDataDate, gzip: kind.gzip, bytes: FileSystem.size(path) ?? 0)
                if header.table == .taxa, taxaReader != nil {
                    try OpenDataRow.forEachRow(in: file, seen: nil) { row, bytes in taxaReader!.add(row, bytes) }
                }
            }
        }
        var taxa: ExportTaxa? = nil
        if let taxaReader {
            switch taxaReader.reading {
            case .decided(let decided): taxa = decided
            case .disagree(let taxon):
                notice(
                    "the export's taxa tables disagree on taxon \(taxon) (its rows fall on both sides of select.taxa, as when two "
                        + "exports' taxonomies differ): ingest leaves the taxon rule to the bundle stage, so every observation the "
                        + "other rules keep is written and loaded")
            }
        }
        let rules = ExportRules(selection: selection, taxa: taxa, keepsUnknown: !onlyExport)
        guard !rules.rules.isEmpty else { return nil }
        // Every row's uuid or photo id, when every input is an export table (`Singles`).
        var collectors: Collectors? = listing?.collectors
        if onlyExport && listing == nil {
            collectors = try Self.collectors(tables.map { ($0.file.header.table, $0.bytes, $0.gzip) }, scratch: scratch)
        }
        // The rows set aside, judged by the taxon rule now decided (when the taxa tables
        // disagree, the places alone, which kept every one).
        for waiting in pending {
            var mine = Found()
            mine.kept = Kept()
            try waiting.forEach { key, taxon, user, othersKeep in
                if let taxa, !(othersKeep && taxa.keeps(taxon)) { return }
                mine.kept!.insert(key: key, date: waiting.date)
                mine.rows += 1
                if let user { mine.users.insert(user) }
                if let taxon { mine.taxa.insert(taxon) }
            }
            found.withLock { $0.add(mine) }
        }
        pending = []
        trace.mark("plan: the tables listed\(judged.isEmpty ? "" : ", \(judged.count) table\(judged.count == 1 ? "" : "s") judged as listed")")
        // The rows' fates (`ExportRowFates`), when ingest's units are known and rows may be left
        // out (`Singles`): its tables that are files, not an archive's members, are read in those
        // units.
        let fates = units != nil && collectors != nil ? try ExportRowFates(in: scratch, ruleNames: rules.rules) : nil
        // Each plain table in `workers` byte ranges, read side by side; a compressed one, or an
        // archive's, whole (unless judged as it was listed). With fates, a table that is a file
        // is cut where ingest's units are (`workers` runs of them; a unit read whole, whole).
        var jobs: [(table: Int, range: Range<Int>?, units: [ExportRowFates.Unit]?)] = []
        for (index, table) in tables.enumerated() {
            if let member = table.file.member, judged.contains([table.input, member.position]) { continue }
            let itsUnits = fates == nil || table.file.member != nil ? [] : (units ?? []).filter { $0.file == table.input }
            if let first = itsUnits.first, let fates {
                fates.noteIdentity(of: table.input, path: table.file.path)
                let mine = itsUnits.map { ExportRowFates.Unit(file: table.input, range: $0.range) }
                guard first.range != nil, mine.allSatisfy({ $0.range != nil }) else {
                    jobs.append((index, nil, mine))
                    continue
                }
                let runs = max(1, min(workers, mine.count))
                for run in 0..<runs {
                    let part = mine[(mine.count * run / runs)..<(mine.count * (run + 1) / runs)]
                    jobs.append((index, part.first!.range!.lowerBound..<part.last!.range!.upperBound, Array(part)))
                }
                continue
            }
            let size = table.bytes
            if table.gzip || table.file.member != nil || size < 8 << 20 || workers < 2 {
                jobs.append((index, nil, nil))
            } else {
                for range in ByteRangeLines.cuts(size: size, count: workers) { jobs.append((index, range, nil)) }
            }
        }
        // The observations tables first, then the photos tables, which read what the first kept.
        let readTables = tables
        let parts = [
            jobs.filter { tables[$0.table].file.header.table == .observations }, jobs.filter { tables[$0.table].file.header.table == .photos },
        ]
        for (number, part) in parts.enumerated() {
            // Every observations row is judged (here, as the archives were listed, or replayed
            // once the taxa were known): the kept filter is folded to the rows it holds.
            if number == 1 { found.withLock { found in found.kept?.fold(toHold: found.rows) } }
            let (readJobs, readCollectors, keptSoFar) = (part, collectors, found.withLock { $0.kept })
            // Each worker takes the next job until none is left, and adds up what it found in
            // one `Found`, handed from job to job (`consume`: shared, its kept filter of 4 MiB
            // would be copied at the next job's first kept row).
            let claimed = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: min(workers, readJobs.count)) { _ in
                var mine = Found()
                while let job = claimed.withLock({ next -> Int? in
                    guard next < readJobs.count else { return nil }
                    next += 1
                    return next - 1
                }) {
                    let (index, range, units) = readJobs[job]
                    let table = readTables[index]
                    do {
                        let photos = table.file.header.table == .photos
                        mine = try Self.judge(
                            photos: photos, date: table.date, rules: rules, keptSoFar: keptSoFar,
                            keys: photos ? readCollectors?.photos : readCollectors?.observations, choosingParents: readCollectors != nil,
                            measured: measured, waiting: nil, fates: units.flatMap { units in fates.map { ($0, units) } },
                            adding: consume mine
                        ) { body in
                            let lines = try OpenDataRow.forEachRow(in: table.file, range: range, seen: table.date, body)
                            // With fates, ingest's reading starts each unit from these counts.
                            if let range, let lines, units != nil { fates?.noteRun(of: table.input, range: range, lines: lines) }
                        }
                    } catch {
                        mine = Found()
                        found.withLock { $0.failure = $0.failure ?? OpenDataRow.naming(error, path: table.file.name) }
                        claimed.withLock { $0 = readJobs.count }
                    }
                }
                found.withLock { $0.add(mine) }
            }
            if let failure = found.withLock({ $0.failure }) { throw failure }
            trace.mark("plan: the \(number == 0 ? "observations" : "photos") tables")
        }
        // The photos rows set aside as the archives were listed, judged now that the kept
        // observations are known, as the photos pass judges its rows.
        if !pendingPhotos.isEmpty {
            let keptSoFar = found.withLock { $0.kept }
            for waiting in pendingPhotos {
                let mine = (0..<workers).map { _ in Replay() }
                try waiting.forEach(workers: workers) { worker, id, observation, observer in
                    let replay = mine[worker]
                    Self.judgePhoto(
                        id, observation: observation, observer: observer, date: waiting.date, keptSoFar: keptSoFar,
                        measured: measured, into: &replay.found)
                }
                for replay in mine { found.withLock { $0.add(replay.found) } }
            }
            pendingPhotos = []
            trace.mark("plan: the listed photos tables")
        }
        let (kept, rows) = found.withLock { ($0.kept, $0.rows) }
        var singles: Singles? = nil
        var parents: ExportParents? = nil
        if let collectors {
            let observations = try collectors.observations.finish(maximumRepeatedBytes: filterBytes / 2, workers: workers)
            // The other rows of a photo that a kept row links may name other observers than the
            // linked row: the observers beside the keys that repeat (or may), of linked photos.
            let (needed, linked) = found.withLock { ($0.users, $0.linked) }
            var wanted: (@Sendable (UInt64) -> Bool)? = nil
            if let linked { wanted = { linked.mayContain(photo: $0) } }
            let (photos, observers) = try collectors.photos.finish(maximumRepeatedBytes: filterBytes / 2, workers: workers, valuesOf: wanted)
            var users = needed
            users.formUnion(observers)
            // Said, not silent: the rows of those keys reach dedupe (the output is the same).
            for (keys, name, collector) in [(observations, "uuids", collectors.observations), (photos, "photo ids", collectors.photos)]
            where keys.counts.wholePartitions > 0 {
                notice(
                    "\(keys.counts.wholePartitions) of the \(collector.partitions) partitions of the export's \(name) repeat more keys "
                        + "than repeat_filter_bytes holds, or hold far more rows than the tables' sizes promised (two exports of "
                        + "different dates repeat every uuid): ingest writes their removed rows as if repeated, which dedupe counts")
            }
            singles = Singles(observations: observations, photos: photos, measured: measured)
            trace.mark("plan: the repeated keys, and the repeated photos' observers")
            try listedParents?.flush()
            parents = try ExportParents.read(tables: parentTables, listed: listedParents, taxa: found.withLock { $0.taxa }, users: users)
            listedParents = nil
            trace.mark("plan: the taxa and observers")
        }
        // No observations table: a filter that keeps nothing, folded, since every photos row asks it.
        var none = Kept()
        none.fold(toHold: 0)
        return ExportLinkPruning(
            rules: rules, kept: kept ?? none, keptRows: rows, singles: singles, parents: parents,
            measuredDigest: DedupedSelectionRecord.measuredDigest(measuredPhotos), judgedWhileListed: judged.count,
            fates: singles == nil ? nil : fates)
    }

    /// The keys of every row of the observations tables and of the photos tables (`Singles`).
    private typealias Collectors = (observations: RepeatedKeys.Collector, photos: RepeatedKeys.Collector)

    /// Collectors for the keys of tables of these sizes (a table of no known kind, an archive,
    /// counts for both).
    private static func collectors(_ sizes: [(table: OpenDataTable?, bytes: Int, gzip: Bool)], scratch: String) throws -> Collectors {
        func collector(_ table: OpenDataTable) throws -> RepeatedKeys.Collector {
            let rows = sizes.filter { $0.table == table || $0.table == nil }.reduce(0) { $0 + Singles.rows(bytes: $1.bytes, gzip: $1.gzip) }
            return try RepeatedKeys.Collector(expectedKeys: rows, folder: scratch, withValues: table == .photos)
        }
        return (try collector(.observations), try collector(.photos))
    }

    /// What the plan finds in the rows of one observations or photos table (or of a byte range of
    /// one), which `forEachRow` gives: each row's key goes to `keys` (its uuid's or photo id's,
    /// `Singles`); an observations table fills a filter of what `rules` keep, a photos table one
    /// of the photos those rows (`keptSoFar`) link; with `choosingParents`, what the kept rows
    /// need (`ExportParents`); a photos row's key goes with its observer. With `waiting`, a
    /// table's rows wait there (`PendingRows`): an observations table's for the taxon rule, a
    /// photos table's for the kept observations; what they find is then left empty. With `fates`,
    /// each row's fate goes to the unit of ingest's reading its line starts in (`ExportRowFates`;
    /// the units in order, the rows read being theirs). What it finds is added to `found`.
    private static func judge(
        photos: Bool, date: Int64?, rules: ExportRules, keptSoFar: Kept?, keys: RepeatedKeys.Collector?, choosingParents: Bool,
        measured: Set<Int64>, waiting: Waiting?, fates: (ExportRowFates, [ExportRowFates.Unit])? = nil,
        adding found: consuming Found = Found(),
        rows forEachRow: @escaping ((OpenDataRow, UnsafeRawBufferPointer) throws -> Bool) throws -> Void
    ) throws -> Found {
        precondition(fates == nil || waiting == nil, "the rows set aside are not ingest's units")
        var mine = consume found
        // Each row's fate, with fates (`ExportRowFates`): its values read whole.
        let recorder = fates.map { ExportRowFates.Recorder($0.0, units: $0.1) }
        if !photos && waiting == nil && mine.kept == nil { mine.kept = Kept() }
        var waitingObservations: PendingObservations.Batch? = nil, waitingPhotos: PendingPhotos.Batch? = nil
        switch waiting {
        case .observations(let rows)?: waitingObservations = PendingObservations.Batch(rows)
        case .photos(let rows)?: waitingPhotos = PendingPhotos.Batch(rows)
        case nil: break
        }
        /// `add(key, observer)`: a row's key, and a photos row's observer (0: none).
        func read(_ add: (UInt64, UInt64) throws -> Void) throws {
            try forEachRow { row, bytes in
                if photos {
                    let planned = recorder == nil ? (parents: row.photoParents(bytes), quiet: false) : row.photoPlan(bytes)
                    guard let (id, observation, observer) = planned.parents else {
                        // Rejected by `write`, but keyed as `photoID` reads it (at worst
                        // another row of the id is kept).
                        if let id = row.photoID(bytes) { try add(Singles.key(photo: id), 0) }
                        try recorder?.add(0, offset: row.lineOffset, line: row.lineNumber)
                        return true
                    }
                    try add(Singles.key(photo: id), UInt64(bitPattern: observer ?? 0))
                    let key = observation.map { Singles.key($0) }
                    if waitingPhotos != nil {
                        try waitingPhotos!.add(photo: id, observation: key, observer: observer)
                    } else {
                        let linked = judgePhoto(
                            id, observation: key, observer: observer, date: date, keptSoFar: keptSoFar, measured: measured, into: &mine)
                        // Quiet, linking no kept row, no measured size: written only if its id repeats.
                        try recorder?.add(
                            planned.quiet && !linked && !measured.contains(id) ? 1 : 0, offset: row.lineOffset, line: row.lineNumber)
                    }
                } else if waitingObservations != nil {
                    guard let (uuid, verdict) = row.pendingObservation(bytes, by: rules.selection) else { return true }
                    try add(Singles.key(uuid), 0)
                    if verdict != .removed {
                        let (user, taxon) = row.observationParents()
                        try waitingObservations!.add(key: Singles.key(uuid), taxon: taxon, user: user, othersKeep: verdict == .keptIfTaxonKept)
                    }
                } else if let (uuid, keeps) = try judgeObservation(row, bytes) {
                    try add(Singles.key(uuid), 0)
                    if keeps {
                        mine.kept!.insert(uuid, date: date)
                        mine.rows += 1
                        if choosingParents {
                            let (user, taxon) = row.observationParents()
                            if let user { mine.users.insert(user) }
                            if let taxon { mine.taxa.insert(taxon) }
                        }
                    }
                }
                return true
            }
        }
        /// An observations row's uuid and whether the rules keep it; with fates, its fate recorded.
        func judgeObservation(_ row: OpenDataRow, _ bytes: UnsafeRawBufferPointer) throws -> (ObservationUUID, keeps: Bool)? {
            guard let recorder else { return row.observationKey(bytes, by: rules) }
            guard let (uuid, rule, quiet) = row.observationPlan(bytes, by: rules) else {
                try recorder.add(0, offset: row.lineOffset, line: row.lineNumber)
                return nil
            }
            // Quiet and removed: written only if its uuid repeats, else counted by its rule (most
            // removed rows by the same rule as the row before).
            try recorder.add(quiet ? rule.map(recorder.fate(removedBy:)) ?? 0 : 0, offset: row.lineOffset, line: row.lineNumber)
            return (uuid, rule == nil)
        }
        if let keys { try keys.adding { batch in try read { try batch.add($0, value: $1) } } } else { try read { _, _ in } }
        try waitingObservations?.flush()
        try waitingPhotos?.flush()
        try recorder?.finish()
        return mine
    }

    /// What one worker finds in the photos rows set aside (`PendingPhotos.forEach(workers:)`):
    /// touched by that worker alone while they are read, then by the plan once all are done.
    private final class Replay: @unchecked Sendable {
        var found = Found()
    }

    /// Where a listed archive member's rows wait (`PendingRows`).
    private enum Waiting {
        case observations(PendingObservations)
        case photos(PendingPhotos)
    }

    /// Judges one photos row (its photo id, its observation's uuid key, `Singles.key`, and its
    /// observer): whether it links a kept row (`keptSoFar`; returned), and what its users need
    /// (`ExportParents`). The observer of a row that links no kept row is needed only when
    /// another row of its photo does: it rides beside the photo's key (`RepeatedKeys`).
    @inline(__always) @discardableResult
    private static func judgePhoto(
        _ id: Int64, observation key: UInt64?, observer: Int64?, date: Int64?, keptSoFar: Kept?, measured: Set<Int64>,
        into mine: inout Found
    ) -> Bool {
        let linked = key.map { keptSoFar?.mayContain(key: $0, date: date) ?? false } ?? false
        if linked {
            // Made at the first linked row: most ranges of a guide's export have one.
            if mine.linked == nil { mine.linked = ExportParents.Linked() }
            mine.linked!.insert(photo: Singles.key(photo: id))
        }
        if let observer, linked || measured.contains(id) { mine.users.insert(observer) }
        return linked
    }

    /// Whether a photos row's link to `uuid` at `date` is written: the rules may keep that row.
    @inline(__always)
    func keepsLink(to uuid: ObservationUUID, date: Int64?) -> Bool { kept.mayContain(uuid, date: date) }

    /// Whether a photos row whose link is not written is left out whole (`Singles`).
    @inline(__always)
    func leavesOut(photo id: Int64) -> Bool { singles?.leavesOut(photo: id) ?? false }

    /// Whether an observations row the rules remove is left out whole (`Singles`).
    @inline(__always)
    func leavesOut(observation uuid: ObservationUUID) -> Bool { singles.map { !$0.mayRepeat(uuid) } ?? false }

    /// What the plan's readers found, added up under a lock.
    private struct Found {
        var kept: Kept? = nil
        var rows = 0
        var failure: (any Error)? = nil
        /// `ExportParents`: the users and taxa the kept rows need, and the photos they link.
        var users = IDSet()
        var taxa = IDSet()
        var linked: ExportParents.Linked? = nil

        mutating func add(_ other: Found) {
            if let theirs = other.kept { if kept == nil { kept = theirs } else { kept!.formUnion(theirs) } }
            rows += other.rows
            users.formUnion(other.users)
            taxa.formUnion(other.taxa)
            if let theirs = other.linked { if linked == nil { linked = theirs } else { linked!.formUnion(theirs) } }
        }
    }

    /// The repeated keys' memory unless the pipeline says otherwise (`repeat_filter_bytes`): 64 MiB.
    public static let defaultFilterBytes = 64 << 20

    private init(
        rules: ExportRules, kept: Kept, keptRows: Int, singles: Singles?, parents: ExportParents?, measuredDigest: String,
        judgedWhileListed: Int, fates: ExportRowFates?
    ) {
        self.fates = fates
        self.judgedWhileListed = judgedWhileListed
        self.parents = parents
        self.rules = rules
        fingerprint = rules.fingerprint
        self.kept = kept
        self.keptRows = keptRows
        self.singles = singles
        self.measuredDigest = measuredDigest
    }
}
