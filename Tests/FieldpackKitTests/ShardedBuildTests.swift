import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A constructed multi-file input for the sharded path: two API pages and a JSON Lines file that
/// repeat observations, users, taxa and photos across files (newer copies in later files), a
/// malformed line, and a gzip file (read whole, never cut).
enum ShardedInput {
    static func write(in directory: TemporaryDirectory) throws -> [String] {
        func observation(_ id: Int, hour: Int, user: Int, photo: Int, license: String = "cc-by", width: Int? = 1024) -> String {
            observationJSON(
                id: id, updatedAt: String(format: "2024-05-01T%02d:00:00+00:00", hour), taxon: 48662 + id % 3, user: user,
                photos: [(id: photo, license: license, width: width)])
        }
        let first = try directory.write("a-page.json", page((1...6).map { observation($0, hour: 8, user: 7 + $0 % 2, photo: 100 + $0) }))
        // Newer copies of 2 and 3 (photo 103 loses its dimensions: dedupe fills them in).
        let second = try directory.write("b-page.json", page([
            observation(2, hour: 11, user: 8, photo: 102, license: "cc0"), observation(3, hour: 12, user: 7, photo: 103, width: nil),
            observation(7, hour: 9, user: 9, photo: 107),
        ]))
        var lines: [String] = []
        for id in 5...60 {
            lines.append(observation(id, hour: 10 + id % 5, user: 7 + id % 4, photo: 100 + id, license: id % 4 == 0 ? "cc-by-nc" : "cc-by"))
            if id == 20 || id == 50 { lines.append("{\"id\": \(900 + id), \"broken\": ") }
        }
        let third = try directory.write("c-lines.jsonl", lines.joined(separator: "\n") + "\n")
        let fourth = try directory.writeGzip("d-lines.jsonl.gz", [observation(61, hour: 9, user: 7, photo: 161), "[1, 2", observation(6, hour: 13, user: 9, photo: 106)].joined(separator: "\n") + "\n")
        return [first, second, third, fourth]
    }
}

/// The sharded path (issue 12): ingest shards by file and byte range, partitioned by dedupe key;
/// dedupe shards by partition; the bundle merges the parts by key into the unsharded bundle.
@Suite struct ShardedBuildTests {
    static let rate = 0.1

    /// The unsharded build: records, rejects, deduped records, bundle.
    static func unsharded(_ inputs: [String], in directory: TemporaryDirectory) throws -> String {
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = rate
        try INatIngest(options: ingest).run()
        try Dedupe(options: .init(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
            conflicts: directory.file("conflicts.json"))).run()
        return try bundle([directory.file("deduped.jsonl")], in: directory)
    }

    /// Every ingest shard, then every dedupe shard, then the bundle over the N parts.
    static func sharded(_ inputs: [String], count: Int, rangeBytes: Int = 1500, in directory: TemporaryDirectory) throws -> String {
        try ingestShards(count: count, base: directory.file("inat")) { _ in
            var ingest = INatIngest.Options(inputs: inputs, output: "", rejects: "")
            ingest.maxRejectRate = rate
            ingest.rangeBytes = rangeBytes
            return ingest
        }
        let parts = try dedupeShards(count: count, inat: directory.file("inat"), base: directory.file("dedupe"))
        try IngestShards(base: directory.file("inat"), count: count).mergeRejects(to: directory.file("rejects.jsonl"))
        return try bundle(parts, in: directory)
    }

    static func bundle(_ parts: [String], in directory: TemporaryDirectory) throws -> String {
        var options = BundleBuilder.Options(
            input: parts[0], output: directory.file("content.sqlite"), pipelineName: "shards", policy: try samplePolicy())
        options.inputs = parts
        options.costsReport = directory.file("costs-report.json")
        options.inputsFile = directory.file("inputs.json")
        try BundleBuilder(options: options).run()
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"))
        publisher.inputs = directory.file("inputs.json")
        publisher.extraFiles = [directory.file("costs-report.json")]
        try publisher.publish()
        return directory.file("bundle")
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Over the limit, a sharded job's error names the setting and says what to change, as
    /// the unsharded run's does (the shards said "--max-reject-rate" to a make user).
    @Test func aShardedJobOverTheLimitSaysWhatAnUnshardedRunSays() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("in.jsonl", [observationJSON(id: 1), observationJSON(id: "x"), observationJSON(id: 2)].joined(separator: "\n") + "\n")
        func options(_ output: String, _ rejects: String) -> INatIngest.Options {
            var options = INatIngest.Options(inputs: [input], output: output, rejects: rejects)
            options.maxRejectRate = 0.1
            options.maxRejectRateName = "pipeline's max_reject_rate"
            options.maxRejectRateHint = "to allow more, raise it"
            return options
        }
        let whole = try #require(throws: FieldpackError.self) {
            try INatIngest(options: options(directory.file("records.jsonl"), directory.file("rejects.jsonl"))).run()
        }
        try ingestShards(count: 2, base: directory.file("inat")) { _ in options("", "") }
        let sharded = try #require(throws: FieldpackError.self) {
            try DedupeShard(options: .init(
                inat: directory.file("inat"), shard: try Shard(index: 0, count: 2), output: directory.file("d/records.jsonl"),
                conflicts: directory.file("d/conflicts.json"))).run()
        }
        let reason = "1 of 3 records rejected (33.33%), over the pipeline's max_reject_rate of 10.0%"
        #expect(whole.message.hasPrefix(reason) && whole.message.hasSuffix("; to allow more, raise it"), "\(whole)")
        #expect(sharded.message.hasPrefix(reason) && sharded.message.hasSuffix("; to allow more, raise it"), "\(sharded)")
        // The rejects file of the shard that rejected the record, as the whole run names its one.
        let named = try #require(sharded.path)
        #expect(FileSystem.exists(named), "\(sharded)")
        let rejected = try text(named)
        #expect(rejected.contains("\"outcome\":\"rejected\""), "\(sharded): \(rejected)")
    }

    /// The dedupe shards' conflicts reports merged (`fieldpack-dedupe --merge-conflicts`, what
    /// `make bundle SHARDS=N` writes as dedupe/conflicts.json) are the unsharded report, byte for
    /// byte, also when the examples shown are fewer than the photos in conflict: a sharded build
    /// had no conflicts.json, only N reports of up to 20 examples each.
    @Test(arguments: [1, 3, 5])
    func theShardsConflictsReportsMergeIntoTheUnshardedOne(shards: Int) throws {
        let inputs = try TemporaryDirectory()
        func copies(hour: Int, license: String) -> String {
            page((1...12).map { id in
                observationJSON(
                    id: id, updatedAt: String(format: "2024-05-01T%02d:00:00+00:00", hour), taxon: 48662, user: 7,
                    photos: [(id: 500 + id, license: license, width: 1024)])
            })
        }
        let files = [try inputs.write("a.json", copies(hour: 8, license: "cc-by")), try inputs.write("b.json", copies(hour: 9, license: "cc-by-nc"))]
        let whole = try TemporaryDirectory()
        try INatIngest(options: .init(inputs: files, output: whole.file("records.jsonl"), rejects: whole.file("rejects.jsonl"))).run()
        var dedupe = Dedupe.Options(input: whole.file("records.jsonl"), output: whole.file("deduped.jsonl"), conflicts: whole.file("conflicts.json"))
        dedupe.examples = 5
        try Dedupe(options: dedupe).run()
        let split = try TemporaryDirectory()
        try ingestShards(count: shards, base: split.file("inat")) { _ in INatIngest.Options(inputs: files, output: "", rejects: "") }
        let parts = try dedupeShards(count: shards, inat: split.file("inat"), base: split.file("dedupe")) { $0.examples = 5 }
        try ConflictMerge.merge(parts: parts, examples: 5, to: split.file("conflicts.json"))
        let report = try text(whole.file("conflicts.json"))
        #expect(report.contains("\"photos_with_conflicts\": 12"), "\(report)")
        #expect(try text(split.file("conflicts.json")) == report)
        // One shard's part given twice is refused; so is asking for more examples than the
        // shards were written with (which come first is then not known).
        if shards > 1 {
            #expect(throws: FieldpackError.self) { try ConflictMerge.merge(parts: [parts[0], parts[0]] + parts.dropFirst(2), examples: 5, to: split.file("c2.json")) }
        }
        if shards == 1 {  // 12 photos in conflict in one part that shows 5
            let more = try #require(throws: FieldpackError.self) { try ConflictMerge.merge(parts: parts, examples: 8, to: split.file("c3.json")) }
            #expect(more.message.contains("shows 5 of its 12 photos in conflict, fewer than the 8 examples asked for"), "\(more.message)")
        }
    }

    @Test(arguments: [1, 4, 16])
    func aShardedBuildGivesTheUnshardedBundleByteForByte(shards: Int) throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try ShardedInput.write(in: inputsFolder)
        let whole = try TemporaryDirectory()
        let wholeBundle = try Self.unsharded(inputs, in: whole)
        let split = try TemporaryDirectory()
        let splitBundle = try Self.sharded(inputs, count: shards, in: split)
        // The JSON Lines file (4.6 KB, ranges of 1500 bytes) was read in byte ranges.
        let units = try (0..<shards).flatMap { index in
            try IngestShardSummary.read(IngestShardSummary.path(
                folder: IngestShardSummary.folder(base: split.file("inat"), shard: try Shard(index: index, count: shards)))).units
        }
        #expect(units.filter { $0.path.hasSuffix("c-lines.jsonl") }.count >= 4)
        #expect(units.filter { $0.path.hasSuffix(".gz") }.allSatisfy { $0.range == nil })
        let files = try FileManager.default.contentsOfDirectory(atPath: wholeBundle).sorted()
        #expect(files.contains("content.sqlite"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: splitBundle).sorted() == files)
        for file in files {
            #expect(try Self.bytes("\(wholeBundle)/\(file)") == Self.bytes("\(splitBundle)/\(file)"), "\(file) differs with \(shards) shards")
        }
        // The rejects merged in input order are the unsharded rejects (lines numbered in the whole file).
        #expect(try Self.bytes(whole.file("rejects.jsonl")) == Self.bytes(split.file("rejects.jsonl")))
        #expect(try lines(whole.file("rejects.jsonl")).map { $0.contains("c-lines.jsonl") } == [true, true, false])
    }

    @Test func aDedupeShardRefusesAnIngestPartFromOtherInputs() throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try ShardedInput.write(in: inputsFolder)
        let split = try TemporaryDirectory()
        try ingestShards(count: 2, base: split.file("inat")) { index in
            var ingest = INatIngest.Options(inputs: index == 0 ? inputs : Array(inputs.dropLast()), output: "", rejects: "")
            ingest.maxRejectRate = Self.rate
            return ingest
        }
        let error = try #require(throws: FieldpackError.self) {
            try DedupeShard(options: .init(
                inat: split.file("inat"), shard: try Shard(index: 0, count: 2), output: split.file("d/records.jsonl"),
                conflicts: split.file("d/conflicts.json"))).run()
        }
        #expect(error.path?.hasSuffix("shard-1-of-2/summary.json") == true)
        #expect(error.message.contains("shard-0-of-2/summary.json"))
        #expect(error.message.contains("other inputs"))
        #expect(!FileSystem.exists(split.file("d/records.jsonl")))
    }

    /// A folder with no ingest shard in it (a folder of dumps given to dedupe by mistake) was
    /// said to be missing `shard-0-of-1/summary.json`, a path the user never wrote.
    @Test func aFolderWithNoIngestShardIsNamedAsSuch() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/page.json", "{}")
        let error = try #require(throws: FieldpackError.self) {
            try DedupeShard(options: .init(
                inat: directory.file("dumps"), shard: try Shard(index: 0, count: 1), output: directory.file("d/records.jsonl"),
                conflicts: directory.file("d/conflicts.json"))).run()
        }
        #expect(error.path == directory.file("dumps"))
        #expect(error.message.hasPrefix("is a folder with no ingest shard in it"), "\(error)")
    }

    /// A dedupe shard that fails leaves no sidecar saying that its old part is the new job's:
    /// the bundle then refuses the parts, where it would have merged an old part with new ones.
    @Test func aFailedDedupeShardLeavesNoSidecarClaimingItsOldPart() throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try ShardedInput.write(in: inputsFolder)
        let split = try TemporaryDirectory()
        _ = try Self.sharded(inputs, count: 2, in: split)
        // The next job: other inputs, ingested again; dedupe shard 0 fails (its conflicts report
        // cannot be written), shard 1 succeeds.
        try ingestShards(count: 2, base: split.file("inat")) { _ in
            var ingest = INatIngest.Options(inputs: Array(inputs.dropLast()), output: "", rejects: "")
            ingest.maxRejectRate = Self.rate
            ingest.rangeBytes = 1500
            return ingest
        }
        let parts = try (0..<2).map { IngestShardSummary.folder(base: split.file("dedupe"), shard: try Shard(index: $0, count: 2)) + "/records.jsonl" }
        let blocker = try split.write("blocker", "a file, not a folder")
        #expect(throws: (any Error).self) {
            try DedupeShard(options: .init(
                inat: split.file("inat"), shard: try Shard(index: 0, count: 2), output: parts[0], conflicts: "\(blocker)/conflicts.json")).run()
        }
        try DedupeShard(options: .init(
            inat: split.file("inat"), shard: try Shard(index: 1, count: 2), output: parts[1],
            conflicts: split.file("dedupe/shard-1-of-2/conflicts.json"))).run()
        let error = try #require(throws: FieldpackError.self) {
            var options = BundleBuilder.Options(input: parts[0], output: split.file("again.sqlite"), pipelineName: "shards", policy: try samplePolicy())
            options.inputs = parts
            try BundleBuilder(options: options).run()
        }
        #expect(error.path == parts[0] && error.message.contains("is missing"), "\(error.description)")
        #expect(!FileSystem.exists(split.file("again.sqlite")))
    }

    @Test func theBundleRefusesADedupePartOfAnotherToolVersion() throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try ShardedInput.write(in: inputsFolder)
        let split = try TemporaryDirectory()
        _ = try Self.sharded(inputs, count: 2, in: split)
        let part = IngestShardSummary.folder(base: split.file("dedupe"), shard: try Shard(index: 1, count: 2)) + "/records.jsonl"
        let sidecar = ShardPartSidecar.path(of: part)
        let original = try text(sidecar)
        try original.replacingOccurrences(of: "\"tool\": \"0.1.0", with: "\"tool\": \"0.0.9").write(toFile: sidecar, atomically: true, encoding: .utf8)
        #expect(try text(sidecar) != original)
        let first = IngestShardSummary.folder(base: split.file("dedupe"), shard: try Shard(index: 0, count: 2)) + "/records.jsonl"
        let error = try #require(throws: FieldpackError.self) {
            var options = BundleBuilder.Options(
                input: first, output: split.file("again.sqlite"), pipelineName: "shards", policy: try samplePolicy())
            options.inputs = [first, part]
            try BundleBuilder(options: options).run()
        }
        #expect(error.path == sidecar)
        #expect(error.message.contains("0.0.9") && error.message.contains("tool versions"))
        #expect(error.message.contains(ShardPartSidecar.path(of: first)))
        #expect(!FileSystem.exists(split.file("again.sqlite")))
    }

    /// An error about one record names the part that holds it and its line there, and the other
    /// record it names likewise: not the first part with the line of another record (the load's
    /// rows carry their number in the merge, `RecordPlaces`).
    @Test(arguments: [1, 4])
    func aLoadErrorNamesThePartAndLineOfItsRecord(shards: Int) throws {
        let inputsFolder = try TemporaryDirectory()
        let otherUUID = "aaaaaaaa-0000-4000-8000-000000000003"
        // Observation 3 twice, as two observations: two uuids, one id (the table's key).
        let inputs = [
            try inputsFolder.write("a-page.json", page((1...8).map { observationJSON(id: $0, photos: [(id: 100 + $0, license: "cc-by", width: 1024)]) })),
            try inputsFolder.write("b-page.json", page([
                observationJSON(id: 3, updatedAt: "2024-05-02T10:00:00+00:00").replacingOccurrences(of: uuidText(for: 3), with: otherUUID),
            ])),
        ]
        let directory = try TemporaryDirectory()
        let error = try #require(throws: FieldpackError.self) {
            if shards == 1 { _ = try Self.unsharded(inputs, in: directory) } else { _ = try Self.sharded(inputs, count: shards, in: directory) }
        }
        /// The line `line` of `path`.
        func line(_ number: Int, of path: String) throws -> String {
            let lines = try text(path).split(separator: "\n", omittingEmptySubsequences: false)
            return number >= 1 && number <= lines.count ? String(lines[number - 1]) : ""
        }
        let path = try #require(error.path)
        let number = try #require(error.line)
        #expect(FileSystem.exists(path), "\(error)")
        let uuids = [uuidText(for: 3), otherUUID]
        let named = try #require(uuids.first { try line(number, of: path).contains($0) }, "\(error)")
        let other = uuids.first { $0 != named }!
        #expect(error.message.contains("observation \(named) has the id 3 of observation \(other)"), "\(error)")
        // The other record's place: "(line N)" in the same file, "(path:N)" in another part.
        let place = try #require(error.message.firstMatch(of: /\(([^()]*)\): an id/)?.1, "\(error)")
        let (otherPath, otherLine): (String, Int)
        if place.hasPrefix("line ") {
            (otherPath, otherLine) = (path, try #require(Int(place.dropFirst(5))))
        } else {
            let colon = try #require(place.lastIndex(of: ":"))
            (otherPath, otherLine) = (String(place[..<colon]), try #require(Int(place[place.index(after: colon)...])))
        }
        #expect(try line(otherLine, of: otherPath).contains(other), "\(error)")
    }

    @Test func theBundleRefusesTheSameShardTwice() throws {
        let inputsFolder = try TemporaryDirectory()
        let split = try TemporaryDirectory()
        _ = try Self.sharded(try ShardedInput.write(in: inputsFolder), count: 2, in: split)
        let first = IngestShardSummary.folder(base: split.file("dedupe"), shard: try Shard(index: 0, count: 2)) + "/records.jsonl"
        let error = try #require(throws: FieldpackError.self) {
            var options = BundleBuilder.Options(input: first, output: split.file("again.sqlite"), pipelineName: "shards", policy: try samplePolicy())
            options.inputs = [first, first]
            try BundleBuilder(options: options).run()
        }
        #expect(error.message.contains("give each shard's part once"))
    }
}

/// Byte ranges of a file of lines (`ByteRangeLines`): whatever the cuts, every line is read
/// exactly once, whole, by the range that holds its first byte, numbered as in the whole file.
@Suite struct ByteRangeLinesTests {
    /// Lines of several lengths, an empty one, and (in the second file) no final newline.
    static let texts = ["a\nbb\nccc\n\ndddd\ne\n", "first line\nsecond\nthird, not ended"]

    static func readAll(_ path: String, cuts: [Range<Int>]) throws -> [(text: String, number: Int, offset: Int)] {
        var lines: [(text: String, number: Int, offset: Int)] = []
        for range in cuts {
            let reader = try ByteRangeLines.reader(path: path, range: range)
            while let line = try reader.next() {
                #expect(line.offset >= range.lowerBound && line.offset < range.upperBound, "a line read by a range that does not hold its first byte")
                lines.append((String(decoding: line.bytes, as: UTF8.self), line.number, line.offset))
            }
        }
        return lines
    }

    @Test(arguments: [0, 1])
    func everyCountOfEqualRangesReadsEveryLineOnce(text: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("lines.jsonl", Self.texts[text])
        let bytes = Array(Self.texts[text].utf8)
        let whole = try Self.readAll(path, cuts: [0..<bytes.count])
        // Up to more ranges than bytes (a file shorter than N): some ranges are empty.
        for count in 1...(bytes.count + 3) {
            let got = try Self.readAll(path, cuts: ByteRangeLines.cuts(size: bytes.count, count: count))
            #expect(got.map(\.text) == whole.map(\.text), "\(count) ranges")
            #expect(got.map(\.number) == Array(1...whole.count), "\(count) ranges")
            #expect(got.map(\.offset) == whole.map(\.offset), "\(count) ranges")
        }
    }

    @Test func aCutAtEveryByteGivesEachLineToTheRangeHoldingItsFirstByte() throws {
        let directory = try TemporaryDirectory()
        let text = Self.texts[0]
        let path = try directory.write("lines.jsonl", text)
        let size = text.utf8.count
        let whole = try Self.readAll(path, cuts: [0..<size])
        // Every cut: inside a line, just after its newline (at the next line's start), at its newline.
        for cut in 0...size {
            let got = try Self.readAll(path, cuts: [0..<cut, cut..<size])
            #expect(got.map(\.text) == whole.map(\.text), "cut at \(cut)")
            #expect(got.map(\.number) == whole.map(\.number), "cut at \(cut)")
        }
        // A cut at the start of "ccc" (offset 5) gives it to the second range; one byte later, to the first.
        #expect(try Self.readAll(path, cuts: [0..<5]).map(\.text) == ["a", "bb"])
        #expect(try Self.readAll(path, cuts: [0..<6]).map(\.text) == ["a", "bb", "ccc"])
        #expect(try Self.readAll(path, cuts: [6..<size]).first?.text == "")
    }
}

/// A dedupe over its memory budget splits its input by key into spill partitions, dedupes them
/// one at a time and merges them: the same bytes as one pass, and no spill file left.
@Suite struct DedupeSpillTests {
    @Test func aDedupeOverItsBudgetSpillsByKeyAndWritesTheSameBytes() throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try ShardedInput.write(in: inputsFolder)
        let directory = try TemporaryDirectory()
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        try INatIngest(options: ingest).run()
        let whole = try Dedupe(options: .init(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
            conflicts: directory.file("conflicts.json"))).run()
        var options = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("spilled/deduped.jsonl"),
            conflicts: directory.file("spilled/conflicts.json"))
        options.memoryBudget = 1000
        options.examples = 2
        let spilled = try Dedupe(options: options).run()
        #expect(try ShardedBuildTests.bytes(directory.file("deduped.jsonl")) == ShardedBuildTests.bytes(directory.file("spilled/deduped.jsonl")))
        #expect(spilled.unique == whole.unique)
        #expect(spilled.occurrences == whole.occurrences)
        #expect(spilled.conflicts == whole.conflicts && whole.conflicts.ids > 0)
        #expect(spilled.filledDimensions == whole.filledDimensions)
        #expect(whole.spillPartitions == 0 && spilled.spillPartitions > 1)
        // The first two examples by id, as a one-pass dedupe with --examples 2 lists them.
        var two = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("two/deduped.jsonl"), conflicts: directory.file("two/conflicts.json"))
        two.examples = 2
        try Dedupe(options: two).run()
        #expect(try text(directory.file("two/conflicts.json")) == text(directory.file("spilled/conflicts.json")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("spilled")).sorted() == ["conflicts.json", "deduped.jsonl"])
    }
}
