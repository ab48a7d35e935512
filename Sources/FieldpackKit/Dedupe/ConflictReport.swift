/// Photo ids whose licence, attribution or URL (query string ignored) differ between their
/// occurrences: counted per field, with the first `examples` ids shown in full.
struct ConflictReport {
    let examples: Int
    private var writer = JSONWriter()
    private var shown = 0
    private let parser = JSONParser()

    init(examples: Int) {
        self.examples = examples
        writer.beginArray()
    }

    mutating func check(_ group: ArraySlice<Occurrence>, source: ReadableFile, counts: inout Dedupe.ConflictCounts) throws {
        let first = group[group.startIndex]
        let license = group.contains { $0.license != first.license }
        let attribution = group.contains { $0.attribution != first.attribution }
        let url = group.contains { $0.url != first.url }
        guard license || attribution || url else { return }
        counts.ids += 1
        if license { counts.license += 1 }
        if attribution { counts.attribution += 1 }
        if url { counts.url += 1 }
        guard shown < examples else { return }
        shown += 1
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
        var seen: [(UInt32, UInt32, UInt32)] = []
        for occurrence in group {
            let key = (occurrence.license, occurrence.attribution, occurrence.url)
            if seen.contains(where: { $0 == key }) { continue }
            seen.append(key)
            let buffer = PaddedBuffer(capacity: Int(occurrence.length))
            buffer.count = try source.read(
                at: Int(occurrence.offset), count: Int(occurrence.length),
                into: UnsafeMutableRawBufferPointer(start: buffer.storage, count: Int(occurrence.length)))
            let record = try parser.parse(buffer)
            writer.beginObject()
            writer.key("license"); writer.string(record["license"]?.text)
            writer.key("attribution"); writer.string(record["attribution"]?.text)
            writer.key("url"); writer.string(record["url"]?.text)
            writer.key("src"); writer.string(record["src"]?.text)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    mutating func write(to path: String, counts: Dedupe.ConflictCounts, summary: Dedupe.Summary) throws {
        writer.endArray()
        var report = JSONWriter()
        report.beginObject()
        report.key("photos_with_conflicts"); report.int(counts.ids)
        report.key("license"); report.int(counts.license)
        report.key("attribution"); report.int(counts.attribution)
        report.key("url"); report.int(counts.url)
        report.key("examples"); report.raw(writer.bytes)
        report.endObject()
        report.newline()
        try AtomicOutput.write(String(decoding: report.bytes, as: UTF8.self), to: path)
    }
}
