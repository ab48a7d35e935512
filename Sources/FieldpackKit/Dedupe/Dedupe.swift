#if canImport(Glibc)
import Glibc
#endif

/// The dedupe stage: one record per id for taxa, users and photos, and per uuid for observations
/// (the open-data export knows an observation only by its uuid; one without a uuid is keyed on
/// its id).
///
/// The newest copy wins (`updated_at`, of the record or of the observation it came in), whatever
/// file it came from; ties fall to deterministic rules (see `PhotoOccurrence.outranks` and
/// `RecordOccurrence.outranks`). Photo identity is the photo id, never the URL; a winner without
/// dimensions takes them from another occurrence, a taxon without a photo list takes one from a
/// taxa-endpoint copy, and a taxon's species count is the largest of all its copies' counts.
/// An open-data copy that wins takes what the export lacks from the best API copy, and an
/// observation's export copy its photo links from its export's photo rows (see `Winners`).
///
/// Memory: one compact occurrence per record, for photos in one pass and for the other kinds in
/// another, in arrays sized exactly and sorted in place. Record bytes are read back from the
/// input only for winners.
public struct Dedupe: Sendable {
    public struct Options: Sendable {
        public var input: String
        public var output: String
        public var conflicts: String
        /// How many example ids the conflicts report lists.
        public var examples = Dedupe.defaultExamples
        /// Bytes read in the three scans of the input, and the records of the first.
        public var progress = StageProgress.silent("dedupe")
        /// The memory budget: the bytes of compact occurrences (`RecordOccurrence`,
        /// `PhotoOccurrence`) held at once, known from the first pass's counts. An input whose
        /// occurrences need more is split by key (`RecordKey.spillPartition(of:)`) into spill
        /// partitions beside the output, each within the budget, deduped one at a time and merged
        /// by key (see `DedupeSpill`), so memory does not grow with the input. The output is the
        /// same bytes. At the default, 1M observations (2.7M photo occurrences, 175 MB) fit,
        /// with a peak RSS of about 200 MB.
        public var memoryBudget = 192 << 20
        /// The pipeline's `select`: dedupe applies the rules of it that read only a winning
        /// observation's own values (`DedupeSelection`); nil: every observation is written.
        public var selection: Selection? = nil
        /// The photos with measured sizes (`ShippingPolicy.measuredSizes`): the bundle decides
        /// them to fit its download figures even when the selection leaves them out, so dedupe
        /// writes them whatever it keeps.
        public var measuredPhotos: [Int64] = []
        /// Whether `input` is the whole job's records (not a dedupe shard's partition of them):
        /// only then does dedupe know every observation that links a photo, and leave out the
        /// photos none of its written records refers to (see `dedupe(input:…)`).
        public var whole = true

        public init(input: String, output: String, conflicts: String) {
            self.input = input
            self.output = output
            self.conflicts = conflicts
        }
    }

    public struct Summary: Sendable {
        public var occurrences: [String: Int] = [:]
        public var unique: [String: Int] = [:]
        public var filledDimensions = 0
        public var conflicts = ConflictCounts()
        public var records = 0
        public var bytes = 0
        /// The spill partitions the input was split into (0: it fit the memory budget).
        public var spillPartitions = 0
        /// The observations the selection's dedupe rules removed (nil: no such rules).
        public var selected: DedupedSelectionRecord? = nil
    }

    /// How many conflicting photo ids the conflicts report shows in full, unless told.
    public static let defaultExamples = 20

    public struct ConflictCounts: Sendable, Equatable {
        public var license = 0
        public var attribution = 0
        public var url = 0
        public var ids = 0
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> Summary {
        _ = try ReadableFile.nonEmpty(options.input, writtenBy: "fieldpack-inat")  // fail early, naming the path
        try FileSystem.refuseOutputs([options.output, options.conflicts], overwriting: [options.input])
        let output = try AtomicOutput(path: options.output)
        let summary: Summary
        let report: ConflictReport
        switch try dedupe(input: options.input, into: output, progress: options.progress, budget: options.memoryBudget, whole: options.whole) {
        case .done(let done, let conflicts):
            (summary, report) = (done, conflicts)
        case .overBudget(let needed):
            // Partitions of about the budget each, and one more for the hash's unevenness.
            let partitions = needed / max(1, options.memoryBudget) + 1
            var spilled: Summary
            (spilled, report) = try DedupeSpill(dedupe: self, partitions: partitions).run(into: output)
            spilled.spillPartitions = partitions
            summary = spilled
        }
        // Both written out before either is put in place: a failure leaves both as they were.
        let conflicts = try AtomicOutput(path: options.conflicts)
        try conflicts.write(report.text)
        try AtomicOutput.commitAll([output, conflicts])
        return summary
    }

    /// What `dedupe(input:…)` did: the whole job, or nothing past the first pass because the
    /// occurrences would need `needed` bytes, over the budget.
    enum Outcome {
        case done(Summary, ConflictReport)
        case overBudget(needed: Int)
    }

    /// The bytes of occurrences a dedupe of records with these counts (per `RecordKind`) holds at
    /// once: taxa, users and observations in one pass, photos in the next.
    static func occurrenceBytes(_ counts: [Int]) -> Int {
        let records = [RecordKind.taxon, .user, .observation].reduce(0) { $0 + counts[$1.rawValue] }
        return max(records * MemoryLayout<RecordOccurrence>.stride, counts[RecordKind.photo.rawValue] * MemoryLayout<PhotoOccurrence>.stride)
    }

    /// Refuses export photo rows and export observations that share no export date: a photo row
    /// links only to the copy of its own export (`Winners.exportLinks`), so a photos table dated
    /// otherwise than the observations table (a loose `photos.csv.gz` undated beside an
    /// `inaturalist-open-data-YYYYMMDD/` folder, or two months' tables mixed) left every export
    /// photo unlinked with exit 0. Two whole exports share their dates, and pass.
    static func refuseExportsOfOtherDates(_ observations: UnsafeMutableBufferPointer<RecordOccurrence>, path: String) throws {
        var observationDates = Set<Int64>()
        var linkDates = Set<Int64>()
        for occurrence in observations where !occurrence.fromAPI {
            if occurrence.isLinks { linkDates.insert(occurrence.seen) } else { observationDates.insert(occurrence.seen) }
        }
        guard !linkDates.isEmpty, !observationDates.isEmpty, linkDates.isDisjoint(with: observationDates) else { return }
        func dates(_ set: Set<Int64>) -> String {
            set.sorted().map { $0 == Int64.min ? "no date" : String(Timestamp.iso8601(seconds: $0 / 1000).prefix(10)) }.joined(separator: ", ")
        }
        throw FieldpackError(
            path: path,
            "the open-data export's photo rows and observations share no export date (photo rows: \(dates(linkDates)); observations: \(dates(observationDates))): "
                + "a photo row links only to its own export's observations, so no export photo would be linked; give loose tables "
                + "one date (the pipeline's open_data_date), or keep each export's tables in its inaturalist-open-data-YYYYMMDD folder")
    }

    /// Dedupes the records file `input` into `output` (not committed). Every rule here is local
    /// to one key, so `input` may be any partition by key of the job's records (a shard's, or a
    /// spill partition): the rules that need every record at once are the bundle stage's
    /// (`ExportObservationRules`). With a `budget`, an input whose occurrences need more is left
    /// after the first pass, with nothing written. Only the `whole` job's records (not a shard's
    /// or a spill partition's) show every observation that links a photo: then, under a
    /// selection, a photo that no written observation links and no written taxon refers to is
    /// not written, only counted (`DedupedSelectionRecord.photosNotSelected`).
    func dedupe(input: String, into output: AtomicOutput, progress: StageProgress, budget: Int? = nil, whole: Bool = false) throws -> Outcome {
        var summary = Summary()
        let trace = PhaseTrace(stage: "dedupe")
        summary.bytes = FileSystem.size(input) ?? 0
        let parser = JSONParser()

        // The file is read as two line-aligned halves by two threads; each pass keeps file order.
        let ranges = try FileRangeSource.lineAlignedRanges(path: input, parts: 2)
        progress.expect(bytes: 3 * summary.bytes)
        progress.start()
        // Over the budget, the spill goes on with the same progress line.
        var handsOnProgress = false
        defer { if !handsOnProgress { progress.finish() } }

        // Pass 1: the inputs (and ingest's counts), and how many records of each kind each half holds.
        let counting = try ParallelScan.run(path: input, ranges: ranges, progress: progress) { _, kind, line, _ -> [UInt8]? in
            kind == .input || kind == .selection ? Array(line) : nil
        }
        let counts = counting.counts
        let totals = RecordKind.allCases.map { kind in counts.reduce(0) { $0 + $1[kind.rawValue] } }
        let lines = { (kind: RecordKind) in counting.items.filter { line in line.withUnsafeBytes { RecordKind.of($0) } == kind } }
        let counted = try ingestCounts(lines(.selection), parser: parser)
        if let budget, Self.occurrenceBytes(totals) > budget {
            handsOnProgress = true
            return .overBudget(needed: Self.occurrenceBytes(totals))
        }
        for kind in RecordKind.allCases where kind != .selection { summary.occurrences[kind.name] = totals[kind.rawValue] }
        summary.records = summary.occurrences.values.reduce(0, +)
        let judge = DedupeSelection(options.selection, pruned: try prunedDigests(lines(.input), parser: parser))
        let (sourceNames, exportGivesPhotos) = try writeInputs(lines(.input), to: output, parser: parser, judge: judge)
        let leftOut = try sum(counted, judge: judge)
        trace.mark("count")

        // Pass 2: taxa, users and observations (one array each, filled the same way), written before
        // the photos so that the bundle knows every observer before it credits a photo. Scoped, so
        // their memory is freed before the next pass.
        // What the rules removed: its line goes after the observations, before the photos.
        var selected = judge?.emptyCounts()
        if let leftOut { selected?.add(leftOut) }
        // The photos the written records refer to, when photos no one refers to are not written.
        let referencing = whole && judge != nil
        var referenced: [Int64] = []
        let budget = ReferenceBudget(limit: Self.maximumReferenced)
        do {
            let otherKinds: [RecordKind] = [.taxon, .user, .observation]
            let records = try ParallelScan.collect(
                path: input, ranges: ranges, kinds: otherKinds, counts: counts, progress: progress
            ) { reader, kind, line, offset -> RecordOccurrence? in
                // An export copy ingest marked removed (its rules are this dedupe's: `checkPruning`).
                if kind == .observation, let judge, let removed = RemovedObservationLine(line) {
                    guard let rule = judge.rules.firstIndex(of: removed.rule) else {
                        throw FieldpackError(
                            path: options.input,
                            "a record (\(place(offset, in: input))) is marked removed by \"\(removed.rule)\", a rule this dedupe does not apply")
                    }
                    return RecordOccurrence(
                        id: removed.key.high, low: removed.key.low, seen: removed.seen ?? Int64.min, content: removed.content,
                        offset: Int64(offset), length: Int32(line.count), rank: Int32(rule + 1) << RecordOccurrence.removedShift)
                }
                let record = try reader.load(line, offset: offset)
                var rank: Int32 = 0
                let seen: Int64?
                let id = try requiredID(record, offset: offset)
                // Observations are one on their uuid (the export has no id; see `RecordKey`).
                let key = RecordKey.of(kind, record) ?? RecordKey(kind: kind, high: id)
                switch kind {
                case .taxon:
                    if !TaxonRecord.isFromOpenData(record) { rank |= 16 }
                    if TaxonRecord.isFromTaxa(record) { rank |= 2 }
                    if record[TaxonRecord.Column.photos]?.isArray ?? false { rank |= 1 }
                    if record.int64(TaxonRecord.Column.speciesCount) != nil { rank |= 4 }
                    seen = record.int64(TaxonRecord.Column.seen)
                case .user: seen = record.int64(UserRecord.Column.seen)
                default:
                    typealias C = ObservationRecord.Column
                    seen = record.int64(C.seen)
                    if record.text(C.part)?.bytes.starts(with: RemovedObservationLine.mark) ?? false {
                        throw FieldpackError(
                            path: options.input,
                            "a record (\(place(offset, in: input))) is marked removed but is not the shape fieldpack-inat writes")
                    }
                    if record.text(C.part)?.equals(ObservationRecord.Part.keyOnly.tag) ?? false { rank |= RecordOccurrence.keyOnly }
                    if id > 0 {
                        rank |= 16
                        // A copy that lists its photos (`ObservationRecord.photosListed`).
                        if record[C.photos]?.isArray ?? false { rank |= 1 }
                        if record.int64(C.unknown) ?? 0 != 0 { rank |= RecordOccurrence.hasUnknown }
                    } else if let judge, !ObservationRecord.isLinks(record), let rule = judge.removingRule(record) {
                        // An export copy, judged while it is parsed (`RecordOccurrence.removedBy`).
                        rank |= Int32(rule + 1) << RecordOccurrence.removedShift
                    }
                    if ObservationRecord.isLinks(record) {
                        rank |= 8
                        // Its one link, held in the occurrence: never read back (`Winners.exportLinks`).
                        if let (photo, position) = ObservationRecord.singleLink(record) {
                            return RecordOccurrence(
                                id: key.high, low: key.low, seen: seen ?? Int64.min, content: UInt64(bitPattern: photo),
                                offset: position, length: Int32(line.count), rank: rank | RecordOccurrence.heldLink)
                        }
                    }
                }
                return RecordOccurrence(
                    id: key.high, low: key.low, seen: seen ?? Int64.min,
                    content: RecordSource.contentHash(line),
                    offset: Int64(offset), length: Int32(line.count), rank: rank)
            }
            trace.mark("collect records")
            try Self.refuseExportsOfOtherDates(records[otherKinds.firstIndex(of: .observation)!].buffer, path: input)
            for (slot, kind) in otherKinds.enumerated() {
                sortInPlace(records[slot].buffer) {
                    $0.id != $1.id ? $0.id < $1.id : $0.low != $1.low ? $0.low < $1.low : $0.outranks($1)
                }
                let selection = kind == .observation ? judge : nil
                let tally = try ParallelWrite.run(
                    records[slot], path: input, output: output, sourceNames: sourceNames, exportGivesPhotos: exportGivesPhotos,
                    selection: selection
                ) { winners, tally, group in
                    let start = winners.pendingCount
                    try winners.writeRecord(group, kind: kind, removed: &tally.removed)
                    if referencing && kind != .user && winners.pendingCount > start && !budget.exceeded {
                        let before = tally.referenced.count
                        try winners.photoReferences(since: start, kind: kind, into: &tally.referenced)
                        if !budget.take(tally.referenced.count - before) { tally.referenced = [] }
                    }
                } makeReport: { ConflictReport(examples: 0, sourceNames: [:]) }
                summary.unique[kind.name] = tally.reduce(0) { $0 + $1.unique }
                for part in tally {
                    if let counts = part.removed { selected?.add(counts) }
                    referenced += part.referenced
                }
            }
            trace.mark("write records")
        }
        // Photos no written record refers to are left out, unless there are too many of the
        // others to hold (a selection that keeps most of a large dump leaves out little).
        var keptPhotos: SortedIDs? = nil
        if referencing && !budget.exceeded {
            keptPhotos = SortedIDs(referenced + options.measuredPhotos)
        }
        referenced = []

        // Pass 3: photos, into one array sized exactly; each half fills its own region.
        var report = ConflictReport(examples: options.examples, sourceNames: sourceNames)
        do {
            let photos = try ParallelScan.collect(
                path: input, ranges: ranges, kinds: [.photo], counts: counts, progress: progress
            ) { reader, kind, line, offset -> PhotoOccurrence? in
                guard kind == .photo else { return nil }
                typealias C = PhotoRecord.Column
                let record = try reader.load(line, offset: offset)
                let id = try requiredID(record, offset: offset)
                let observationPhoto = PhotoRecord.isObservationPhoto(record)
                let position = Int32(clamping: record.int64(C.position) ?? 0)
                let url = record.text(C.url)
                let fields = PhotoOccurrence.fields(
                    license: record.text(C.license), attribution: record.text(C.attribution), url: url, urlWithoutQuery: url.map(Self.withoutQuery),
                    hidden: record[C.hidden]?.bool ?? false)
                return PhotoOccurrence(
                    id: id, seen: record.int64(C.seen) ?? Int64.min, observation: record.int64(C.observation) ?? 0,
                    content: PhotoOccurrence.content(
                        hash: RecordSource.contentHash(line), namesCredit: UserRecord.usableName(record.text(C.attributionName)) != nil),
                    offset: Int64(offset), rank: (observationPhoto ? 1 << 30 : 0) - max(-(1 << 29), min(position, 1 << 29)),
                    length: Int32(line.count), width: Int32(clamping: record.int64(C.width) ?? -1),
                    height: Int32(clamping: record.int64(C.height) ?? -1), fields: fields)
            }[0]
            trace.mark("collect photos")
            sortInPlace(photos.buffer) { $0.id != $1.id ? $0.id < $1.id : $0.outranks($1) }
            trace.mark("sort photos")
            if var removed = selected {
                // After the observations, before the photos (`RecordKey.fileOrder`).
                if let keptPhotos { removed.photosNotSelected += keptPhotos.missing(fromSorted: UnsafeBufferPointer(photos.buffer)) }
                try output.write(removed.encoded())
                summary.selected = removed
            }
            let photoTally = try ParallelWrite.run(photos, path: input, output: output, sourceNames: sourceNames) { [keptPhotos] winners, tally, group in
                if keptPhotos?.contains(group[0].id) ?? true { try winners.writePhoto(group, filled: &tally.filledDimensions) }
                if group.count > 1 { try tally.report.check(group, source: winners.source) }
            } makeReport: { [sourceNames, examples = options.examples] in ConflictReport(examples: examples, sourceNames: sourceNames) }
            for part in photoTally { report.merge(part.report) }
            summary.unique["photo"] = photoTally.reduce(0) { $0 + $1.unique }
            summary.filledDimensions = photoTally.reduce(0) { $0 + $1.filledDimensions }
            summary.conflicts = report.counts
            trace.mark("write photos")
        }
        return .done(summary, report)
    }

    /// Photos referred to past which dedupe writes every photo (32 MB of ids).
    static let maximumReferenced = 4_000_000

    private func requiredID(_ record: JSONColumns, offset: Int) throws -> Int64 {
        guard let id = record.int64(1) else {
            throw FieldpackError.atByte(offset, of: options.input, "the record has no integer id")
        }
        return id
    }

    static func withoutQuery(_ url: JSONText) -> JSONText {
        if let question = memchr(url.start, Int32(UInt8(ascii: "?")), url.count) {
            return JSONText(start: url.start, count: UnsafeRawPointer(question) - url.start)
        }
        return url
    }

    /// Where byte `offset` of `input` is, for the user: of the records file given, or of a
    /// spill partition of it (a temp file, gone by the time the error is read).
    private func place(_ offset: Int, in input: String) -> String {
        "byte \(offset) of \(input == options.input ? "this file" : "a spill partition of it")"
    }

    /// The digests the inputs were pruned under (`InputRecord.Column.pruned`).
    private func prunedDigests(_ lines: [[UInt8]], parser: JSONParser) throws -> [String] {
        var columns = JSONColumns()
        return try lines.compactMap { line in
            _ = columns.load(try parser.parse(PaddedBuffer(copying: line)))
            return columns.string(InputRecord.Column.pruned)
        }
    }

    /// Refuses an input that ingest pruned under rules other than dedupe's own
    /// (`ExportLinkPruning`): observations it would keep would lack their photos, and rows marked
    /// removed would be removed by rules it does not apply.
    private func checkPruning(_ input: JSONColumns, judge: DedupeSelection?) throws {
        let path = input.string(InputRecord.Column.path) ?? "?"
        // The taxon rule was decided on the export's taxa alone: no other input may bring a taxon.
        if let judge, judge.taxaKnown, let format = input.string(InputRecord.Column.format), !OpenDataTable.isTableFormat(format) {
            throw FieldpackError(
                path: options.input,
                "\(path) (\(format)) is among records ingest pruned by the taxon rule, which it applies only when every input "
                    + "is a table of the open-data export: run fieldpack-inat once on all the inputs")
        }
        guard let pruned = input.string(InputRecord.Column.pruned) else { return }
        guard let selection = judge else {
            throw FieldpackError(
                path: options.input,
                "\(path) was pruned by a selection's rules as it was read (\(pruned.prefix(12))…: removed observations marked, photo "
                    + "links to them left out), and this dedupe applies none: give fieldpack-dedupe the --pipeline fieldpack-inat read")
        }
        if selection.fingerprint != pruned {
            throw FieldpackError(
                path: options.input,
                "\(path) was pruned as it was read by other selection rules (\(pruned.prefix(12))…) than this "
                    + "pipeline's (\(selection.fingerprint.prefix(12))…): run fieldpack-inat again with this pipeline")
        }
    }

    /// Ingest's `select` lines: the rows it counted instead of writing (`ExportLinkPruning.Singles`).
    /// - Throws: for a deduped file's `select` line, or a line of neither shape.
    private func ingestCounts(_ lines: [[UInt8]], parser: JSONParser) throws -> [DedupedSelectionRecord] {
        var columns = JSONColumns()
        return try lines.map { line in
            _ = columns.load(try parser.parse(PaddedBuffer(copying: line)))
            guard let counted = DedupedSelectionRecord(columns) else {
                throw FieldpackError(
                    path: options.input,
                    "holds a \"select\" line that is not [\"select\", fingerprint, {rule: count}, seen, photos, stage, measured, taxa left out, users left out]: "
                        + "\(String(decoding: line.prefix(200), as: UTF8.self)): give fieldpack-dedupe the records file fieldpack-inat wrote")
            }
            guard counted.stage == .ingest else {
                throw FieldpackError(
                    path: options.input,
                    "holds \"select\" lines (what a dedupe's selection removed): a deduped records file, not fieldpack-inat's records: "
                        + "give fieldpack-dedupe the records file fieldpack-inat wrote")
            }
            return counted
        }
    }

    /// The sum of ingest's counts, each under this dedupe's rules; nil when there are none.
    /// - Throws: for counts made under other rules, or under rules this dedupe does not apply.
    private func sum(_ counts: [DedupedSelectionRecord], judge: DedupeSelection?) throws -> DedupedSelectionRecord? {
        var sum: DedupedSelectionRecord? = nil
        let measured = DedupedSelectionRecord.measuredDigest(options.measuredPhotos)
        for counted in counts {
            guard let judge, counted.fingerprint == judge.fingerprint else {
                throw FieldpackError(
                    path: options.input,
                    "holds rows fieldpack-inat left out under a select other than this dedupe's \(judge == nil ? "(it has none: give --pipeline)" : "--pipeline"): run both stages with the same pipeline")
            }
            guard counted.measured == measured else {
                throw FieldpackError(
                    path: options.input,
                    "holds rows fieldpack-inat left out under other measured sizes (costs.measured_sizes, digest \(counted.measured ?? "none")) "
                        + "than this dedupe's (digest \(measured)): a photo this dedupe must write may be missing: run both stages with the same pipeline")
            }
            if sum == nil { sum = judge.emptyCounts() }
            sum!.add(counted)
        }
        return sum
    }

    /// Writes the inputs in path order, once each, so the output does not depend on argument
    /// order (see `DedupedInputRecord`).
    ///
    /// - Returns: each input's path by its index, to name the sources of records, and whether an
    ///   input is the export's photos table (or its archive, which holds it).
    private func writeInputs(
        _ lines: [[UInt8]], to output: AtomicOutput, parser: JSONParser, judge: DedupeSelection?
    ) throws -> (sourceNames: [Int: String], exportGivesPhotos: Bool) {
        var entries: [[UInt8]] = []
        var sourceNames: [Int: String] = [:]
        var exportGivesPhotos = false
        var columns = JSONColumns()
        for line in lines {
            _ = columns.load(try parser.parse(PaddedBuffer(copying: line)))
            if let index = columns.int64(InputRecord.Column.index), let path = columns.string(InputRecord.Column.path) {
                sourceNames[Int(index)] = path
            }
            if let format = columns.string(InputRecord.Column.format), OpenDataTable.givesPhotos(format) { exportGivesPhotos = true }
            try checkPruning(columns, judge: judge)
            guard let input = DedupedInputRecord(ingest: columns) else {
                throw FieldpackError(path: options.input, "an input record has no path: \(String(decoding: line, as: UTF8.self))")
            }
            var writer = JSONWriter()
            input.encode(into: &writer)
            entries.append(writer.bytes)
        }
        entries.sort { $0.lexicographicallyPrecedes($1) }
        var previous: [UInt8]? = nil
        for entry in entries where entry != previous {
            try output.write(entry)
            previous = entry
        }
        return (sourceNames, exportGivesPhotos)
    }
}

/// An occurrence's record key: occurrences of one key are one group, whose first (once sorted)
/// wins.
protocol HasID {
    var id: Int64 { get }
    func sameKey(as other: Self) -> Bool
}

extension PhotoOccurrence: HasID {
    @inline(__always) func sameKey(as other: PhotoOccurrence) -> Bool { id == other.id }
}

extension RecordOccurrence: HasID {
    @inline(__always) func sameKey(as other: RecordOccurrence) -> Bool { id == other.id && low == other.low }
}
