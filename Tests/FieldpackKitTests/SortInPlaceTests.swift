import FieldpackKit
import FieldpackTestSupport
import Testing

/// `sortInPlace` against Swift's own `sorted`, on fixed shapes and on deterministic random data.
@Suite struct SortInPlaceTests {
    /// SplitMix64 (Steele, Lea and Flood 2014): the same numbers on every run and machine.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private func sortedInPlace<T>(_ values: [T], by less: (T, T) -> Bool) -> [T] {
        var values = values
        values.withUnsafeMutableBufferPointer { sortInPlace($0, by: less) }
        return values
    }

    private func sortedInPlace(_ values: [Int]) -> [Int] { sortedInPlace(values, by: <) }

    @Test func emptyAndSingleElementArraysAreUnchanged() {
        #expect(sortedInPlace([]) == [])
        #expect(sortedInPlace([42]) == [42])
    }

    static let sizes = [2, 3, 16, 17, 18, 19, 100, 1000]

    @Test(arguments: sizes)
    func alreadySortedStaysSorted(count: Int) {
        let values = Array(0..<count)
        #expect(sortedInPlace(values) == values)
    }

    @Test(arguments: sizes)
    func reversedIsSorted(count: Int) {
        #expect(sortedInPlace(Array((0..<count).reversed())) == Array(0..<count))
    }

    @Test(arguments: sizes)
    func allEqualStaysAllEqual(count: Int) {
        #expect(sortedInPlace(Array(repeating: 7, count: count)) == Array(repeating: 7, count: count))
    }

    /// Shapes that trip up quicksorts: organ pipes, saw teeth, one element out of place.
    @Test(arguments: [17, 100, 1001])
    func awkwardShapesAreSorted(count: Int) {
        let organPipe = (0..<count).map { min($0, count - $0) }
        let sawTooth = (0..<count).map { $0 % 7 }
        let rotated = Array(1..<count) + [0]
        let lastFirst = [count] + Array(0..<count)
        for values in [organPipe, sawTooth, rotated, lastFirst] {
            #expect(sortedInPlace(values) == values.sorted())
        }
    }

    @Test(arguments: [20, 1000, 10_000])
    func manyDuplicatesAreSorted(count: Int) {
        var generator = SplitMix64(state: UInt64(count))
        let values = (0..<count).map { _ in Int.random(in: 0..<3, using: &generator) }
        #expect(sortedInPlace(values) == values.sorted())
    }

    @Test(arguments: [2, 5, 16, 17, 33, 64, 257, 1000, 4096, 50_000])
    func randomArraysMatchSwiftsSort(count: Int) {
        var generator = SplitMix64(state: 0xF1E1D ^ UInt64(count))
        for range in [Int.min...Int.max, 0...(count / 4)] {
            let values = (0..<count).map { _ in Int.random(in: range, using: &generator) }
            #expect(sortedInPlace(values) == values.sorted())
        }
    }

    @Test func aCustomOrderIsFollowed() {
        var generator = SplitMix64(state: 99)
        let values = (0..<500).map { _ in Int.random(in: -1000...1000, using: &generator) }
        #expect(sortedInPlace(values, by: >) == values.sorted(by: >))
    }

    /// As dedupe sorts records: by a key with many ties. The sort is not stable, so only the keys'
    /// order and the multiset of elements are promised.
    @Test func sortingByAKeyKeepsEveryElement() {
        struct Record: Equatable { var id: Int; var payload: Int }
        var generator = SplitMix64(state: 2024)
        let records = (0..<3000).map { Record(id: Int.random(in: 0..<200, using: &generator), payload: $0) }
        let sorted = sortedInPlace(records) { $0.id < $1.id }
        #expect(sorted.map(\.id) == records.map(\.id).sorted())
        let byBoth: (Record, Record) -> Bool = { ($0.id, $0.payload) < ($1.id, $1.payload) }
        #expect(sorted.sorted(by: byBoth) == records.sorted(by: byBoth))
    }
}
