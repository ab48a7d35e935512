extension Array where Element: Comparable {
    /// Sorts the array and keeps each value once: a set as one ascending array (ids looked up by
    /// binary search in dedupe, a round's ancestors inserted in key order in the bundle).
    mutating func sortAndRemoveDuplicates() {
        sort()
        var unique = 0
        for index in indices where unique == 0 || self[unique - 1] != self[index] {
            self[unique] = self[index]
            unique += 1
        }
        removeSubrange(unique...)
    }
}
