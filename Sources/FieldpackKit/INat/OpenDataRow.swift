#if canImport(Glibc)
import Glibc
#endif

/// One row of an open-data table, split on tabs in place, and the records it becomes.
///
/// Raw TSV (INAT.md §4): no quoting or escaping, so `'` and `"` are data; an empty field is null;
/// a name of `None` is null (Python-written exports); `ancestry` is `/`-separated ids; `active` is
/// `true`/`false`. A row without its key (`observation_uuid`, `photo_id`, `taxon_id`,
/// `observer_id`) is rejected. A row whose field count differs from its header's cannot be
/// placed (a tab in a field shifts every column after it; two rows of the real 2022 sample have
/// one): an observation or observer keeps only its key (its first column), a photo or taxon is
/// rejected. Any other unusable field is dropped and noted (`dropped`), and the row kept.
///
/// - observations → an `obs` record: id `ObservationUUID.exportID`, the export's columns, no photos.
/// - photos → a `photo` record (the open-data URL of the square tier, with `extension`
///   verbatim) and an `obs` link record (`ObservationRecord.Part.links`) to its observation:
///   a photo row is one observation↔photo link, and a photo in k observations has k rows. When
///   ingest prunes by a selection (`pruning`), the link to an observation it removes is left out
///   and a removed observation is marked with its rule; a removed observation's row, or a photo
///   row whose link is left out, whose key has no other row is not written at all, only counted
///   (`ExportLinkPruning.Singles`, `leftOut`).
/// - taxa → a `taxon` record from `open-data`; observers → a `user` record. When ingest prunes
///   and every input is an export table, only the taxa and users a kept row may need are
///   written; the others are counted (`ExportParents`, `countsParents`).
///
/// Not thread-safe: one per table being read. A class: as a struct of 320 bytes, it was copied
/// whole for each of a row's checks (`perf`: a `memcpy` of the row per call). The stored
/// properties touched for every row skip the runtime's exclusivity checks
/// (`@exclusivity(unchecked)`): as a class with them, ingest took a third more CPU than as the
/// struct. One reader uses it, one call at a time.
final class OpenDataRow {
    let header: OpenDataTable.Header
    let seen: Int64?
    /// The parts dropped from the last row written.
    @exclusivity(unchecked) private(set) var dropped: [RecordError] = []
    /// Each field's first and past-the-end offsets in the row (`header.fieldCount` each). Owned
    /// here, freed by `deinit`: as arrays, each row's split asked twice whether they were
    /// uniquely referenced (2% of ingest's samples).
    private let starts: UnsafeMutableBufferPointer<Int>
    private let ends: UnsafeMutableBufferPointer<Int>
    @exclusivity(unchecked) private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private var url: [UInt8] = []
    private let columns: Columns
    /// The row's fields cannot be placed: only its key (field 0) is read.
    @exclusivity(unchecked) private var keyOnly = false
    /// Every byte of the row is ASCII (`split` saw them all): its text fields are UTF-8 without
    /// a check each (`text`).
    @exclusivity(unchecked) private var isASCII = false
    /// When ingest prunes (`ExportLinkPruning`), an observations table's rows the selection's
    /// dedupe rules remove are marked (or, with no other row, counted instead), and a photos
    /// table's links to them are not written (nor, with no other row, the photo); nil: every row
    /// is written as it is.
    @exclusivity(unchecked) var pruning: ExportLinkPruning? = nil {
        didSet { rules = pruning?.rules }
    }
    /// `pruning`'s rules, held beside it for every observations row.
    @exclusivity(unchecked) private var rules: ExportRules? = nil
    /// The links not written because `pruning` says their observation is removed.
    @exclusivity(unchecked) private(set) var prunedLinks = 0
    /// The rows not written at all (`ExportLinkPruning.Singles`): removed observations by rule
    /// (and the newest date of them), and unselected photos.
    /// By rule, in the order first met: a few rules, whose names are the same literals each time
    /// (a dictionary hashed the name for every such row).
    @exclusivity(unchecked) private var leftOutObservations: [(rule: String, count: Int)] = []
    @exclusivity(unchecked) private var leftOutSeen: Int64? = nil
    @exclusivity(unchecked) private var leftOutPhotos = 0
    /// Where in its table (or, for a compressed one, in its inflated bytes) the row the readers
    /// before ingest last gave starts (`rows(of:header:seen:_:)`): which unit of ingest's reading
    /// it is in (`ExportRowFates`).
    @exclusivity(unchecked) var lineOffset = 0
    /// That row's line number as its reader numbers it (a byte range's reader that does not count
    /// the lines before it numbers its first line 2, `ByteRangeLines.reader`).
    @exclusivity(unchecked) var lineNumber = 0
    /// Whether this row reader's table range counts the taxa and users ingest leaves out
    /// (`ExportParents.countingInput`): one range of the whole job does.
    var countsParents = false
    /// The taxa and observers rows not written (`ExportParents`): counted by id once for the
    /// whole job in `leftOut`, by row here for ingest's summary.
    @exclusivity(unchecked) private(set) var leftOutParentRows = 0

    /// Each column's field index (-1: an optional column the header lacks).
    private struct Columns {
        var observationUUID = -1, observerID = -1, latitude = -1, longitude = -1, accuracy = -1, taxonID = -1
        var qualityGrade = -1, observedOn = -1
        var photoID = -1, fileExtension = -1, license = -1, width = -1, height = -1, position = -1
        var ancestry = -1, rankLevel = -1, rank = -1, name = -1, active = -1, login = -1
    }

    init(header: OpenDataTable.Header, seen: Int64?) {
        self.header = header
        self.seen = seen
        starts = .allocate(capacity: header.fieldCount)
        starts.initialize(repeating: 0)
        ends = .allocate(capacity: header.fieldCount)
        ends.initialize(repeating: 0)
        var columns = Columns()
        columns.observationUUID = header.position("observation_uuid")
        columns.observerID = header.position("observer_id")
        columns.latitude = header.position("latitude")
        columns.longitude = header.position("longitude")
        columns.accuracy = header.position("positional_accuracy")
        columns.taxonID = header.position("taxon_id")
        columns.qualityGrade = header.position("quality_grade")
        columns.observedOn = header.position("observed_on")
        columns.photoID = header.position("photo_id")
        columns.fileExtension = header.position("extension")
        columns.license = header.position("license")
        columns.width = header.position("width")
        columns.height = header.position("height")
        columns.position = header.position("position")
        columns.ancestry = header.position("ancestry")
        columns.rankLevel = header.position("rank_level")
        columns.rank = header.position("rank")
        columns.name = header.position("name")
        columns.active = header.position("active")
        columns.login = header.position("login")
        self.columns = columns
    }

    deinit {
        starts.deallocate()
        ends.deallocate()
    }

    /// A line's row as ingest reads it: without a final CR; nil for an empty line.
    static func rowBytes(_ line: LineReader.Line) -> UnsafeRawBufferPointer? {
        var bytes = line.bytes
        if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
        return bytes.isEmpty ? nil : bytes
    }

    /// Whether `line` is an incomplete row at the end of a damaged stream, which ingest rejects.
    static func isIncomplete(_ line: LineReader.Line, of reader: LineReader) -> Bool {
        line.unterminated && reader.damage != nil
    }

    /// A line's row as ingest writes it (`rowBytes`), nil for one it writes nothing of (empty or
    /// incomplete): what the readers before ingest (`ExportLinkPruning`, `ExportTaxa`) judge.
    static func rowBytes(_ line: LineReader.Line, of reader: LineReader) -> UnsafeRawBufferPointer? {
        isIncomplete(line, of: reader) ? nil : rowBytes(line)
    }

    /// Splits `line` and writes its records into `extractor.out` with the source
    /// `"<source><number>"` (spelt only for a row that writes a record).
    ///
    /// - Throws: when the row has no identity (the caller discards what was written).
    func write(_ line: UnsafeRawBufferPointer, number: Int, into extractor: inout RecordExtractor, source: String) throws(RecordError) {
        try split(line)
        let source = Source(prefix: source, line: number)
        switch header.table {
        case .observations: try observation(into: &extractor, source: source)
        case .photos: try photo(into: &extractor, source: source)
        case .taxa: try taxon(into: &extractor, source: source)
        case .observers: try observer(into: &extractor, source: source)
        }
    }

    /// A row's source (`"<input index>:<line>"`), spelt when a record is written.
    private struct Source {
        let prefix: String
        let line: Int
        var text: String { "\(prefix)\(line)" }
    }

    /// The uuid of an observations row that `write` would write, and whether the rules keep it
    /// (`ExportRules.removingRule`), judged on the very values its record gets; nil for a row it
    /// rejects (see `ExportLinkPruning`).
    func observationKey(_ line: UnsafeRawBufferPointer, by rules: ExportRules) -> (ObservationUUID, keeps: Bool)? {
        judgingObservation(line) { rules.removingRule($0) == nil }.map { ($0, keeps: $1) }
    }

    /// The uuid of an observations row that `write` would write, and how `selection`'s rules judge
    /// it before the taxa tables decide its taxon rule (`ExportRules.pending`), on the very values
    /// its record gets; nil for a row it rejects.
    func pendingObservation(_ line: UnsafeRawBufferPointer, by selection: Selection) -> (ObservationUUID, ExportRules.Pending)? {
        judgingObservation(line) { ExportRules.pending(selection, $0) }
    }

    /// Splits an observations row and gives `judge` the record `write` would write of it (without
    /// `full`, only the values the rules read, `observationRecord(full: false)`): its uuid and
    /// `judge`'s answer; nil for a row `write` rejects. The record is lent to `judge`, not
    /// returned (which copied its 274 bytes once more per row).
    @inline(__always)
    private func judgingObservation<T>(_ line: UnsafeRawBufferPointer, full: Bool = false, _ judge: (ObservationRecord) -> T) -> (ObservationUUID, T)? {
        precondition(header.table == .observations)
        var uuid = ObservationUUID(high: 0, low: 0)
        let record: ObservationRecord
        do {
            try split(line)
            record = try observationRecord(full: full, uuid: &uuid)
        } catch {
            return nil
        }
        return (uuid, judge(record))
    }

    /// The observer and taxon of the observations row `observationKey` (or `pendingObservation`) last judged, as `write`
    /// writes them (nil: none, or unusable).
    func observationParents() -> (user: Int64?, taxon: Int64?) {
        precondition(header.table == .observations)
        return (positiveID(columns.observerID, "observer_id"), positiveID(columns.taxonID, "taxon_id"))
    }

    /// The photo id, observation and observer of a photos row, as `write` reads them; nil for a
    /// row it rejects for its field count or its id (see `ExportParents`).
    /// Only the fields up to the last of those are split: a row `write` rejects for its field
    /// count may give them, which at worst writes a user no row needs.
    func photoParents(_ line: UnsafeRawBufferPointer) -> (id: Int64, observation: ObservationUUID?, observer: Int64?)? {
        precondition(header.table == .photos)
        let c = columns
        guard splitPrefix(line, fields: max(c.photoID, c.observationUUID, c.observerID) + 1), let id = id(c.photoID) else { return nil }
        return splitPhotoParents(id: id)
    }

    /// The photo `id`'s observation and observer in the photos row split last, as `write` reads them.
    private func splitPhotoParents(id: Int64) -> (id: Int64, observation: ObservationUUID?, observer: Int64?) {
        (id, ObservationUUID(text(columns.observationUUID, "observation_uuid")), positiveID(columns.observerID, "observer_id"))
    }

    /// What the plan (`ExportLinkPruning`) reads of an observations row when it records fates
    /// (`ExportRowFates`): as `observationKey`, its uuid and the rule that removes it (nil: the
    /// rules keep it), with its record read whole as `write` reads it, and whether that reading
    /// has nothing to say (no part dropped, no NUL byte, every field in its place); nil for a row
    /// `write` rejects.
    func observationPlan(_ line: UnsafeRawBufferPointer, by rules: ExportRules) -> (uuid: ObservationUUID, rule: String?, quiet: Bool)? {
        judgingObservation(line, full: true) { record in (rules.removingRule(record), !keyOnly && dropped.isEmpty && !Self.holdsNUL(line)) }
            .map { ($0, $1.0, $1.1) }
    }

    /// What the plan reads of a photos row when it records fates (`ExportRowFates`): as
    /// `photoParents`, its photo id, observation and observer (nil for a row `write` rejects for
    /// its field count or its id), with its values read whole as `write` reads them, and whether
    /// that reading has nothing to say (the row written, no part dropped, no NUL byte).
    func photoPlan(_ line: UnsafeRawBufferPointer) -> (parents: (id: Int64, observation: ObservationUUID?, observer: Int64?)?, quiet: Bool) {
        precondition(header.table == .photos)
        do {
            try split(line)
        } catch {
            return (photoParents(line), false)
        }
        guard let id = id(columns.photoID) else { return (nil, false) }
        guard let values = try? photoValues() else {
            // Rejected for its extension: its parents as `photoParents` reads them.
            return (splitPhotoParents(id: id), false)
        }
        return ((id, values.observation, values.observer), dropped.isEmpty && !Self.holdsNUL(line))
    }

    /// Whether `line` holds a NUL byte (which the records' writer writes U+FFFD, a finding).
    @inline(__always)
    static func holdsNUL(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let base = line.baseAddress else { return false }
        return memchr(base, 0, line.count) != nil
    }

    /// Whether ingest leaves out the row `line` whose plan found it quiet (`ExportRowFates`,
    /// `fate` not 0), read by its key alone: when no other row has its key (`ExportLinkPruning.Singles`).
    /// Then it is counted as `write` counts it (in `counts`, and as left out); otherwise nothing
    /// is done and the caller writes it.
    @inline(__always)
    func leavesOut(_ line: UnsafeRawBufferPointer, fate: ExportRowFates.Fate, ruleNames: [String], counts: inout RecordCounts) -> Bool {
        guard let pruning else { return false }
        switch header.table {
        case .observations:
            guard let key = Self.field(columns.observationUUID, of: line), let uuid = ObservationUUID(UnsafeRawBufferPointer(rebasing: line[key])),
                  pruning.leavesOut(observation: uuid), Int(fate) <= ruleNames.count
            else { return false }
            counts.observations += 1
            leaveOut(removedBy: ruleNames[Int(fate) - 1])
        case .photos:
            guard let id = photoID(line), pruning.leavesOut(photo: id) else { return false }
            counts.photos += 1
            prunedLinks += 1
            leftOutPhotos += 1
        case .taxa, .observers:
            return false
        }
        return true
    }

    /// Where field `index` of `line` is, found without splitting the fields after it; nil when
    /// the line has fewer fields.
    @inline(__always)
    static func field(_ index: Int, of line: UnsafeRawBufferPointer) -> Range<Int>? {
        guard index >= 0 else { return nil }
        var field = 0
        var start = 0
        var end = line.count
        forEachTab(in: line) { tab in
            guard field == index else {
                field += 1
                start = tab + 1
                return true
            }
            end = tab
            return false
        }
        guard field == index else { return nil }
        return start..<end
    }

    /// Splits the first `count` fields of `line` (false when it has fewer), for the readers
    /// before ingest that need a few leading columns of every row.
    private func splitPrefix(_ line: UnsafeRawBufferPointer, fields count: Int) -> Bool {
        if !dropped.isEmpty { dropped.removeAll(keepingCapacity: true) }
        bytes = line
        keyOnly = false
        isASCII = false
        var field = 0
        var start = 0
        Self.forEachTab(in: line) { end in
            starts[field] = start
            ends[field] = end
            field += 1
            start = end + 1
            return field < count
        }
        if field < count {
            starts[field] = start
            ends[field] = line.count
            field += 1
        }
        return field == count
    }

    /// Gives `body` the offset of each tab of `line` in order, until it returns false: the
    /// tabs of a word of eight bytes found at once (most fields are a few bytes, too short for
    /// a search per field to pay for itself).
    @inline(__always)
    static func forEachTab(in line: UnsafeRawBufferPointer, _ body: (Int) -> Bool) {
        WordBytes.forEach(0x09, in: line, body)
    }

    /// The id and the valid ancestry of a taxa row that `write` would write; nil for a row it
    /// rejects (see `ExportParents`).
    func taxonParents(_ line: UnsafeRawBufferPointer) -> (id: Int64, ancestry: String?)? {
        precondition(header.table == .taxa)
        guard (try? split(line)) != nil, let record = try? taxonRecord() else { return nil }
        return (record.id, record.ancestry)
    }

    /// The id of an observers row that `write` would write; nil for a row it rejects.
    func observerID(_ line: UnsafeRawBufferPointer) -> Int64? {
        precondition(header.table == .observers)
        guard (try? split(line)) != nil else { return nil }
        return id(columns.observerID)
    }

    /// The id of a taxa row that `write` would write, and whether `rule` keeps that taxon, judged
    /// on the ancestry and rank its record gets; nil for a row it rejects (see `ExportTaxa`).
    func taxonDecision(_ line: UnsafeRawBufferPointer, by rule: TaxonRule) -> (id: Int64, keeps: Bool)? {
        precondition(header.table == .taxa)
        guard (try? split(line)) != nil, let record = try? taxonRecord() else { return nil }
        let rank = record.rank?.bytes
        guard var ancestry = record.ancestry else { return (record.id, rule.selects(id: record.id, ancestry: nil, rank: rank)) }
        return (record.id, ancestry.withUTF8 { rule.selects(id: record.id, ancestry: UnsafeRawBufferPointer($0), rank: rank) })
    }

    /// The photo id of a photos row, as `write` reads it; nil when it has none (a row it rejects).
    /// Only the fields up to it are looked at: a row `write` rejects for its field count may
    /// give one, which at worst keeps another row of that id (see `ExportLinkPruning.Singles`).
    func photoID(_ line: UnsafeRawBufferPointer) -> Int64? {
        precondition(header.table == .photos)
        guard let id = Self.field(columns.photoID, of: line) else { return nil }
        return Self.positiveID(in: line, from: id.lowerBound, to: id.upperBound)
    }

    /// Splits `line` on tabs into the fields the columns read, and notes whether it is ASCII.
    private func split(_ line: UnsafeRawBufferPointer) throws(RecordError) {
        if !dropped.isEmpty { dropped.removeAll(keepingCapacity: true) }
        bytes = line
        var field = 0
        var start = 0
        var highBits: UInt64 = 0
        defer { isASCII = highBits == 0 }
        WordBytes.forEach(0x09, in: line, highBits: &highBits) { end in
            if field < starts.count {
                starts[field] = start
                ends[field] = end
            }
            field += 1
            start = end + 1
            return true
        }
        if field < starts.count {
            starts[field] = start
            ends[field] = line.count
        }
        field += 1
        keyOnly = false
        if field != header.fieldCount {
            // Which fields moved is unknown (a tab inside any field shifts the ones after it). An
            // observation or an observer keeps its key, the first column, if it reads as one; a
            // photo or a taxon is nothing without its other columns.
            let reason = "row has \(field) tab-separated fields, the header \(header.fieldCount) (a tab inside a field?)"
            let key = header.table == .observations ? columns.observationUUID : columns.observerID
            guard header.table == .observations || header.table == .observers, key == 0 else { throw RecordError(at: "", reason) }
            if field < header.fieldCount { for index in field..<header.fieldCount { starts[index] = 0; ends[index] = 0 } }
            keyOnly = true
            dropped.append(RecordError(at: "", "\(reason): kept its \(header.table == .observations ? "observation_uuid" : "observer_id"), dropped the other fields"))
        }
    }

    // MARK: Tables

    private func observation(into extractor: inout RecordExtractor, source: Source) throws(RecordError) {
        var uuid = ObservationUUID(high: 0, low: 0)
        let record = try observationRecord(uuid: &uuid)
        extractor.counts.observations += 1
        // Only its uuid could be read: its other values are unknown, not empty. It is written
        // marked so, for dedupe to rank it below any copy with values, and never judged by the
        // rules on values it lacks (unless no other row has its uuid: then it is the observation,
        // and dedupe would remove it by the first rule, as here).
        if keyOnly {
            if let pruning, let rule = rules?.removingRule(record), pruning.leavesOut(observation: uuid) {
                leaveOut(removedBy: rule)
                return
            }
            var marked = record
            marked.part = .keyOnly
            marked.encode(into: &extractor.out, source: source.text)
            return
        }
        // Marked when the selection's dedupe rules remove it (`RemovedObservationLine`).
        if let pruning, let rule = rules?.removingRule(record) {
            if pruning.leavesOut(observation: uuid) {
                // Its only row: dedupe would count it removed by this rule, and do nothing more.
                leaveOut(removedBy: rule)
                return
            }
            // Unmarked, it would read as a copy the rules keep.
            guard let mark = ObservationRecord.Part(removedBy: rule) else { preconditionFailure("no mark for the rule \(rule)") }
            var marked = record
            marked.part = mark
            marked.encode(into: &extractor.out, source: source.text)
            return
        }
        record.encode(into: &extractor.out, source: source.text)
    }

    /// Counts an observations row not written, removed by `rule` (`leftOut`).
    private func leaveOut(removedBy rule: String) {
        if let index = leftOutObservations.firstIndex(where: { $0.rule == rule }) {
            leftOutObservations[index].count += 1
        } else {
            leftOutObservations.append((rule, 1))
        }
        if let seen { leftOutSeen = max(leftOutSeen ?? seen, seen) }
    }

    /// What the rows not written count for dedupe (an ingest `select` line), nil if none.
    var leftOut: DedupedSelectionRecord? {
        guard let pruning else { return nil }
        let parents = countsParents ? pruning.parents : nil
        let (taxa, users) = (parents?.taxaLeftOut ?? 0, parents?.usersLeftOut ?? 0)
        guard leftOutPhotos > 0 || !leftOutObservations.isEmpty || taxa > 0 || users > 0 else { return nil }
        var counts = DedupedSelectionRecord(fingerprint: pruning.fingerprint, rules: pruning.rules.rules, stage: .ingest)
        for (rule, count) in leftOutObservations { counts.removed[rule, default: 0] += count }
        counts.seen = leftOutSeen
        counts.photosNotSelected = leftOutPhotos
        counts.taxaLeftOut = taxa
        counts.usersLeftOut = users
        counts.measured = pruning.measuredDigest
        return counts
    }

    /// The observation record of the split row (valid while its line is), its uuid in `uuid`;
    /// without `full`, only its uuid and the values the selection's rules read
    /// (`ObservedValues(export:)`, the taxon). Callers bind it with `let`, not `var` or `try?`:
    /// either copied the record (274 bytes) once more per row (a removed row whose uuid repeats
    /// is copied to be marked, a rare case).
    private func observationRecord(full: Bool = true, uuid key: inout ObservationUUID) throws(RecordError) -> ObservationRecord {
        let c = columns
        let uuidText = text(c.observationUUID, "observation_uuid")
        guard let uuid = ObservationUUID(uuidText) else { throw keyError(c.observationUUID, "observation_uuid", expected: "a uuid") }
        key = uuid
        var record = ObservationRecord(id: full ? uuid.exportID : 0)
        record.uuid = uuidText
        let droppedBefore = dropped.count
        if full { record.user = positiveID(c.observerID, "observer_id") }
        // The taxon rule reads it (`ExportRules`).
        record.taxon = positiveID(c.taxonID, "taxon_id")
        if let grade = text(c.qualityGrade, "quality_grade") {
            if Selection.isQualityGrade(grade) { record.qualityGrade = grade } else {
                drop("quality_grade", "is \"\(grade.string)\", expected research, needs_id or casual")
            }
        }
        if let date = text(c.observedOn, "observed_on") {
            // A timestamp where a date belongs keeps its date as written, as an API page's does.
            if Timestamp.isRealDate(date.bytes) { record.observedOn = JSONText(start: date.start, count: 10) } else { drop("observed_on", "is \"\(date.string)\", expected a date YYYY-MM-DD") }
        }
        let latitude = number(c.latitude, "latitude", limit: 90)
        let longitude = number(c.longitude, "longitude", limit: 180)
        if let latitude, let longitude {
            record.latitude = latitude
            record.longitude = longitude
        } else if (latitude == nil) != (longitude == nil) {
            drop(latitude == nil ? "longitude" : "latitude", "has no \(latitude == nil ? "latitude" : "longitude") to go with it")
        }
        if full, let accuracy = number(c.accuracy, "positional_accuracy", limit: 1e9) {
            if accuracy >= 0 && accuracy == accuracy.rounded(.down) {
                record.positionalAccuracy = Int64(accuracy)
            } else {
                drop("positional_accuracy", "is \(accuracy), expected a whole number of metres")
            }
        }
        // What the row's values leave unknown, not empty: each dropped one, and a blank date. Not
        // a point: an older API copy's may be the exact one of an observation obscured since, and
        // an unusable point ships as none.
        typealias C = ObservationRecord.Column
        for finding in dropped[droppedBefore...] {
            switch finding.field {
            case "observer_id": record.unknown |= C.user.unknownBit
            case "taxon_id": record.unknown |= C.taxon.unknownBit
            case "quality_grade": record.unknown |= C.qualityGrade.unknownBit
            case "observed_on": record.unknown |= C.observedOn.unknownBit
            case "positional_accuracy": record.unknown |= C.positionalAccuracy.unknownBit
            default: break
            }
        }
        if field(c.observedOn).isEmpty { record.unknown |= C.observedOn.unknownBit }
        record.seen = seen
        return record
    }

    /// A photos row's values as `write` reads them (the split row's, valid while its line is),
    /// every unusable one dropped (noted).
    private struct PhotoValues {
        var id: Int64
        var fileExtension: UnsafeRawBufferPointer
        var width: Int64?, height: Int64?, position: Int64?
        var link: JSONText?
        var observation: ObservationUUID?
        var license: JSONText?
        var observer: Int64?
    }

    /// The values of the split photos row.
    ///
    /// - Throws: when the row has no identity, or no photo URL (`extension`).
    private func photoValues() throws(RecordError) -> PhotoValues {
        let c = columns
        guard let id = id(c.photoID) else { throw keyError(c.photoID, "photo_id", expected: "a positive integer id") }
        let fileExtension = field(c.fileExtension)
        guard !fileExtension.isEmpty else { throw RecordError(at: "extension", "extension is empty: no photo URL") }
        guard fileExtension.allSatisfy(PhotoURL.isExtensionByte) else {
            throw RecordError(at: "extension", "extension \"\(String(decoding: fileExtension, as: UTF8.self))\" is not a file extension: no photo URL")
        }
        let width = photoSide(c.width, "width")
        let height = photoSide(c.height, "height")
        let position = nonNegative(c.position, "position")
        let link = text(c.observationUUID, "observation_uuid")
        let observation = ObservationUUID(link)
        // Not UTF-8: `text` said so, once.
        if observation == nil, link != nil || field(c.observationUUID).isEmpty {
            drop("observation_uuid", link == nil ? "is empty: the photo is linked to no observation" : "is \"\(link!.string)\", expected a uuid: the photo is linked to no observation")
        }
        let license = text(c.license, "license")
        let observer = positiveID(c.observerID, "observer_id")
        if (width == nil) != (height == nil) { drop(width == nil ? "height" : "width", "has no \(width == nil ? "width" : "height") to go with it") }
        return PhotoValues(
            id: id, fileExtension: fileExtension, width: width, height: height, position: position, link: link, observation: observation,
            license: license, observer: observer)
    }

    private func photo(into extractor: inout RecordExtractor, source: Source) throws(RecordError) {
        let values = try photoValues()
        let (id, observation) = (values.id, values.observation)
        var position = values.position
        let seen = self.seen
        extractor.counts.photos += 1
        let linked = observation.map { pruning?.keepsLink(to: $0, date: seen) ?? true }
        if linked == false, pruning?.leavesOut(photo: id) ?? false {
            // Its only row, and its observation is removed: dedupe would count it not selected.
            prunedLinks += 1
            leftOutPhotos += 1
            return
        }
        // https://inaturalist-open-data.s3.amazonaws.com/photos/{id}/square.{extension}: the API's
        // `url` tier, so every tier derives from it as from an API photo's (see `PhotoURL`).
        url.removeAll(keepingCapacity: true)
        url.append(contentsOf: Self.urlPrefix.utf8)
        url.append(contentsOf: String(id).utf8)
        url.append(contentsOf: "/square.".utf8)
        url.append(contentsOf: values.fileExtension)
        url.withUnsafeBytes { url in
            var record = PhotoRecord(id: id, context: .observation, url: JSONText(start: url.baseAddress!, count: url.count))
            record.license = values.license
            if let width = values.width, let height = values.height {
                record.width = width
                record.height = height
            }
            record.position = position
            record.seen = seen
            record.observer = values.observer
            record.encode(into: &extractor.out, source: source.text)
        }
        guard let observation else { return }
        if linked == false {
            prunedLinks += 1
            return
        }
        if position == nil { position = 0 }
        var links = ObservationRecord(id: observation.exportID)
        links.uuid = values.link
        links.photos = [(id, position!)]
        links.part = .links
        links.seen = seen
        links.encode(into: &extractor.out, source: source.text)
    }

    private func taxon(into extractor: inout RecordExtractor, source: Source) throws(RecordError) {
        let record = try taxonRecord()
        extractor.counts.taxa += 1
        // Its checks made (its findings are the same), a taxon the selection cannot keep is not written.
        if let parents = pruning?.parents, !parents.writes(taxon: record.id) {
            leftOutParentRows += 1
            return
        }
        record.encode(into: &extractor.out, source: source.text)
    }

    /// The taxon record of the split row.
    private func taxonRecord() throws(RecordError) -> TaxonRecord {
        let c = columns
        guard let id = id(c.taxonID) else { throw keyError(c.taxonID, "taxon_id", expected: "a positive integer id") }
        guard let name = UserRecord.usableName(text(c.name, "name")) else {
            throw RecordError(at: "name", "taxon \(id) has no usable name (empty, None or not UTF-8), which the bundle's taxa need")
        }
        var record = TaxonRecord(id: id, from: .openData, name: name)
        let droppedBefore = dropped.count
        record.rank = text(c.rank, "rank")
        record.rankLevel = number(c.rankLevel, "rank_level", limit: 1000)
        let ancestry = field(c.ancestry)
        if !ancestry.isEmpty {
            if TaxonRecord.isAncestry(ancestry) {
                record.ancestry = String(decoding: ancestry, as: UTF8.self)
            } else {
                drop("ancestry", "is \"\(String(decoding: ancestry, as: UTF8.self))\", expected taxon ids separated by /")
            }
        }
        let active = field(c.active)
        if active.elementsEqual("true".utf8) {
            record.isActive = true
        } else if active.elementsEqual("false".utf8) {
            record.isActive = false
        } else if !active.isEmpty {
            drop("active", "is \"\(String(decoding: active, as: UTF8.self))\", expected true or false")
        }
        // What the row's values leave unknown, not empty: each dropped one.
        for finding in dropped[droppedBefore...] {
            switch finding.field {
            case "rank": record.unknown |= TaxonRecord.Column.rank.unknownBit
            case "rank_level": record.unknown |= TaxonRecord.Column.rankLevel.unknownBit
            case "ancestry": record.unknown |= TaxonRecord.Column.ancestry.unknownBit
            case "active": record.unknown |= TaxonRecord.Column.isActive.unknownBit
            default: break
            }
        }
        record.seen = seen
        return record
    }

    private func observer(into extractor: inout RecordExtractor, source: Source) throws(RecordError) {
        let c = columns
        guard let id = id(c.observerID) else { throw keyError(c.observerID, "observer_id", expected: "a positive integer id") }
        var record = UserRecord(id: id)
        record.login = text(c.login, "login")
        record.name = UserRecord.usableName(text(c.name, "name"))
        // A row kept for its id alone is undated: any copy with values outranks it.
        record.seen = keyOnly ? nil : seen
        extractor.counts.users += 1
        if let parents = pruning?.parents, !parents.writes(user: id) {
            leftOutParentRows += 1
            return
        }
        record.encode(into: &extractor.out, source: source.text)
    }

    // MARK: Fields

    static let urlPrefix = "https://inaturalist-open-data.s3.amazonaws.com/photos/"

    /// The bytes of field `index` (empty for an absent optional column).
    private func field(_ index: Int) -> UnsafeRawBufferPointer {
        guard index >= 0, !keyOnly || index == 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: bytes[starts[index]..<ends[index]])
    }

    /// A text field: nil when empty; dropped (noted) when it is not UTF-8.
    private func text(_ index: Int, _ name: String) -> JSONText? {
        let value = field(index)
        guard !value.isEmpty else { return nil }
        guard isASCII || isWellFormedUTF8(value) else {
            drop(name, "is not UTF-8")
            return nil
        }
        return JSONText(start: value.baseAddress!, count: value.count)
    }

    /// A positive integer of at most 18 digits, nil for anything else (a key: the caller decides).
    private func id(_ index: Int) -> Int64? {
        guard index >= 0, !keyOnly || index == 0 else { return nil }
        return Self.positiveID(in: bytes, from: starts[index], to: ends[index])
    }

    /// The bytes `start..<end` of `line` as a positive integer id of at most 18 digits, nil
    /// otherwise. Ids are read eight digits at a time (`WordBytes.eightDigits`): a field of at
    /// most eight that ends eight bytes or more into its line is read as the word that ends with
    /// it, the bytes before the field taken as zeros; the last eight of a longer one likewise,
    /// and the digits before them one at a time. At most 18 digits cannot overflow.
    static func positiveID(in line: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int64? {
        let count = end - start
        guard count > 0, count <= 18 else { return nil }
        guard end >= 8 else { return digits(line, start, end).flatMap { $0 > 0 ? $0 : nil } }
        var word = WordBytes.load(line, at: end - 8)
        if count < 8 {
            let before: UInt64 = (1 << UInt64(8 * (8 - count))) - 1
            word = (word & ~before) | (WordBytes.ones &* 0x30 & before)
        }
        guard let last = WordBytes.eightDigits(word) else { return nil }
        var number = Int64(last)
        if count > 8 {
            guard let first = digits(line, start, end - 8) else { return nil }
            number = first &* 100_000_000 &+ number
        }
        return number > 0 ? number : nil
    }

    /// The decimal digits `start..<end` of `line` (at most 18) as a number, nil if one is not a digit.
    private static func digits(_ line: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int64? {
        var number: Int64 = 0
        for offset in start..<end {
            let digit = line[offset] &- 0x30
            guard digit < 10 else { return nil }
            number = number &* 10 &+ Int64(digit)
        }
        return number
    }

    /// A positive integer field that is not the key: nil when empty; dropped (noted) when unusable.
    private func positiveID(_ index: Int, _ name: String) -> Int64? {
        let value = field(index)
        guard !value.isEmpty else { return nil }
        if let id = id(index) { return id }
        drop(name, "is \"\(String(decoding: value, as: UTF8.self))\", expected a positive integer")
        return nil
    }

    /// A photo's width or height: a positive integer up to `PhotoRecord.maximumSide`.
    private func photoSide(_ index: Int, _ name: String) -> Int64? {
        guard let side = positiveID(index, name) else { return nil }
        guard side <= PhotoRecord.maximumSide else {
            drop(name, "is \(side), expected 1 to \(PhotoRecord.maximumSide) pixels")
            return nil
        }
        return side
    }

    /// A whole number of 0 or more (a photo's position): nil when empty; dropped (noted) when
    /// unusable, saying so (`-1` was told "expected a positive integer", where 0 is valid).
    private func nonNegative(_ index: Int, _ name: String) -> Int64? {
        let value = field(index)
        guard !value.isEmpty else { return nil }
        if value.elementsEqual("0".utf8) { return 0 }
        if let number = id(index) { return number }
        drop(name, "is \"\(String(decoding: value, as: UTF8.self))\", expected a whole number of 0 or more")
        return nil
    }

    /// A decimal number within ±`limit`: nil when empty; dropped (noted) when unusable.
    private func number(_ index: Int, _ name: String, limit: Double) -> Double? {
        let value = field(index)
        guard !value.isEmpty else { return nil }
        if let number = Fields.decimal(value), number.isFinite, abs(number) <= limit { return number }
        drop(name, "is \"\(String(decoding: value, as: UTF8.self))\", expected a number within ±\(limit == 1e9 ? "1e9" : String(Int(limit)))")
        return nil
    }

    private func drop(_ field: String, _ reason: String) {
        dropped.append(RecordError(at: field, "\(field) \(reason); dropped \(field)"))
    }

    private func keyError(_ index: Int, _ name: String, expected: String) -> RecordError {
        let value = field(index)
        if value.isEmpty { return RecordError(at: name, "\(name) is empty: the row has no identity") }
        return RecordError(at: name, "\(name) is \"\(String(decoding: value.prefix(60), as: UTF8.self))\", expected \(expected)")
    }
}
