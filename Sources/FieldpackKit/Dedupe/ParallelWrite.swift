import Dispatch

/// Writes the winners of sorted occurrences with two threads: the groups are split at a key
/// boundary, the first half goes straight to the output and the second to a scratch file that is
/// appended after it, so the output keeps id order.
enum ParallelWrite {
    /// What one half found.
    struct Tally {
        var unique = 0
        var filledDimensions = 0
        var report: ConflictReport
    }

    static func run<T: HasID>(
        _ occurrences: OccurrenceArray<T>, path: String, output: AtomicOutput, sourceNames: [Int: String],
        _ body: @escaping @Sendable (inout Winners, inout Tally, UnsafeBufferPointer<T>) throws -> Void,
        makeReport: @escaping @Sendable () -> ConflictReport
    ) throws -> [Tally] {
        // Split in the middle, moved forward to the start of the next id.
        let sorted = UnsafeBufferPointer(occurrences.buffer)
        var middle = sorted.count / 2
        while middle > 0 && middle < sorted.count && sorted[middle].sameKey(as: sorted[middle - 1]) { middle += 1 }
        let halves = [0..<middle, middle..<sorted.count]
        try output.flush()
        let second = try AtomicOutput(path: "\(output.temporaryPath).half")
        let outputs = UncheckedBox([output, second])
        let results = Results<Tally>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            results.record(part) {
                var winners = Winners(source: try ReadableFile(path: path), output: outputs.value[part], sourceNames: sourceNames)
                var tally = Tally(report: makeReport())
                var start = halves[part].lowerBound
                let end = halves[part].upperBound
                let array = UnsafeBufferPointer(occurrences.buffer)
                while start < end {
                    var next = start + 1
                    while next < end && array[next].sameKey(as: array[start]) { next += 1 }
                    try body(&winners, &tally, UnsafeBufferPointer(rebasing: array[start..<next]))
                    tally.unique += 1
                    start = next
                }
                try winners.flush()
                return tally
            }
        }
        let tallies = try results.values()
        Leftovers.register(second.path)
        defer {
            FileSystem.remove(second.path)
            Leftovers.forget(second.path)
        }
        try second.commit(durable: false)
        try output.append(contentsOf: second.path)
        return tallies
    }
}
