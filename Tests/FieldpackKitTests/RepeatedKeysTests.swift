@testable import FieldpackKit
import FieldpackTestSupport
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Which keys repeat (`RepeatedKeys`): exact, whichever threads added them and however many
/// partitions they spilled to, and within its memory bound by answering "may repeat".
@Suite struct RepeatedKeysTests {
    /// 200,000 keys, every tenth added twice, by eight threads that race, over 16 partitions:
    /// every repeated key is found and no single one is.
    @Test func everyKeyAddedTwiceRepeatsAndNoKeyAddedOnceDoes() throws {
        let directory = try TemporaryDirectory()
        var random = SortInPlaceTests.SplitMix64(state: 5)
        let keys = (0..<200_000).map { _ in random.next() }
        let collector = try RepeatedKeys.Collector(expectedKeys: 16 * RepeatedKeys.partitionKeys, folder: directory.path)
        #expect(collector.partitions == 16)
        let slices = 8
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            try! collector.adding { batch in
                for index in stride(from: slice, to: keys.count, by: slices) { try batch.add(keys[index]) }
                for index in stride(from: (slice + 3) % slices, to: keys.count, by: slices) where index % 10 == 0 {
                    try batch.add(keys[index])
                }
            }
        }
        let repeated = try collector.finish(maximumRepeatedBytes: 64 << 20, workers: 3)
        #expect(repeated.counts.repeated == 20_000 && repeated.counts.wholePartitions == 0)
        #expect(keys.indices.allSatisfy { repeated.mayRepeat(keys[$0]) == ($0 % 10 == 0) })
        #expect(!repeated.mayRepeat(random.next()))
    }

    /// A key added three times is one repeated key; one partition serves a small input.
    @Test func aKeyAddedThriceIsOneRepeatedKey() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 10, folder: directory.path)
        #expect(collector.partitions == 1)
        try collector.adding { batch in for key in [7, 3, 7, 9, 7, 0, UInt64.max, UInt64.max] as [UInt64] { try batch.add(key) } }
        let repeated = try collector.finish(maximumRepeatedBytes: 1 << 20, workers: 1)
        #expect(repeated.counts.repeated == 2)
        #expect([7, UInt64.max].allSatisfy(repeated.mayRepeat))
        #expect(![3, 9, 0, 1].contains(where: repeated.mayRepeat))
    }

    /// The filter in front of the repeated keys is sized to them (from 512 bytes), so it is
    /// cheap to ask for every row: a key that falls on a repeated key's bit without repeating is
    /// still told single, by the search behind it. (A partition that may repeat every key says
    /// so for keys the filter has no bit for: `aPartitionOfFarMoreKeysThanExpectedMayRepeatEveryKey`.)
    @Test func aKeyOnARepeatedKeysFilterBitIsStillSingle() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 2 * RepeatedKeys.partitionKeys, folder: directory.path)
        // Partition 1 (top bit set): one key twice. Keys equal to it in their low 40 bits share
        // its filter bit, in either partition.
        let repeatedKey: UInt64 = (1 << 63) | 0x5_0000_0123
        let sameBit: [UInt64] = [0x5_0000_0123, (1 << 63) | (1 << 41) | 0x5_0000_0123]
        try collector.adding { batch in for key in [repeatedKey, repeatedKey] + sameBit { try batch.add(key) } }
        let repeated = try collector.finish(maximumRepeatedBytes: 1 << 20, workers: 2)
        #expect(repeated.counts.repeated == 1 && repeated.filterBytes == 512)
        #expect(repeated.mayRepeat(repeatedKey))
        #expect(!sameBit.contains(where: repeated.mayRepeat))

        // 3,000 repeated keys: 64 bits each, rounded up to a power of two.
        let many = try RepeatedKeys.Collector(expectedKeys: 10_000, folder: directory.path)
        let keys = (0..<UInt64(3000)).map(BloomWord.mix)
        try many.adding { batch in for key in keys + keys { try batch.add(key) } }
        #expect(try many.finish(maximumRepeatedBytes: 1 << 20, workers: 1).filterBytes == 32 << 10)
    }

    /// With more repeated keys than their memory allows (two exports repeat every uuid), a
    /// partition over its share answers "may repeat" for every key, so no repeated key is ever
    /// missed; the others stay exact.
    @Test func aPartitionOverItsShareMayRepeatEveryKey() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 2 * RepeatedKeys.partitionKeys, folder: directory.path)
        #expect(collector.partitions == 2)
        // Partition 0 (top bit clear): 3,000 keys twice; partition 1: 10 keys twice, 10 once.
        let low = (0..<3000).map { UInt64($0) << 20 }
        let high = (0..<20).map { (1 << 63) | UInt64($0) }
        try collector.adding { batch in
            for key in low + low + high + high[0..<10] { try batch.add(key) }
        }
        // 1,000 keys of 8 bytes for each of the two partitions.
        let repeated = try collector.finish(maximumRepeatedBytes: 2 * 1000 * 8, workers: 2)
        #expect(repeated.counts.wholePartitions == 1 && repeated.counts.repeated == 10)
        #expect(low.allSatisfy(repeated.mayRepeat) && repeated.mayRepeat(5))
        #expect(high.indices.allSatisfy { repeated.mayRepeat(high[$0]) == ($0 < 10) })
    }

    /// A partition that holds more than four times the keys expected (its tables held far more
    /// rows than their sizes promised) is not read back, so its memory stays bounded: any of
    /// its keys may repeat, the single ones too.
    @Test func aPartitionOfFarMoreKeysThanExpectedMayRepeatEveryKey() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 1, folder: directory.path)
        let keys = (0..<UInt64(RepeatedKeys.partitionLimit + 1)).map(BloomWord.mix)
        try collector.adding { batch in for key in keys { try batch.add(key) } }
        let repeated = try collector.finish(maximumRepeatedBytes: 64 << 20, workers: 2)
        #expect(repeated.counts.wholePartitions == 1 && repeated.counts.repeated == 0)
        #expect(repeated.mayRepeat(keys[0]) && repeated.mayRepeat(BloomWord.mix(UInt64.max)))
    }

    /// A partition's keys are read back whole however many batches they filled: each batch in
    /// the spill names the one before it, and memory holds only the last (one thread, one
    /// partition, a batch of 131,072 keys: 400,000 keys in four batches, keys of the first,
    /// second and last batches added again in the last).
    @Test func aPartitionOfManyBatchesIsReadBackWhole() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 1000, folder: directory.path)
        #expect(collector.partitions == 1 && collector.batchWords == 1 << 17)
        let keys = (0..<UInt64(400_000)).map(BloomWord.mix)
        let again = [keys[0], keys[77_777], keys[131_071], keys[131_072], keys[399_999]]
        try collector.adding { batch in for key in keys + again { try batch.add(key) } }
        let repeated = try collector.finish(maximumRepeatedBytes: 1 << 20, workers: 2)
        #expect(repeated.counts.repeated == again.count && repeated.counts.wholePartitions == 0)
        #expect(again.allSatisfy(repeated.mayRepeat))
        #expect(![keys[1], keys[131_073], keys[262_144], keys[399_998]].contains(where: repeated.mayRepeat))
    }

    /// A damaged spill is an error naming the build folder, never a partition read short: the
    /// batches' trailers overwritten (through the unlinked file's descriptor), the walk back
    /// from the last batch meets a place no batch can be.
    @Test func aDamagedSpillIsAnErrorNotAShortPartition() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: 1000, folder: directory.path)
        let keys = (0..<UInt64(400_000)).map(BloomWord.mix)
        try collector.adding { batch in for key in keys + keys[0..<10] { try batch.add(key) } }
        // The first three batches (1 MiB each, and their trailers) are in the file; the last is
        // still in the spill's buffer.
        let descriptor = try #require(Self.unlinkedFile(in: directory.path))
        let garbage = [UInt8](repeating: 0x7F, count: 3 << 20)
        #expect(garbage.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == garbage.count)
        let error = #expect(throws: FieldpackError.self) { try collector.finish(maximumRepeatedBytes: 1 << 20, workers: 1) }
        #expect(error?.description.contains(directory.path) == true)
        #expect(error?.description.contains("damaged") == true)
    }

    /// The descriptor of this process's open file that was unlinked from `folder`.
    private static func unlinkedFile(in folder: String) -> Int32? {
        // The kernel spells the folder without doubled slashes (`TemporaryDirectory` may have them).
        let name = folder.split(separator: "/").last.map(String.init) ?? folder
        for descriptor in 3..<Int32(1024) {
            var target = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
            guard count > 0 else { continue }
            let path = String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if path.contains("/\(name)/.spill-") && path.hasSuffix(" (deleted)") { return descriptor }
        }
        return nil
    }

    /// The partitions follow from the keys expected, about 4 MiB of keys each.
    @Test func partitionsFollowTheKeysExpected() throws {
        let directory = try TemporaryDirectory()
        #expect(try RepeatedKeys.Collector(expectedKeys: 0, folder: directory.path).partitions == 1)
        #expect(try RepeatedKeys.Collector(expectedKeys: RepeatedKeys.partitionKeys + 1, folder: directory.path).partitions == 2)
        #expect(try RepeatedKeys.Collector(expectedKeys: 120_000_000, folder: directory.path).partitions == 256)
        // With a value beside each key, twice the partitions for the same bytes each.
        #expect(try RepeatedKeys.Collector(expectedKeys: RepeatedKeys.partitionKeys + 1, folder: directory.path, withValues: true).partitions == 4)
    }

    /// A collector with values (a photos row's observer beside its key) gives back, of the keys
    /// asked for, the values beside every row of a key that repeats, and none of a key added
    /// once or of a key not asked for; a value of 0 is none. Eight threads race, over 16
    /// partitions of half the keys each (16 bytes an entry).
    @Test func theValuesBesideARepeatedKeyAreGivenWhenAskedFor() throws {
        let directory = try TemporaryDirectory()
        var random = SortInPlaceTests.SplitMix64(state: 11)
        let keys = (0..<100_000).map { _ in random.next() }
        let collector = try RepeatedKeys.Collector(expectedKeys: 8 * RepeatedKeys.partitionKeys, folder: directory.path, withValues: true)
        #expect(collector.partitions == 16)
        // Row r of key k: value k's index * 4 + r + 1, or 0 (none) for every seventh key's second row.
        @Sendable func value(_ index: Int, row: Int) -> UInt64 { row == 1 && index % 7 == 0 ? 0 : UInt64(index * 4 + row + 1) }
        let slices = 8
        DispatchQueue.concurrentPerform(iterations: slices) { slice in
            try! collector.adding { batch in
                for index in stride(from: slice, to: keys.count, by: slices) { try batch.add(keys[index], value: value(index, row: 0)) }
                for index in stride(from: (slice + 3) % slices, to: keys.count, by: slices) where index % 10 == 0 {
                    try batch.add(keys[index], value: value(index, row: 1))
                }
            }
        }
        let asked = Set(keys.indices.filter { $0 % 3 != 0 }.map { keys[$0] })
        let (repeated, values) = try collector.finish(maximumRepeatedBytes: 64 << 20, workers: 3, valuesOf: { asked.contains($0) })
        #expect(repeated.counts.repeated == 10_000 && repeated.counts.wholePartitions == 0)
        let expected = Set(keys.indices.filter { $0 % 10 == 0 && $0 % 3 != 0 }.flatMap { [value($0, row: 0), value($0, row: 1)] }.filter { $0 != 0 })
        let wrong = (1...UInt64(4 * keys.count + 2)).filter { values.contains(Int64($0)) != expected.contains($0) }
        #expect(wrong.count == 0, "values given or missed wrongly, the first \(wrong.first ?? 0)")
        #expect(keys.indices.allSatisfy { repeated.mayRepeat(keys[$0]) == ($0 % 10 == 0) })
    }

    /// When a partition's keys may all repeat (more repeated keys than its share, or too many to
    /// read), every value beside a key asked for in it is given, the single keys' too: their
    /// rows may be written; not those of keys not asked for. The other partition stays exact.
    @Test func aPartitionWhoseKeysMayAllRepeatGivesEveryValueAskedFor() throws {
        let directory = try TemporaryDirectory()
        let collector = try RepeatedKeys.Collector(expectedKeys: RepeatedKeys.partitionKeys, folder: directory.path, withValues: true)
        #expect(collector.partitions == 2)
        // Partition 0 (top bit clear): 3,000 keys twice and 5 once; partition 1: 10 keys twice, 10 once.
        let low = (0..<3005).map { UInt64($0) << 20 }
        let high = (0..<20).map { (1 << 63) | UInt64($0) }
        // A key's value: its index in its list, plus 1 (low) or 10,001 (high).
        func value(_ key: UInt64) -> UInt64 { key >> 63 == 0 ? (key >> 20) + 1 : (key & 0xFFFF) + 10_001 }
        try collector.adding { batch in
            for key in low + low[0..<3000] + high + high[0..<10] { try batch.add(key, value: value(key)) }
        }
        // Every low key but every seventh is asked for, and every high one but the first.
        let (repeated, values) = try collector.finish(
            maximumRepeatedBytes: 2 * 1000 * 8, workers: 2, valuesOf: { $0 >> 63 == 0 ? ($0 >> 20) % 7 != 0 : $0 & 0xFFFF != 0 })
        #expect(repeated.counts.wholePartitions == 1 && repeated.counts.repeated == 10)
        let expected = Set(low.map(value).filter { ($0 - 1) % 7 != 0 } + high[1..<10].map(value))
        let wrong = (1...UInt64(10_030)).filter { values.contains(Int64($0)) != expected.contains($0) }
        #expect(wrong.count == 0, "values given or missed wrongly, the first \(wrong.first ?? 0)")

        // Too many entries to read: its batches are read one at a time for the values asked for.
        let large = try RepeatedKeys.Collector(expectedKeys: 1, folder: directory.path, withValues: true)
        let keys = (0..<UInt64(RepeatedKeys.partitionLimit / 2 + 1)).map(BloomWord.mix)
        try large.adding { batch in
            for (index, key) in keys.enumerated() { try batch.add(key, value: index == 5 ? 42 : index == keys.count - 1 ? 43 : 0) }
        }
        let (all, given) = try large.finish(maximumRepeatedBytes: 64 << 20, workers: 2, valuesOf: { $0 != keys.last! })
        #expect(all.counts.wholePartitions == 1 && given.contains(42) && !given.contains(43))
        #expect(given.count(notIn: IDSet()) == 1)
    }

    /// The pipeline bounds the repeated keys' memory (`repeat_filter_bytes`).
    @Test func thePipelineBoundsTheRepeatedKeysMemory() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try directory.write("p.json", #"{"name": "p", "inat": ["x"], "repeat_filter_bytes": 536870912}"#)
        #expect(try Pipeline.load(pipeline).repeatFilterBytes == 512 << 20)
    }
}
