@testable import FieldpackKit
import Testing

/// `sortedIndex(of:)` finds every id of an ascending buffer at its place, and no other, whatever
/// the buffer's length (the halving's odd and even steps).
@Suite struct SortedIndexTests {
    @Test func everyIdIsFoundAtItsPlaceAndNoOtherIsFound() {
        var generator = SortInPlaceTests.SplitMix64(state: 0x1D5)
        for length in 0...70 {
            for _ in 0..<20 {
                var ids: [Int64] = []
                var next = Int64.random(in: -5...5, using: &generator)
                for _ in 0..<length {
                    ids.append(next)
                    next += Int64.random(in: 1...3, using: &generator)
                }
                ids.withUnsafeBufferPointer { buffer in
                    for (index, id) in ids.enumerated() {
                        #expect(buffer.sortedIndex(of: id) == index)
                    }
                    let probes = ids.flatMap { [$0 - 1, $0 + 1] } + [Int64.min, Int64.max, next]
                    for probe in probes where !ids.contains(probe) {
                        #expect(buffer.sortedIndex(of: probe) == nil, "\(probe) in \(ids)")
                    }
                }
            }
        }
    }
}
