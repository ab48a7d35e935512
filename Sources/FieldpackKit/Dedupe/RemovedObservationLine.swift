/// An export observation line that ingest marked as removed by the selection's dedupe rules
/// (`ObservationRecord.Part.removedByPlaces`, …; see `ExportLinkPruning`), read from its bytes
/// without a parse: a regional guide's export is mostly such lines, and dedupe needs of them only
/// what ranks the copy. The line ends `,"removed:<rule>",<seen>,"<source>"]`.
///
/// Its content hash is the one of the line without the mark (`null` in its place), as if ingest
/// had not marked it: the hash breaks ties between copies of one date, and a mark must not change
/// which copy wins.
struct RemovedObservationLine {
    let key: RecordKey
    let seen: Int64?
    let rule: String
    let content: UInt64

    static let mark = Array("removed:".utf8)

    /// Nil for a line that is not that shape (the caller parses it).
    init?(_ line: UnsafeRawBufferPointer) {
        guard let (kind, key) = RecordKey.quick(line), kind == .observation, let key else { return nil }
        // `end`: the comma before the source; `seenComma`: the one before `seen`.
        let end = RecordSource.contentLength(line)
        guard end < line.count, end > 2 else { return nil }
        var seenComma = end - 1
        while seenComma > 0 && line[seenComma] != UInt8(ascii: ",") { seenComma -= 1 }
        guard seenComma > 2, line[seenComma - 1] == UInt8(ascii: "\"") else { return nil }
        let seenText = UnsafeRawBufferPointer(rebasing: line[(seenComma + 1)..<end])
        if seenText.elementsEqual("null".utf8) {
            seen = nil
        } else {
            guard !seenText.isEmpty, seenText.count <= 18, seenText.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            seen = seenText.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        }
        // The part: the string that ends just before `seenComma`.
        let close = seenComma - 1
        var open = close - 1
        while open > 0 && line[open] != UInt8(ascii: "\"") { open -= 1 }
        guard open > 1, line[open - 1] == UInt8(ascii: ",") else { return nil }
        let part = UnsafeRawBufferPointer(rebasing: line[(open + 1)..<close])
        guard part.starts(with: Self.mark) else { return nil }
        let rule = String(decoding: part.dropFirst(Self.mark.count), as: UTF8.self)
        guard ObservationRecord.Part(removedBy: rule) != nil else { return nil }
        self.key = key
        self.rule = rule
        // The content without the mark: the bytes before its opening quote, `null`, the rest.
        let length = open + 4 + (end - seenComma)
        content = withUnsafeTemporaryAllocation(byteCount: length, alignment: 8) { buffer in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: line[0..<open]))
            UnsafeMutableRawBufferPointer(rebasing: buffer[open..<(open + 4)]).copyBytes(from: "null".utf8)
            UnsafeMutableRawBufferPointer(rebasing: buffer[(open + 4)...]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: line[seenComma..<end]))
            return stableHash(UnsafeRawBufferPointer(buffer))
        }
    }
}
