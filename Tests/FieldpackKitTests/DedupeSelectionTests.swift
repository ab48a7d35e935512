import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Dedupe's share of a pipeline's `select` (`Selection.dedupeRules`): the observations it
/// removes are not written, a `select` line counts them, and the bundle is the same bytes as when
/// the load removes them itself.
@Suite struct DedupeSelectionTests {
    /// The sample pipelines: API pages through a polygon with a hole, a box, a taxon rule and
    /// caps; the open-data export (with an API copy) through a polygon and a subtree.
    static let pipelines = ["pipelines/select-sample.json", "pipelines/open-data-sample.json"]

    /// Ingests a sample pipeline's inputs, dedupes them with or without its selection, and
    /// bundles them under it; returns the deduped records and the bundle's bytes.
    static func build(_ pipelinePath: String, dedupeSelects: Bool, in directory: TemporaryDirectory) throws -> (deduped: String, bundle: Data) {
        let pipeline = try Pipeline.load("\(repositoryRoot)/\(pipelinePath)")
        var ingest = INatIngest.Options(
            inputs: try pipeline.resolveINatInputs().files, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        ingest.openDataDate = pipeline.openDataDate
        try INatIngest(options: ingest).run()
        var dedupe = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))
        dedupe.selection = dedupeSelects ? pipeline.selection : nil
        try Dedupe(options: dedupe).run()
        var policy = pipeline.shipping
        if let path = policy.measuredSizes, !path.hasPrefix("/") { policy.measuredSizes = "\(repositoryRoot)/\(path)" }
        var bundle = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: pipeline.name, policy: policy)
        bundle.selection = pipeline.selection
        bundle.selectionSource = pipelinePath
        bundle.sourceDateEpoch = 1_717_200_000
        bundle.costsReport = directory.file("costs-report.json")
        try BundleBuilder(options: bundle).run()
        return (directory.file("deduped.jsonl"), try Data(contentsOf: URL(fileURLWithPath: directory.file("content.sqlite"))))
    }

    @Test(arguments: pipelines)
    func theBundleIsTheSameBytesWhetherDedupeOrTheLoadRemovesTheObservations(pipeline: String) throws {
        let (selecting, unselecting) = (try TemporaryDirectory(), try TemporaryDirectory())
        let selected = try Self.build(pipeline, dedupeSelects: true, in: selecting)
        let whole = try Self.build(pipeline, dedupeSelects: false, in: unselecting)
        // Dedupe did remove observations, and wrote fewer of them.
        let counts = try #require(try recordLines(selected.deduped, deduped: true).first { $0["k"] as? String == "select" })
        let removed = try #require(counts["removed"] as? [String: Int])
        #expect(removed["places", default: 0] > 0)
        let observations = { (path: String) in try recordLines(path, deduped: true).filter { $0["k"] as? String == "obs" }.count }
        #expect(try observations(selected.deduped) + removed.values.reduce(0, +) == (try observations(whole.deduped)))
        #expect(selected.bundle == whole.bundle)
        #expect(try text(selecting.file("costs-report.json")) == (try text(unselecting.file("costs-report.json"))))
    }

    /// Over its memory budget, dedupe splits the records into spill partitions, each counting
    /// what it removed: the merged file has one `select` line of the sums, as one pass writes.
    @Test func spillPartitionsWriteOneSelectLineOfTheirSums() throws {
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        let directory = try TemporaryDirectory()
        _ = try Self.build("pipelines/open-data-sample.json", dedupeSelects: true, in: directory)
        var spilling = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("spilled.jsonl"), conflicts: directory.file("spilled-conflicts.json"))
        spilling.selection = pipeline.selection
        spilling.memoryBudget = 200
        let summary = try Dedupe(options: spilling).run()
        #expect(summary.spillPartitions > 1)
        #expect(try text(directory.file("spilled.jsonl")) == (try text(directory.file("deduped.jsonl"))))
        #expect(try lines(directory.file("spilled.jsonl")).filter { $0.hasPrefix("[\"select\"") }.count == 1)
    }

    /// Records deduped under one pipeline's rules, bundled under another's (or under none): the
    /// bundle stage refuses them, naming the line, and says to run dedupe again.
    @Test func theBundleRefusesRecordsDedupedUnderOtherRules() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.build("pipelines/open-data-sample.json", dedupeSelects: true, in: directory)
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        var other = try #require(pipeline.selection)
        other.places.boxes.append(BoundingBox(west: -10, south: 35, east: 5, north: 44))
        for selection in [other, nil] as [Selection?] {
            var bundle = BundleBuilder.Options(
                input: directory.file("deduped.jsonl"), output: directory.file("other.sqlite"), pipelineName: "other",
                policy: pipeline.shipping)
            bundle.selection = selection
            #expect {
                try BundleBuilder(options: bundle).run()
            } throws: { error in
                let message = "\(error)"
                return message.contains("deduped.jsonl") && message.contains("run fieldpack-dedupe again with this --pipeline")
            }
        }
    }

    /// A records file that already holds a `select` line is a deduped file: dedupe refuses it.
    @Test func dedupeRefusesADedupedFile() throws {
        let directory = try TemporaryDirectory()
        _ = try Self.build("pipelines/open-data-sample.json", dedupeSelects: true, in: directory)
        let again = Dedupe.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("again.jsonl"), conflicts: directory.file("again.json"))
        #expect {
            try Dedupe(options: again).run()
        } throws: { "\($0)".contains("a deduped records file") }
    }
}
