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
        writer.key("occurrences"); writer.int(group.count)
        writer.key("variants")
        writer.beginArray()
        var seen: [UInt64] = []
        for occurrence in group where !seen.contains(occurrence.fields) {
            seen.append(occurrence.fields)
            let buffer = PaddedBuffer(capacity: Int(occurrence.length))
            buffer.count = try source.read(
                at: Int(occurrence.offset), count: Int(occurrence.length),
                into: UnsafeMutableRawBufferPointer(start: buffer.storage, count: Int(occurrence.length)))
            var record = JSONColumns()
            _ = record.load(try parser.parse(buffer))
            writer.beginObject()
            writer.key("license"); writer.string(record.text(PhotoRecord.Column.license))
            writer.key("attribution"); writer.string(record.text(PhotoRecord.Column.attribution))
            writer.key("url"); writer.string(record.text(PhotoRecord.Column.url))
            writer.key("source"); writer.string(record.string(record.count - 1).map(describe))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        shown.append(writer.bytes)
        shownIDs.append(first.id)
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
        try AtomicOutput.write(PrettyJSON.format(report.bytes), to: path)
    }
}
