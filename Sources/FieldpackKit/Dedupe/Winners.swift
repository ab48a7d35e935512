/// Writes each id's winning record, read back from the records file, without its `src` and with
/// gaps (photo dimensions, a taxon's photo list) filled from the other occurrences.
struct Winners {
    let source: ReadableFile
    let output: AtomicOutput
    private var line = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []

    init(source: ReadableFile, output: AtomicOutput) {
        self.source = source
        self.output = output
        pending.reserveCapacity(1 << 20)
    }

    mutating func writePhoto(_ group: UnsafeBufferPointer<PhotoOccurrence>, filled: inout Int) throws {
        let winner = group[0]
        guard winner.width < 0 || winner.height < 0, group.count > 1 else {
            return try emitDirect(offset: winner.offset, length: winner.length)
        }
        var record = try content(offset: winner.offset, length: winner.length)
        if let donor = group.first(where: { $0.width >= 0 && $0.height >= 0 }) {
            if replace(&record, Array("\"width\":null,\"height\":null".utf8),
                       with: Array("\"width\":\(donor.width),\"height\":\(donor.height)".utf8))
            {
                filled += 1
            }
        }
        try emit(record)
    }

    mutating func writeRecord(_ group: UnsafeBufferPointer<RecordOccurrence>, taxon: Bool) throws {
        let winner = group[0]
        guard taxon && !winner.hasList && group.count > 1 else {
            return try emitDirect(offset: winner.offset, length: winner.length)
        }
        var record = try content(offset: winner.offset, length: winner.length)
        if taxon && !winner.hasList, let donor = group.first(where: { $0.hasList }) {
            let donorBytes = try content(offset: donor.offset, length: donor.length)
            if let list = Self.value(of: "photos", in: donorBytes) {
                _ = replace(&record, Array("\"photos\":null".utf8), with: Array("\"photos\":".utf8) + list)
            }
        }
        try emit(record)
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
            let end = Dedupe.contentLength(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<end]))
        }
        pending.append(UInt8(ascii: "}"))
        pending.append(0x0A)
        if pending.count >= 1 << 20 { try flush() }
    }

    private mutating func emit(_ record: [UInt8]) throws {
        pending.append(contentsOf: record)
        pending.append(UInt8(ascii: "}"))
        pending.append(0x0A)
        if pending.count >= 1 << 20 { try flush() }
    }

    /// The record at `offset` without its trailing `,"src":"…"}`.
    private mutating func content(offset: Int64, length: Int32) throws -> [UInt8] {
        let count = Int(length)
        if line.count < count { line = [UInt8](repeating: 0, count: count) }
        let got = try line.withUnsafeMutableBytes { try source.read(at: Int(offset), count: count, into: $0) }
        if got != count { throw FieldpackError(path: source.path, "records file changed while reading it") }
        let end = line.withUnsafeBytes { Dedupe.contentLength(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return Array(line[0..<end])
    }

    private func replace(_ bytes: inout [UInt8], _ target: [UInt8], with replacement: [UInt8]) -> Bool {
        guard let range = bytes.firstRange(of: target) else { return false }
        bytes.replaceSubrange(range, with: replacement)
        return true
    }

    /// The raw JSON text of a top-level array member `"key":[…]` in one of our records.
    static func value(of key: String, in record: [UInt8]) -> [UInt8]? {
        let marker = Array("\"\(key)\":[".utf8)
        guard let range = record.firstRange(of: marker) else { return nil }
        var depth = 0
        var index = range.upperBound - 1
        while index < record.count {
            if record[index] == UInt8(ascii: "[") { depth += 1 }
            if record[index] == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return Array(record[(range.upperBound - 1)...index]) }
            }
            index += 1
        }
        return nil
    }
}
