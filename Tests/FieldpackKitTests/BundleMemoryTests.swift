import FieldpackKit
import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

/// The bundle stage holds what grows with the taxa and users, not with the observations or
/// photos: the photo links and the observers go through external sorts that spill to the build
/// folder. Spilling must change nothing in the outputs.
@Suite struct BundleMemoryTests {
    /// Builds `deduped` into `name` with sorts that spill runs of `runBytes`; returns the
    /// database's and the costs report's bytes.
    func build(_ deduped: String, in directory: TemporaryDirectory, name: String, runBytes: Int, policy: ShippingPolicy) throws -> (Data, Data) {
        var options = BundleBuilder.Options(
            input: deduped, output: directory.file("\(name)/content.sqlite"), pipelineName: "t", policy: policy)
        options.costsReport = directory.file("\(name)/costs-report.json")
        options.sortRunBytes = runBytes
        try BundleBuilder(options: options).run()
        // Only the outputs are left: the spill files have no name.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file(name)).sorted() == ["content.sqlite", "costs-report.json"])
        return (try Data(contentsOf: URL(fileURLWithPath: options.output)),
                try Data(contentsOf: URL(fileURLWithPath: options.costsReport!)))
    }

    @Test func theSampleBundleIsByteIdenticalWhenEveryLinkAndObserverSpills() throws {
        let directory = try TemporaryDirectory()
        let inputs = try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/sample-data/inat")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(repositoryRoot)/sample-data/inat/\($0)" }
        try ingestAndDedupe(inputs, in: directory)
        var policy = try samplePolicy()
        policy.licenses = Set(License.allCases)
        let memory = try build(directory.file("deduped.jsonl"), in: directory, name: "memory", runBytes: 1 << 20, policy: policy)
        let spilled = try build(directory.file("deduped.jsonl"), in: directory, name: "spilled", runBytes: 1, policy: policy)
        #expect(memory.0 == spilled.0)
        #expect(memory.1 == spilled.1)
    }

    @Test func aSyntheticBundleIsByteIdenticalWhenItsSortsSpillInManyRuns() throws {
        let directory = try TemporaryDirectory()
        var dump = SyntheticDump.Options(observations: 3000, seed: 3, output: directory.file("dump"))
        dump.damage = true
        _ = try SyntheticDump(options: dump).run()
        let pages = try FileManager.default.contentsOfDirectory(atPath: directory.file("dump"))
            .filter { $0.hasPrefix("page-") }.sorted().map { directory.file("dump/\($0)") }
        try ingestAndDedupe(pages, in: directory)
        let policy = try samplePolicy()
        // 4 KiB runs: about a hundred runs of links, a few of observers.
        let memory = try build(directory.file("deduped.jsonl"), in: directory, name: "memory", runBytes: 1 << 24, policy: policy)
        let spilled = try build(directory.file("deduped.jsonl"), in: directory, name: "spilled", runBytes: 4096, policy: policy)
        #expect(memory.0 == spilled.0)
        #expect(memory.1 == spilled.1)
    }

    /// Who took a photo is its record's observer (the observation it came in, or its export
    /// row's `observer_id`), whatever observation links it: photo 5 is Bob's, though only Ann's
    /// observation links it; photo 6 names no observer and no attribution name, so nobody can be
    /// credited and it does not ship.
    @Test func aPhotoWithoutAnAttributionNameIsCreditedToTheObserverItsRecordNames() throws {
        let directory = try TemporaryDirectory()
        let nulls = Array(repeating: "null", count: 12).joined(separator: ",")
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"ann","Ann",1]
            ["user",8,"bob","Bob",1]
            ["obs",1,"u1",7,null,"research",\(nulls),[[5,0],[6,1]],null,null,1]
            ["obs",2,"u2",8,null,"research",\(nulls),null,null,null,1]
            ["photo",5,null,"obs",0,"https://static.inaturalist.org/photos/5/square.jpg","cc-by","a",10,10,null,null,null,1,2,8]
            ["photo",6,null,"obs",0,"https://static.inaturalist.org/photos/6/square.jpg","cc-by","a",10,10,null,null,null,1,99,null]

            """)
        let options = BundleBuilder.Options(
            input: input, output: directory.file("out/content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        let summary = try BundleBuilder(options: options).run()
        let database = try Database(path: options.output, mode: .immutable)
        let credits = try database.rows("SELECT id, credit FROM photos ORDER BY id")
        #expect(credits.count == 1)
        #expect(credits.first?[1]?.contains("Bob") == true, "\(credits)")
        #expect(summary.report?.excluded["no-credit"] == 1)
        #expect(try database.int("SELECT count(*) FROM observation_photos WHERE observation_id = 1") == 1)
    }
}
