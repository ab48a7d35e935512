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

    /// What a build gave: the deduped records, the bundle's bytes, the build summary.
    struct Built {
        var deduped: String
        var bundle: Data
        var summary: BundleBuilder.Summary
        /// Export photo links ingest left out, and rows it only counted.
        var prunedLinks = 0
        var leftOutRows = 0
    }

    /// Ingests a sample pipeline's inputs, dedupes them with or without its selection (or
    /// `selection`, in its place), and bundles them under it.
    static func build(
        _ pipelinePath: String, dedupeSelects: Bool, in directory: TemporaryDirectory, selection: Selection? = nil,
        exportID: (@Sendable (ObservationUUID) -> Int64)? = nil, ingestSelects: Bool = false
    ) throws -> Built {
        let pipeline = try Pipeline.load("\(repositoryRoot)/\(pipelinePath)")
        var policy = pipeline.shipping
        if let path = policy.measuredSizes, !path.hasPrefix("/") { policy.measuredSizes = "\(repositoryRoot)/\(path)" }
        return try build(
            inputs: try pipeline.resolveINatInputs().files, selection: selection ?? pipeline.selection, policy: policy,
            openDataDate: pipeline.openDataDate, dedupeSelects: dedupeSelects, in: directory, exportID: exportID,
            ingestSelects: ingestSelects)
    }

    /// Ingests `inputs` (pruning the export's links by `selection` if `ingestSelects`), dedupes
    /// them with or without `selection`, and bundles them under it, with no build date given (it
    /// comes from the newest observation seen, removed ones included). `exportID` stands in for
    /// the uuid hash (a constant one makes every export-only uuid collide).
    static func build(
        inputs: [String], selection: Selection?, policy: ShippingPolicy = ShippingPolicy(), openDataDate: Int64? = nil,
        dedupeSelects: Bool, in directory: TemporaryDirectory, exportID: (@Sendable (ObservationUUID) -> Int64)? = nil,
        ingestSelects: Bool = false
    ) throws -> Built {
        let measured = try policy.measuredSizes.map { try MeasuredSizes(path: $0).entries.map(\.photo) } ?? []
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        ingest.openDataDate = openDataDate
        ingest.selection = ingestSelects ? selection : nil
        ingest.measuredPhotos = ingestSelects ? measured : []
        let ingested = try INatIngest(options: ingest).run()
        var dedupe = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))
        dedupe.selection = dedupeSelects ? selection : nil
        dedupe.measuredPhotos = measured
        try Dedupe(options: dedupe).run()
        var bundle = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "select", policy: policy)
        bundle.selection = selection
        bundle.selectionSource = "pipelines/select.json"
        bundle.costsReport = directory.file("costs-report.json")
        if let exportID { bundle.exportID = exportID }
        let summary = try BundleBuilder(options: bundle).run()
        return Built(
            deduped: directory.file("deduped.jsonl"), bundle: try Data(contentsOf: URL(fileURLWithPath: directory.file("content.sqlite"))),
            summary: summary, prunedLinks: ingested.prunedLinks, leftOutRows: ingested.leftOutRows)
    }

    /// Builds both ways and expects the same bundle bytes, report, findings and build date;
    /// returns what dedupe's `select` line counted.
    @discardableResult
    static func expectTheSameBundle(
        _ pipeline: String, selection: Selection? = nil, exportID: (@Sendable (ObservationUUID) -> Int64)? = nil
    ) throws -> [String: Int] {
        try expectTheSameBundle { selects, directory in
            try build(pipeline, dedupeSelects: selects, in: directory, selection: selection, exportID: exportID)
        }
    }

    @discardableResult
    static func expectTheSameBundle(_ build: (_ dedupeSelects: Bool, TemporaryDirectory) throws -> Built) throws -> [String: Int] {
        let (selecting, unselecting) = (try TemporaryDirectory(), try TemporaryDirectory())
        let selected = try build(true, selecting)
        let whole = try build(false, unselecting)
        let counts = try #require(try recordLines(selected.deduped, deduped: true).first { $0["k"] as? String == "select" })
        let removed = try #require(counts["removed"] as? [String: Int])
        // Dedupe wrote only what it kept.
        let count = { (path: String, kind: String) in try recordLines(path, deduped: true).filter { $0["k"] as? String == kind }.count }
        #expect(try count(selected.deduped, "obs") + removed.values.reduce(0, +) == (try count(whole.deduped, "obs")))
        // And only the photos its records refer to, counting the others.
        let notSelected = try #require(counts["photos_not_selected"] as? Int)
        #expect(notSelected > 0)
        #expect(try count(selected.deduped, "photo") + notSelected == (try count(whole.deduped, "photo")))
        #expect(selected.bundle == whole.bundle)
        #expect(selected.summary.buildDate == whole.summary.buildDate)
        #expect(selected.summary.findings == whole.summary.findings)
        #expect(selected.summary.missingParents == whole.summary.missingParents)
        #expect(try text(selecting.file("costs-report.json")) == (try text(unselecting.file("costs-report.json"))))
        return removed
    }

    @Test(arguments: pipelines)
    func theBundleIsTheSameBytesWhetherDedupeOrTheLoadRemovesTheObservations(pipeline: String) throws {
        let removed = try Self.expectTheSameBundle(pipeline)
        #expect(removed["places", default: 0] > 0)
        // With a taxon rule, dedupe applies only the places (and `"obscured": "drop"`, which
        // select-sample gives, counted apart: its obscured observation's point is inside).
        #expect(removed.keys.sorted() == (pipeline.hasSuffix("select-sample.json") ? ["obscured", "places"] : ["places"]))
    }

    /// Without a taxon rule dedupe also applies the quality grades and the observed range, and
    /// counts each removed observation under the first rule that removes it, as the load would.
    @Test(arguments: pipelines)
    func withoutATaxonRuleDedupeAlsoAppliesTheGradesAndTheRange(pipeline: String) throws {
        var selection = try #require(try Pipeline.load("\(repositoryRoot)/\(pipeline)").selection)
        selection.taxa = TaxonRule()
        selection.caps = SelectionCaps()
        selection.qualityGrades = ["research"]
        selection.observedFrom = "2019-01-01"
        let removed = try Self.expectTheSameBundle(pipeline, selection: selection)
        #expect(removed.keys.sorted() == (pipeline.hasSuffix("select-sample.json") ? ["obscured", "observed", "places", "quality_grades"] : ["observed", "places", "quality_grades"]))
        #expect(removed.values.reduce(0, +) > removed["places", default: 0])
    }

    /// An export whose removed observation has the lower uuid, every uuid hashing alike, and an
    /// API page whose newest observation is removed: the kept export observation's id is decided
    /// among the uuids the rules keep (else the removed one would keep the hash and move it), and
    /// the newest observation seen, removed or not, dates the build, whichever stage removed it.
    @Test func removedObservationsNeitherMoveKeptIdsNorChangeTheBuildDate() throws {
        let directory = try TemporaryDirectory()
        let export = [
            (uuid: "00000000-0000-4000-8000-000000000001", observer: 7, taxon: 48662),
            (uuid: "ffffffff-0000-4000-8000-000000000002", observer: 7, taxon: 48662),
        ]
        let inputs = try OpenDataIdentityTests.writeExport(export, casual: [export[0].uuid], in: directory) + [
            try directory.write("page.json", page([
                observationJSON(id: 11, updatedAt: "2024-01-01T00:00:00+00:00"),
                observationJSON(id: 12, updatedAt: "2025-06-01T00:00:00+00:00", quality: "casual"),
            ])),
        ]
        var selection = Selection()
        selection.qualityGrades = ["research"]
        let removed = try Self.expectTheSameBundle { selects, output in
            try Self.build(inputs: inputs, selection: selection, dedupeSelects: selects, in: output, exportID: { _ in -1_000 })
        }
        #expect(removed == ["quality_grades": 2])
        let output = try TemporaryDirectory()
        let built = try Self.build(inputs: inputs, selection: selection, dedupeSelects: true, in: output, exportID: { _ in -1_000 })
        #expect(built.summary.buildDate.hasPrefix("2025-06-01"))
        let database = try Database(path: output.file("content.sqlite"), mode: .readOnly)
        #expect(try database.rows("SELECT id FROM observations ORDER BY id").map { $0[0] } == ["-1000", "11"])
    }

    /// Over its memory budget, dedupe splits the records into spill partitions, each counting
    /// what it removed and writing every photo (it cannot know what the others' observations
    /// link): the merge writes one `select` line of the sums and leaves out the photos no merged
    /// record refers to, so the file is the one one pass writes.
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
        let select = try recordLines(directory.file("spilled.jsonl"), deduped: true).filter { $0["k"] as? String == "select" }
        #expect(select.count == 1)
        #expect(select.first?["photos_not_selected"] as? Int ?? 0 > 0)
        // A dedupe shard's spill is not the whole job's: it writes every photo.
        spilling.whole = false
        spilling.output = directory.file("part.jsonl")
        try Dedupe(options: spilling).run()
        let photos = { (path: String) in try lines(path).filter { $0.hasPrefix("[\"photo\"") }.count }
        #expect(try photos(directory.file("part.jsonl")) == (try photos(directory.file("deduped.jsonl"))) + (select.first?["photos_not_selected"] as? Int ?? 0))
    }

    /// A photo with measured sizes is decided for the download fit even when the selection
    /// leaves it out: dedupe writes it whatever it keeps, and the bundle is the same bytes.
    @Test func photosWithMeasuredSizesAreWrittenWhateverTheSelectionKeeps() throws {
        let unselected = try TemporaryDirectory()
        let first = try Self.build("pipelines/open-data-sample.json", dedupeSelects: false, in: unselected)
        let database = try Database(path: unselected.file("content.sqlite"), mode: .readOnly)
        let shipped = Set(try database.rows("SELECT id FROM photos").map { $0[0] })
        let left = try recordLines(first.deduped, deduped: true).filter { $0["k"] as? String == "photo" }
            .compactMap { $0["id"] as? Int }.filter { !shipped.contains(String($0)) }
        // Half of them measured: the other half are still left out, and counted.
        let measured = stride(from: 0, to: left.count, by: 2).map { left[$0] }
        #expect(left.count > 2)
        let sizes = try unselected.write("sizes.csv", "photo_id,tier,bytes\n" + measured.map { "\($0),small,4321\n" }.joined())
        var selection = try #require(try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json").selection)
        selection.caps = SelectionCaps()
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        var policy = pipeline.shipping
        policy.measuredSizes = sizes
        try Self.expectTheSameBundle { selects, directory in
            try Self.build(
                inputs: try pipeline.resolveINatInputs().files, selection: selection, policy: policy, openDataDate: pipeline.openDataDate,
                dedupeSelects: selects, in: directory)
        }
        let directory = try TemporaryDirectory()
        let built = try Self.build(
            inputs: try pipeline.resolveINatInputs().files, selection: selection, policy: policy, openDataDate: pipeline.openDataDate,
            dedupeSelects: true, in: directory)
        let written = Set(try recordLines(built.deduped, deduped: true).filter { $0["k"] as? String == "photo" }.compactMap { $0["id"] as? Int })
        #expect(Set(measured).isSubset(of: written))
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

    /// A `select` line reads back as written; one of any other shape reads as nothing (the
    /// bundle then names its line).
    @Test func aSelectLineReadsBackAndAnyOtherShapeIsRefused() throws {
        var counts = DedupedSelectionRecord(fingerprint: "abc", rules: ["places", "observed"])
        counts.add(rule: "observed", seen: 5)
        counts.add(rule: "places", seen: 9)
        counts.add(rule: "places", seen: nil)
        counts.photosNotSelected = 4
        let line = counts.encoded()
        #expect(String(decoding: line, as: UTF8.self) == "[\"select\",\"abc\",{\"places\":2,\"observed\":1},9,4,null,null,0,0]\n")
        func read(_ text: String) throws -> DedupedSelectionRecord? {
            let parser = JSONParser()
            var columns = JSONColumns()
            _ = columns.load(try parser.parse(PaddedBuffer(copying: Array(text.utf8))))
            return withExtendedLifetime(parser) { DedupedSelectionRecord(columns) }
        }
        #expect(try read(String(decoding: line, as: UTF8.self)) == counts)
        // Ingest's lines are marked; a line without the mark (a dedupe's before it) is a dedupe's.
        var ingest = counts
        ingest.stage = .ingest
        ingest.measured = DedupedSelectionRecord.measuredDigest([])
        #expect(String(decoding: ingest.encoded(), as: UTF8.self).hasSuffix(",9,4,\"ingest\",\"\(ingest.measured!)\",0,0]\n"))
        #expect(DedupedSelectionRecord.measuredDigest([3, 1, 3]) == DedupedSelectionRecord.measuredDigest([1, 3]))
        #expect(DedupedSelectionRecord.measuredDigest([1, 3]) != DedupedSelectionRecord.measuredDigest([1]))
        #expect(try read(String(decoding: ingest.encoded(), as: UTF8.self)) == ingest)
        #expect(try read(#"["select","abc",{"places":2,"observed":1},9,4]"#) == counts)
        for bad in [
            #"["select","abc",{"places":1},9,0,"bundle"]"#, #"["select","abc",{"places":1},9,0,1]"#,
            #"["select","abc",{"places":1},9,0,"ingest",7]"#,
            #"["select","abc",{"places":-1},9,0]"#, #"["select","abc",{"nearby":1},9,0]"#, #"["select","abc",[1],9,0]"#,
            #"["select",7,{"places":1},9,0]"#, #"["select","abc",{"places":"1"},null,0]"#,
            #"["select","abc",{"places":1},9,-1]"#, #"["select","abc",{"places":1},9]"#,
        ] {
            #expect(try read(bad) == nil, "\(bad)")
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
