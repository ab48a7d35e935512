extension RandomAccessCollection {
    /// The first index whose element does not satisfy `isBefore`, for a collection partitioned so
    /// that every element satisfying it comes first (a sorted array and `{ $0 < key }` gives the
    /// lower bound of `key`). Binary search: O(log n).
    package func partitionPoint(where isBefore: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try isBefore(self[middle]) {
                low = index(after: middle)
                count -= half + 1
            } else {
                count = half
            }
        }
        return low
    }
}

extension UnsafeBufferPointer where Element: Comparable {
    /// Where `id` is in this ascending buffer, nil if it is not: `partitionPoint(where: { $0 < id })`
    /// without a closure, for lookups made for every record (observers and taxa in the bundle,
    /// kept photos in dedupe, repeated keys in ingest).
    package func sortedIndex(of id: Element) -> Int? {
        var low = 0
        var count = self.count
        while count > 0 {
            let half = count / 2
            if self[low + half] < id {
                low += half + 1
                count -= half + 1
            } else {
                count = half
            }
        }
        return low < self.count && self[low] == id ? low : nil
    }
}
