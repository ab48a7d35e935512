/// Photo ids whose licence, attribution or URL (query string ignored) differ between their
/// occurrences: counted per field, with the first `examples` ids shown in full.
struct ConflictReport {
    let examples: Int
    /// Input index → path, to name each variant's source.
    let sourceNames: [Int: String]
    /// Each example as JSON, in id order.
    private(set) var shown: [[UInt8]] = []
    /// The photo id of each example.
    private(set) var shownIDs: [Int64] = []
    private(set) var counts = Dedupe.ConflictCounts()
    private let parser = JSONParser()

    init(examples: Int, sourceNames: [Int: String]) {
        self.examples = examples
        self.sourceNames = sourceNames
    }

    /// A report read back (`ConflictMerge`): its counts, and its examples in id order.
    init(examples: Int, counts: Dedupe.ConflictCounts, shown: [(id: Int64, example: [UInt8])]) {
        self.init(examples: examples, sourceNames: [:])
        self.counts = counts
        self.shownIDs = shown.map(\.id)
        self.shown = shown.map(\.example)
    }

    /// Appends a later part's findings (ids after this part's).
    mutating func merge(_ later: ConflictReport) {
        counts.ids += later.counts.ids
        counts.license += later.counts.license
        counts.attribution += later.counts.attribution
        counts.url += later.counts.url
        let room = max(0, examples - shown.count)
        shown += later.shown.prefix(room)
        shownIDs += later.shownIDs.prefix(room)
    }

    /// Joins the report of another partition of the same records, whose ids interleave with
    /// these (a spill partition): the counts add up, the examples are the first of both by id.
    mutating func mergeInterleaved(_ other: ConflictReport) {
        counts.ids += other.counts.ids
        counts.license += other.counts.license
        counts.attribution += other.counts.attribution
        counts.url += other.counts.url
        let joined: [(id: Int64, example: [UInt8])] = (Array(zip(shownIDs, shown)) + Array(zip(other.shownIDs, other.shown)))
            .sorted { $0.0 < $1.0 }
        shownIDs = joined.prefix(examples).map(\.id)
        shown = joined.prefix(examples).map(\.example)
    }

    mutating func check(_ group: UnsafeBufferPointer<PhotoOccurrence>, source: ReadableFile) throws {
        let first = group[0]
        let license = group.contains { $0.license != first.license }
        let attribution = group.contains { $0.attribution != first.attribution }
        let url = group.contains { $0.url != first.url }
        guard license || attribution || url else { return }
        counts.ids += 1
        if license { counts.license += 1 }
        if attribution { counts.attribution += 1 }
        if url { counts.url += 1 }
        guard shown.count < examples else { return }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("id"); writer.int(first.id)
        writer.key("fields")
        writer.beginArray()
        if license { writer.string("license") }
        if attribution { writer.string("attribution") }
        if url { writer.string("url") }
        writer.endArray()
        writer.key("variants")
        writer.beginArray()
        var seen: [UInt64] = []
        for (position, occurrence) in group.enumerated() where !seen.contains(occurrence.fields) {
            seen.append(occurrence.fields)
            // The variant's best-ranked copy; of copies that tie on every rule (the same content,
            // equally new), the one whose source comes first: the copies ingest kept of them
            // depend on which files it read together (`Satellites`), and their order here on the
            // order of the inputs.
            var variant = try self.variant(occurrence, from: source)
            var end = position + 1
            while end < group.count && !occurrence.outranks(group[end]) && !group[end].outranks(occurrence) {
                let tie = try self.variant(group[end], from: source)
                if let tieSource = tie.source, let best = variant.source, RecordSource.precedes(tieSource, best, paths: sourceNames) {
                    variant = tie
                }
                end += 1
            }
            writer.beginObject()
            writer.key("license"); writer.string(variant.license)
            writer.key("attribution"); writer.string(variant.attribution)
            writer.key("url"); writer.string(variant.url)
            writer.key("source"); writer.string(variant.source.map(describe))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        shown.append(writer.bytes)
        shownIDs.append(first.id)
    }

    /// The fields an example shows of one occurrence, read back from the records file.
    private func variant(
        _ occurrence: PhotoOccurrence, from source: ReadableFile
    ) throws -> (license: String?, attribution: String?, url: String?, source: String?) {
        let buffer = PaddedBuffer(capacity: Int(occurrence.length))
        buffer.count = try source.read(
            at: Int(occurrence.offset), count: Int(occurrence.length),
            into: UnsafeMutableRawBufferPointer(start: buffer.storage, count: Int(occurrence.length)))
        var record = JSONColumns()
        _ = record.load(try parser.parse(buffer))
        return (
            record.string(PhotoRecord.Column.license), record.string(PhotoRecord.Column.attribution),
            record.string(PhotoRecord.Column.url), record.string(record.count - 1)
        )
    }

    /// `3#17` → `path#results[17]`; `3:12` → `path:12`.
    private func describe(_ source: String) -> String {
        let separator = source.firstIndex(where: { $0 == "#" || $0 == ":" })
        guard let separator, let index = Int(source[..<separator]), let path = sourceNames[index] else { return source }
        let rest = source[source.index(after: separator)...]
        if source[separator] == ":" { return "\(path):\(rest)" }
        return rest.isEmpty ? path : "\(path)#results[\(rest)]"
    }

    func write(to path: String) throws {
        try AtomicOutput.write(text, to: path)
    }

    /// The report as `conflicts.json` holds it.
    var text: String {
        var examplesJSON = JSONWriter()
        examplesJSON.beginArray()
        for example in shown { examplesJSON.raw(example) }
        examplesJSON.endArray()
        var report = JSONWriter()
        report.beginObject()
        report.key("photos_with_conflicts"); report.int(counts.ids)
        report.key("license"); report.int(counts.license)
        report.key("attribution"); report.int(counts.attribution)
        report.key("url"); report.int(counts.url)
        report.key("examples"); report.raw(examplesJSON.bytes)
        report.endObject()
        return PrettyJSON.format(report.bytes)
    }
}
