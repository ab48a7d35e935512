import Synchronization

/// How many photo references the segments of one dedupe may gather, together, before it gives up
/// leaving photos out (`Dedupe.maximumReferenced`): past it they stop, so memory stays bounded.
final class ReferenceBudget: Sendable {
    private let taken = Mutex(0)
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes `count` more; false (from then on) once the total passes the limit.
    func take(_ count: Int) -> Bool {
        taken.withLock { total in
            if total > limit { return false }
            total += count
            return total <= limit
        }
    }

    var exceeded: Bool { taken.withLock { $0 > limit } }
}

/// A set of record ids as one sorted array: 8 bytes an id, looked up by binary search.
struct SortedIDs: Sendable {
    let ids: [Int64]

    init(_ unsorted: [Int64]) {
        var sorted = unsorted
        sorted.sortAndRemoveDuplicates()
        ids = sorted
    }

    func contains(_ id: Int64) -> Bool {
        ids.withUnsafeBufferPointer { $0.sortedIndex(of: id) } != nil
    }

    /// How many distinct ids of `occurrences` (sorted by id) are not in the set.
    func missing<T: HasID>(fromSorted occurrences: UnsafeBufferPointer<T>) -> Int {
        var missing = 0
        var next = 0
        var index = 0
        while index < occurrences.count {
            let id = occurrences[index].id
            while next < ids.count && ids[next] < id { next += 1 }
            if next == ids.count || ids[next] != id { missing += 1 }
            index += 1
            while index < occurrences.count && occurrences[index].id == id { index += 1 }
        }
        return missing
    }
}
