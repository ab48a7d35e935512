/// Writes each id's winning record, read back from the records file, without its source and with
/// gaps (photo dimensions, a taxon's photo list) filled from the other occurrences, and a taxon's
/// species count the largest of its occurrences'.
struct Winners {
    let source: ReadableFile
    let output: AtomicOutput
    private var line = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []
    private let parser = JSONParser()

    init(source: ReadableFile, output: AtomicOutput) {
        self.source = source
        self.output = output
        pending.reserveCapacity(1 << 20)
    }

    mutating func writePhoto(_ group: UnsafeBufferPointer<PhotoOccurrence>, filled: inout Int) throws {
        let winner = group[0]
        guard winner.width < 0 || winner.height < 0, group.count > 1,
              let donor = group.first(where: { $0.width >= 0 && $0.height >= 0 })
        else {
            return try emitDirect(offset: winner.offset, length: winner.length)
        }
        // Rebuild the winner with the donor's dimensions.
        let record = try content(offset: winner.offset, length: winner.length)
        try rewrite(record, offset: winner.offset, replacing: [
            PhotoRecord.Column.width.rawValue: Array(String(donor.width).utf8),
            PhotoRecord.Column.height.rawValue: Array(String(donor.height).utf8),
        ])
        filled += 1
    }

    mutating func writeRecord(_ group: UnsafeBufferPointer<RecordOccurrence>, taxon: Bool) throws {
        let winner = group[0]
        guard taxon && group.count > 1 else { return try emitDirect(offset: winner.offset, length: winner.length) }
        var replacing: [Int: [UInt8]] = [:]
        if !winner.hasList, let donor = group.first(where: { $0.hasList }) {
            // The photo list of a taxa-endpoint copy.
            let columns = try load(donor)
            var list = JSONWriter()
            if let photos = columns[TaxonRecord.Column.photos] { list.value(photos) } else { list.null() }
            replacing[TaxonRecord.Column.photos.rawValue] = list.bytes
        }
        // The largest species count of all copies: the same whatever order the pages came in, and
        // the same when one page is read twice (see `TaxonRecord.Column.speciesCount`).
        var largest: Int64? = nil
        for occurrence in group where occurrence.hasSpeciesCount {
            if let count = try load(occurrence).int64(TaxonRecord.Column.speciesCount) { largest = max(largest ?? count, count) }
        }
        if let largest {
            let current = winner.hasSpeciesCount ? try load(winner).int64(TaxonRecord.Column.speciesCount) : nil
            if current != largest { replacing[TaxonRecord.Column.speciesCount.rawValue] = Array(String(largest).utf8) }
        }
        if replacing.isEmpty { return try emitDirect(offset: winner.offset, length: winner.length) }
        let record = try content(offset: winner.offset, length: winner.length)
        try rewrite(record, offset: winner.offset, replacing: replacing)
    }

    /// The columns of the record at `occurrence` (valid until the next parse).
    private mutating func load(_ occurrence: RecordOccurrence) throws -> JSONColumns {
        let record = try content(offset: occurrence.offset, length: occurrence.length)
        var columns = JSONColumns()
        _ = columns.load(try parse(record + [UInt8(ascii: "]")], offset: occurrence.offset))
        return columns
    }

    private func parse(_ bytes: [UInt8], offset: Int64) throws -> JSONValue {
        do {
            return try parser.parse(PaddedBuffer(copying: bytes))
        } catch {
            throw FieldpackError(path: source.path, "record at byte \(offset) is not valid JSON: \(error)")
        }
    }

    /// Emits `record` (without its source) with some columns replaced by raw JSON.
    private mutating func rewrite(_ record: [UInt8], offset: Int64, replacing: [Int: [UInt8]]) throws {
        var columns = JSONColumns()
        _ = columns.load(try parse(record + [UInt8(ascii: "]")], offset: offset))
        var writer = JSONWriter()
        writer.beginArray()
        for index in 0..<columns.count {
            if let raw = replacing[index] { writer.raw(raw) } else if let value = columns[index] { writer.value(value) } else { writer.null() }
        }
        writer.endArray()
        writer.newline()
        pending.append(contentsOf: writer.bytes)
        if pending.count >= 1 << 20 { try flush() }
    }

    mutating func flush() throws {
        try output.write(pending)
        pending.removeAll(keepingCapacity: true)
    }

    /// Copies a winner that needs no filling straight from the read buffer.
    private mutating func emitDirect(offset: Int64, length: Int32) throws {
        let count = Int(length)
        if line.count < count { line = [UInt8](repeating: 0, count: count) }
        try line.withUnsafeMutableBytes { buffer in
            let got = try source.read(at: Int(offset), count: count, into: buffer)
            if got != count { throw FieldpackError(path: source.path, "records file changed while reading it") }
            let end = RecordSource.contentLength(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
        }
        pending.append(UInt8(ascii: "]"))
        pending.append(0x0A)
        if pending.count >= 1 << 20 { try flush() }
    }

    /// The record at `offset` without its trailing `,"<source>"]`.
    private mutating func content(offset: Int64, length: Int32) throws -> [UInt8] {
        let count = Int(length)
        if line.count < count { line = [UInt8](repeating: 0, count: count) }
        let got = try line.withUnsafeMutableBytes { try source.read(at: Int(offset), count: count, into: $0) }
        if got != count { throw FieldpackError(path: source.path, "records file changed while reading it") }
        let end = line.withUnsafeBytes { RecordSource.contentLength(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return Array(line[0..<end])
    }
}
