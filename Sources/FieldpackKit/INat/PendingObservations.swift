/// The observations rows of an export archive's member that the rules but the taxon rule keep,
/// set aside while the archive is listed, before its taxa rows (and every other input's) have
/// decided the taxon rule (`ExportTaxa`): once they have, each is kept when its taxon is, and
/// the plan need not read the member again (`ExportLinkPruning.plan`). A row the places remove is
/// removed whatever the taxa decide, and is not set aside.
///
/// In one scratch file of the build folder (`WordSpill`): 24 bytes a row (its key, taxon and
/// observer), about 1.7 GB for 70 million rows when no place is selected.
final class PendingObservations: Sendable {
    /// The export date of the member's rows, which the kept filter is keyed by.
    let date: Int64?
    private let words: WordSpill
    /// A row's flag, in its observer's word: the rules but the taxon rule keep it (not set: the
    /// places keep it, and some other rule removes it, which counts only when the taxa tables
    /// disagree and leave the bundle every rule but the places).
    private static let othersKeep: UInt64 = 1 << 63

    init(in folder: String, date: Int64?) throws {
        self.date = date
        words = try WordSpill(in: folder, rowWords: 3)
    }

    /// One reading's rows (`WordSpill.Batch`): `flush` it when the reading is done.
    struct Batch {
        private var words: WordSpill.Batch

        init(_ pending: PendingObservations) { words = WordSpill.Batch(pending.words) }

        /// A row under its uuid's key (`ExportLinkPruning.Singles.key`), with its taxon and observer.
        mutating func add(key: UInt64, taxon: Int64?, user: Int64?, othersKeep: Bool) throws {
            try words.add(key)
            try words.add(UInt64(bitPattern: taxon ?? 0))
            try words.add(UInt64(bitPattern: user ?? 0) | (othersKeep ? PendingObservations.othersKeep : 0))
        }

        mutating func flush() throws { try words.flush() }
    }

    /// Calls `body` with each row set aside, in order: its key, taxon and observer (nil: none),
    /// and whether the rules but the taxon rule keep it.
    func forEach(_ body: (_ key: UInt64, _ taxon: Int64?, _ user: Int64?, _ othersKeep: Bool) throws -> Void) throws {
        try words.forEachChunk { chunk in
            for index in stride(from: 0, to: chunk.count - 2, by: 3) {
                let taxon = Int64(bitPattern: chunk[index + 1]), user = Int64(bitPattern: chunk[index + 2] & ~Self.othersKeep)
                try body(chunk[index], taxon == 0 ? nil : taxon, user == 0 ? nil : user, chunk[index + 2] & Self.othersKeep != 0)
            }
        }
    }
}
