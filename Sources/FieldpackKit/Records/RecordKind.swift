/// The kinds of intermediate record, and how a records line names its kind.
///
/// The records files (`inat/records.jsonl`, `dedupe/records.jsonl`) hold one JSON array per
/// line: the kind's tag, then the kind's columns by position (each kind's `Column` enum is the
/// one definition of its layout), to keep gigabytes of intermediate data free of repeated key
/// names. An ingest record ends with its source (`"<input index>#<result>"` or
/// `"<input index>:<line>"`, see `RecordSource`); the deduped record is the same bytes without it.
///
/// ```
/// ["obs", <ObservationRecord.Column…>, source]
/// ["user", <UserRecord.Column…>, source]
/// ["taxon", <TaxonRecord.Column…>, source]
/// ["photo", <PhotoRecord.Column…>, source]
/// ["input", <InputRecord.Column…>]          (ingest; deduped: <DedupedInputRecord.Column…>)
/// ["select", <DedupedSelectionRecord.Column…>]   (deduped only)
/// ```
public enum RecordKind: Int, CaseIterable, Sendable, Hashable {
    case input, photo, taxon, user, observation
    /// What dedupe's share of the pipeline's `select` removed; only in deduped files.
    case selection

    /// The record's first element.
    public var tag: StaticString {
        switch self {
        case .input: "input"
        case .photo: "photo"
        case .taxon: "taxon"
        case .user: "user"
        case .observation: "obs"
        case .selection: "select"
        }
    }

    /// The tag as a `String` (report keys).
    public var name: String { tag.description }

    /// The kind a record's tag names, nil for an unknown tag.
    public init?(tag: JSONText) {
        guard let kind = Self.allCases.first(where: { tag.equals($0.tag) }) else { return nil }
        self = kind
    }

    /// The kind of a records line, found by the first letter of its tag (lines start `["<tag>"`;
    /// the tags' first letters differ) and then checked whole: no parse needed. Nil if the line
    /// does not start that way (an edited `["obz",…` was taken for an observation by its `o` and
    /// copied through dedupe, and the bundle then named dedupe's output).
    public static func of(_ line: UnsafeRawBufferPointer) -> RecordKind? {
        guard line.count > 3, line[0] == UInt8(ascii: "["), line[1] == UInt8(ascii: "\""), let kind = byFirstLetter[Int(line[2])] else {
            return nil
        }
        let tag = kind.tag
        let end = 2 + tag.utf8CodeUnitCount
        guard line.count > end, line[end] == UInt8(ascii: "\"") else { return nil }
        for index in 1..<tag.utf8CodeUnitCount where line[2 + index] != tag.utf8Start[index] { return nil }
        return kind
    }

    /// Each kind by its tag's first byte, built from the tags.
    private static let byFirstLetter: [RecordKind?] = {
        var table = [RecordKind?](repeating: nil, count: 256)
        for kind in allCases {
            let first = Int(kind.tag.utf8Start.pointee)
            precondition(table[first] == nil, "two record kinds' tags start with the same letter")
            table[first] = kind
        }
        return table
    }()
}
