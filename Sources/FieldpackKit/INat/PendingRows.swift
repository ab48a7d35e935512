import Dispatch
import Synchronization

/// Rows of an export archive's member set aside while the plan lists the archive, before what
/// judges them is known (`ExportLinkPruning.plan`): the plan then need not read the member again.
/// Each row is three words in one scratch file of the build folder (`WordSpill`), 24 bytes: a
/// word, an id and an id with a flag in its top bit (a nil id written as 0: ids are positive;
/// a photos row's key, a full 64-bit hash, is the middle word, present when the flag says so).
/// `Table` says which table's rows they are (`PendingObservations`, `PendingPhotos`).
final class PendingRows<Table>: Sendable {
    /// The export date of the member's rows, which the kept filter is keyed by.
    let date: Int64?
    fileprivate let spill: WordSpill
    fileprivate static var flag: UInt64 { 1 << 63 }

    init(in folder: String, date: Int64?) throws {
        self.date = date
        spill = try WordSpill(in: folder, rowWords: 3)
    }

    /// One reading's rows (`WordSpill.Batch`): `flush` it when the reading is done.
    struct Batch {
        fileprivate var words: WordSpill.Batch

        init(_ pending: PendingRows) { words = WordSpill.Batch(pending.spill) }

        fileprivate mutating func add(_ word: UInt64, _ first: Int64?, _ second: Int64?, flag: Bool) throws {
            try words.add(word)
            try words.add(UInt64(bitPattern: first ?? 0))
            try words.add(UInt64(bitPattern: second ?? 0) | (flag ? PendingRows.flag : 0))
        }

        mutating func flush() throws { try words.flush() }
    }

    /// Calls `body` with each row of a chunk of whole rows.
    fileprivate static func rows(of chunk: [UInt64], _ body: (UInt64, Int64?, Int64?, Bool) throws -> Void) throws {
        func id(_ word: UInt64) -> Int64? { word == 0 ? nil : Int64(bitPattern: word) }
        for index in stride(from: 0, to: chunk.count - 2, by: 3) {
            try body(chunk[index], id(chunk[index + 1]), id(chunk[index + 2] & ~flag), chunk[index + 2] & flag != 0)
        }
    }
}

/// The observations rows of an archive's member that the places keep, before the taxa rows (the
/// archive's and every other input's) have decided the taxon rule (`ExportTaxa`): once they
/// have, each is kept when the other rules keep it and its taxon is kept (when the taxa tables
/// disagree, every one, the places being the rules left). A row the places remove is removed
/// whatever the taxa decide, and is not set aside. About 1.7 GB for 70 million rows when no
/// place is selected.
enum ObservationsWaiting {}
typealias PendingObservations = PendingRows<ObservationsWaiting>

extension PendingRows.Batch where Table == ObservationsWaiting {
    /// A row under its uuid's key (`ExportLinkPruning.Singles.key`), with its taxon and observer,
    /// and whether the rules but the taxon rule keep it (not: the places keep it, another rule
    /// removes it, which counts only when the taxa tables disagree and leave every rule but the
    /// places to the bundle).
    mutating func add(key: UInt64, taxon: Int64?, user: Int64?, othersKeep: Bool) throws {
        try add(key, taxon, user, flag: othersKeep)
    }
}

extension PendingRows where Table == ObservationsWaiting {
    /// Calls `body` with each row set aside, in order.
    func forEach(_ body: (_ key: UInt64, _ taxon: Int64?, _ user: Int64?, _ othersKeep: Bool) throws -> Void) throws {
        try spill.forEachChunk { try Self.rows(of: $0, body) }
    }
}

/// The photos rows of an archive's member, before the observations rows (the archive's and every
/// other input's) have decided which observations are kept: once they have, each row's link is
/// judged as if the photos were read then. About 2.9 GB for 120 million rows.
enum PhotosWaiting {}
typealias PendingPhotos = PendingRows<PhotosWaiting>

extension PendingRows.Batch where Table == PhotosWaiting {
    /// A row: its photo id, its observation's uuid key (`ExportLinkPruning.Singles.key`; nil:
    /// none, or unusable) and its observer.
    mutating func add(photo id: Int64, observation key: UInt64?, observer: Int64?) throws {
        try add(UInt64(bitPattern: id), key.map { Int64(bitPattern: $0) }, observer, flag: key != nil)
    }
}

extension PendingRows where Table == PhotosWaiting {
    /// Calls `body` with the rows set aside, on `workers` threads at once, each a chunk at a time
    /// (a chunk's rows in order, the chunks in none): `body` is given the worker's index.
    func forEach(
        workers: Int, _ body: @Sendable (_ worker: Int, _ photo: Int64, _ observation: UInt64?, _ observer: Int64?) throws -> Void
    ) throws {
        try spill.forEachChunk(workers: workers) { worker, chunk in
            try Self.rows(of: chunk) { id, key, observer, hasKey in
                try body(worker, Int64(bitPattern: id), hasKey ? UInt64(bitPattern: key ?? 0) : nil, observer)
            }
        }
    }
}
