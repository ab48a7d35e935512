/// A dedupe over its memory budget (`Dedupe.Options.memoryBudget`): the records file is split by
/// key (`RecordKey.spillPartition(of:)`, independent of a shard's `partition(of:)`) into spill
/// files beside the output, each is deduped alone, one at a time, and the deduped partitions are
/// k-way merged by key (`MergedRecords`) into the output: the same bytes as one pass, as every
/// copy of a record is in one partition and the merge restores the deduped file's order.
///
/// Memory: one partition's occurrences (within the budget) at a time, plus a read
/// buffer per partition while merging. Disk: the input twice over, in temp files that any end of
/// the run removes (`AtomicOutput`, `Leftovers`).
struct DedupeSpill {
    let dedupe: Dedupe
    let partitions: Int

    func run(into output: AtomicOutput) throws -> (Dedupe.Summary, ConflictReport) {
        let options = dedupe.options
        let progress = options.progress
        let size = FileSystem.size(options.input) ?? 0
        progress.expect(bytes: progress.byteCount + size)  // after the first pass's bytes
        progress.start()
        defer { progress.finish() }
        var spills: [AtomicOutput?] = try (0..<partitions).map { try AtomicOutput(path: "\(options.output).spill-\($0)") }
        let count = partitions
        let splitter = try PartitionedOutput(parts: spills.map { $0! }, partition: { $0.spillPartition(of: count) })
        try splitter.append(contentsOf: options.input)
        try splitter.finish()
        progress.add(bytes: size)

        var summary = Dedupe.Summary()
        var report = ConflictReport(examples: options.examples, sourceNames: [:])
        var deduped: [AtomicOutput] = []
        for part in 0..<partitions {
            let out = try AtomicOutput(path: "\(options.output).deduped-\(part)")
            guard case .done(let partSummary, let partReport) = try dedupe.dedupe(
                input: spills[part]!.temporaryPath, into: out, progress: .silent())
            else { preconditionFailure("a dedupe without a budget is done") }
            try out.flush()
            spills[part] = nil  // its temp file goes now, not at the end
            deduped.append(out)
            report.mergeInterleaved(partReport)
            for (kind, number) in partSummary.occurrences {
                // Every partition holds every input record.
                summary.occurrences[kind] = kind == RecordKind.input.name
                    ? max(summary.occurrences[kind] ?? 0, number) : (summary.occurrences[kind] ?? 0) + number
            }
            for (kind, number) in partSummary.unique { summary.unique[kind, default: 0] += number }
            summary.filledDimensions += partSummary.filledDimensions
            if let removed = partSummary.selected {
                if summary.selected == nil { summary.selected = removed } else { summary.selected!.add(removed) }
            }
        }
        summary.conflicts = report.counts
        summary.records = summary.occurrences.values.reduce(0, +)
        summary.bytes = size

        // Each partition counted what the selection removed of its share: one line of the sums,
        // where one pass writes it. A partition wrote every photo (it could not know what the
        // others' observations link); the merge of a whole job's partitions, which has seen every
        // written observation and taxon by the time the photos come, leaves out those none refers
        // to, as one pass does. The kept ones go to a file of their own first, so that the select
        // line before them can count the others.
        let merged = try MergedRecords(paths: deduped.map(\.temporaryPath), progress: .silent(), photosUnparsed: true)
        var counts = summary.selected
        let pruning = counts != nil && options.whole
        var referenced: [Int64] = []
        var keptPhotos: SortedIDs? = nil
        // The kept photos, held back until the select line before them is written.
        var photos: AtomicOutput? = nil
        var reachedPhotos = false
        while let record = try merged.next() {
            if record.kind == .selection { continue }
            if !reachedPhotos && RecordKey.rank(of: record.kind) > RecordKey.rank(of: .selection) {
                reachedPhotos = true
                if pruning && referenced.count <= Dedupe.maximumReferenced {
                    keptPhotos = SortedIDs(referenced + options.measuredPhotos)
                    photos = try AtomicOutput(path: "\(options.output).photos")
                } else if let line = counts {
                    try output.write(line.encoded())
                }
                referenced = []
            }
            if pruning && !reachedPhotos && referenced.count <= Dedupe.maximumReferenced
                && (record.kind == .observation || record.kind == .taxon) {
                DedupeSelection.addPhotoReferences(of: record.columns, kind: record.kind, to: &referenced)
            }
            if let keptPhotos, record.kind == .photo, let id = merged.key?.high, !keptPhotos.contains(id) {
                counts?.photosNotSelected += 1
                continue
            }
            let target = photos ?? output
            try target.write(record.bytes)
            try target.write([0x0A])
        }
        if photos != nil || !reachedPhotos, let line = counts { try output.write(line.encoded()) }
        if let photos {
            try photos.flush()
            try output.append(contentsOf: photos.temporaryPath)
        }
        summary.selected = counts
        return (summary, report)
    }
}
