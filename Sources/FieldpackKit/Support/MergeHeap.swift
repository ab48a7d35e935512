/// The heap of a k-way merge of sorted runs: a min-heap of run indices, ordered by `before(a, b)`
/// (whether run `a`'s current record goes before run `b`'s), which the caller passes to each
/// change, so that the runs and their current records stay the caller's. Give `before` a
/// tie-breaker (the lower run first) for a merge whose order is total.
package struct MergeHeap {
    private var runs: [Int] = []

    package init() {}

    /// The run whose current record goes first; nil once every run has ended.
    package var top: Int? { runs.first }

    /// Adds a run that has a current record.
    package mutating func push(_ run: Int, before: (Int, Int) -> Bool) {
        runs.append(run)
        var child = runs.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard before(runs[child], runs[parent]) else { return }
            runs.swapAt(child, parent)
            child = parent
        }
    }

    /// The top run moved to its next record (`ended`: it has none): puts the heap back in order.
    package mutating func topAdvanced(ended: Bool, before: (Int, Int) -> Bool) {
        guard !runs.isEmpty else { return }
        if ended {
            runs[0] = runs[runs.count - 1]
            runs.removeLast()
        }
        var parent = 0
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var first = parent
            if left < runs.count, before(runs[left], runs[first]) { first = left }
            if right < runs.count, before(runs[right], runs[first]) { first = right }
            if first == parent { return }
            runs.swapAt(parent, first)
            parent = first
        }
    }
}
