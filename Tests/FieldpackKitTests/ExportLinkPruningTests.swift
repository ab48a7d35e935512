@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Dispatch
import Testing

/// Ingest leaves out the export's photo links to observations the selection's dedupe rules
/// remove (`ExportLinkPruning`): dedupe's output, and so the bundle, is the same bytes as when
/// every link is written, and dedupe refuses records pruned under rules not its own.
@Suite struct ExportLinkPruningTests {
    typealias Build = DedupeSelectionTests

    /// Builds `inputs` with and without ingest's pruning (dedupe applying the rules both times)
    /// and expects the same deduped records and bundle; returns how many links were left out, and
    /// the observations of the links written.
    static func expectTheSameBuild(
        inputs: [String], selection: Selection, openDataDate: Int64? = nil
    ) throws -> (pruned: Int, linked: [String]) {
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let pruned = try Build.build(
            inputs: inputs, selection: selection, openDataDate: openDataDate, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, openDataDate: openDataDate, dedupeSelects: true, in: writing)
        #expect(whole.prunedLinks == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: pruned.deduped)) == (try Data(contentsOf: URL(fileURLWithPath: whole.deduped))))
        #expect(pruned.bundle == whole.bundle)
        #expect(pruned.summary.findings == whole.summary.findings)
        #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
        // What ingest wrote: fewer links, and fewer photos and observations by what it counted.
        let lines = { (path: String) in try recordLines(path) }
        let (prunedLines, wholeLines) = (try lines(pruning.file("records.jsonl")), try lines(writing.file("records.jsonl")))
        let photos = { (lines: [[String: Any]]) in lines.filter { $0["k"] as? String == "photo" }.count }
        let links = { (lines: [[String: Any]]) in lines.filter { $0["part"] as? String == "links" }.count }
        let rows = { (lines: [[String: Any]]) in lines.filter { $0["k"] as? String == "obs" && $0["part"] as? String != "links" }.count }
        let counted = prunedLines.filter { $0["k"] as? String == "select" }
        #expect(counted.allSatisfy { $0["stage"] as? String == "ingest" })
        #expect(wholeLines.allSatisfy { $0["k"] as? String != "select" })
        let countedPhotos = counted.reduce(0) { $0 + ($1["photos_not_selected"] as! Int) }
        let countedRows = counted.reduce(0) { $0 + ($1["removed"] as! [String: Int]).values.reduce(0, +) }
        #expect(photos(prunedLines) + countedPhotos == photos(wholeLines))
        #expect(rows(prunedLines) + countedRows == rows(wholeLines))
        #expect(countedPhotos + countedRows == pruned.leftOutRows)
        #expect(links(prunedLines) + pruned.prunedLinks == links(wholeLines))
        return (pruned.prunedLinks, prunedLines.filter { $0["part"] as? String == "links" }.compactMap { $0["uuid"] as? String })
    }

    @Test func theSampleExportBuildsTheSameBytesWithItsLinksPruned() throws {
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        let selection = try #require(pipeline.selection)
        let (pruned, _) = try Self.expectTheSameBuild(
            inputs: try pipeline.resolveINatInputs().files, selection: selection, openDataDate: pipeline.openDataDate)
        #expect(pruned > 0)
    }

    /// An export row whose date is blank (unknown: the export blanks a date before 1800) beside
    /// an API copy that has one: judged on its blank, ingest pruned its photo link, and dedupe,
    /// which fills the date from the API copy, kept the observation without its photo. Ingest
    /// keeps a row with unknown values for dedupe to judge; the build is the same bytes pruned.
    /// (With a taxon rule too.)
    @Test(arguments: [#"{"observed": {"from": "2024-01-01", "to": "2024-12-31"}}"#,
                      #"{"observed": {"from": "2024-01-01", "to": "2024-12-31"}, "taxa": {"include": [48662]}}"#])
    func aRowWithUnknownValuesIsLeftForDedupeToJudge(select: String) throws {
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20241127"
        let uuid = "526ababd-aff2-4ce8-b111-d8013b9d8b42"
        let inputs = [
            try directory.write("\(folder)/observations.csv", """
                observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on
                \(uuid)\t7\t50.5\t4.25\t900\t48662\tresearch\t
                726ababd-aff2-4ce8-b111-d8013b9d8b42\t7\t50.6\t4.35\t\t48662\tneeds_id\t2023-05-02

                """),
            try directory.write("\(folder)/photos.csv", """
                photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e01\t501\t\(uuid)\t7\tjpg\tCC-BY\t800\t600\t0
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e02\t502\t726ababd-aff2-4ce8-b111-d8013b9d8b42\t7\tjpg\tCC-BY\t800\t600\t0

                """),
            try directory.write("\(folder)/observers.csv", "observer_id\tlogin\tname\n7\tkim\tKim Ito\n"),
            try directory.write("\(folder)/taxa.csv", "taxon_id\tancestry\trank_level\trank\tname\tactive\n48662\t\t10\tspecies\tDanaus plexippus\ttrue\n"),
            try directory.write("api/observation.json", """
                {"id":9100001,"uuid":"\(uuid)","quality_grade":"research","observed_on":"2024-04-30","created_at":"2024-04-30T09:00:00+00:00",\
                "updated_at":"2024-10-01T09:00:00Z","location":"50.5,4.25","license_code":"cc-by",\
                "taxon":{"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10},"user":{"id":7,"login":"kim","name":"Kim Ito"},\
                "observation_photos":[{"id":1,"position":0,"photo":{"id":501,"license_code":"cc-by",\
                "url":"https://inaturalist-open-data.s3.amazonaws.com/photos/501/square.jpg","attribution":"(c) Kim Ito","original_dimensions":{"width":800,"height":600}}}]}
                """),
        ]
        let pipeline = try directory.write("p.json", """
            {"name": "p", "inat": ["x"], "select": \(select)}
            """)
        let selection = try #require(try Pipeline.load(pipeline).selection)
        let (pruned, linked) = try Self.expectTheSameBuild(inputs: inputs, selection: selection)
        if !select.contains("taxa") {
            #expect(pruned == 1, "the 2023 observation's link")
            #expect(linked == [uuid])
        }
    }

    /// With only export tables as inputs, a row whose key has no other row is left out whole when
    /// the selection removes it: an observation outside the places (counted by its rule), a photo
    /// linked only to one (counted as not selected). A row whose key repeats is written (a
    /// removed observation in two tables, marked; a photo of a kept and of a removed observation;
    /// a photo in two rows of a removed one), and so is a photo with measured sizes.
    @Test func aRemovedRowWithNoOtherRowIsCountedNotWritten() throws {
        let directory = try TemporaryDirectory()
        let u = Self.uuids
        let folder = "inaturalist-open-data-20241127"
        var inputs = try Self.writeTables(
            folder,
            rows: [(u[0], Self.inside), (u[1], Self.outside), (u[2], Self.outside), (u[3], Self.outside), (u[4], Self.outside)],
            links: [(601, u[0]), (602, u[1]), (603, u[1]), (603, u[0]), (604, u[3]), (604, u[3]), (605, u[4]), (606, u[1])],
            in: directory)
        // The third observation again, in a table of another export (another date): it repeats.
        inputs += try Self.writeTables("second/inaturalist-open-data-20250301", rows: [(u[2], Self.outside)], links: [], in: directory)
        // Photo 606 has measured sizes: the bundle decides it whatever the selection keeps.
        let measured = try directory.write("measured-sizes.csv", "photo_id,tier,bytes\n606,small,18000\n")
        var policy = ShippingPolicy()
        policy.measuredSizes = measured
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        let pruning = try TemporaryDirectory()
        let built = try Build.build(
            inputs: inputs, selection: selection, policy: policy, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, policy: policy, dedupeSelects: true, in: try TemporaryDirectory())
        #expect(built.bundle == whole.bundle)
        let records = try recordLines(pruning.file("records.jsonl"))
        // One line per table that left rows out.
        let counted = records.filter { $0["k"] as? String == "select" }
        #expect(counted.count == 2)
        #expect(counted.reduce(0) { $0 + ($1["removed"] as! [String: Int])["places"]! } == 3)  // u[1], u[3], u[4]
        #expect(counted.reduce(0) { $0 + ($1["photos_not_selected"] as! Int) } == 2)  // 602, 605
        #expect(built.leftOutRows == 5)
        let observations = records.filter { $0["k"] as? String == "obs" && $0["part"] as? String != "links" }
        #expect(observations.compactMap { $0["uuid"] as? String }.sorted() == [u[0], u[2], u[2]])
        #expect(observations.filter { $0["uuid"] as? String == u[2] }.allSatisfy { $0["part"] as? String == "removed:places" })
        let photos = records.filter { $0["k"] as? String == "photo" }.compactMap { $0["id"] as? Int }
        #expect(photos.sorted() == [601, 603, 603, 604, 604, 606])
        // Dedupe counts them with its own: every removed observation once, and the photos.
        let deduped = try #require(try recordLines(built.deduped, deduped: true).first { $0["k"] as? String == "select" })
        #expect(deduped["removed"] as? [String: Int] == ["places": 4])
        #expect(deduped["stage"] is NSNull)
        #expect(deduped["photos_not_selected"] as? Int == 3)  // 602 and 605 (ingest's), 604

        // Read in byte ranges, gzipped, or each export as published (one `.tar.gz` of its folder),
        // the tables give the same deduped records.
        for variant in ["ranges", "gzip", "tar"] {
            let other = try TemporaryDirectory()
            var tables = inputs
            if variant == "tar" {
                let folders = Set(inputs.map { URL(fileURLWithPath: $0).deletingLastPathComponent() })
                tables = try folders.sorted { $0.path < $1.path }.map { folder in
                    let archive = other.file("\(folder.lastPathComponent).tar.gz")
                    try run("/bin/tar", ["-czf", archive, "-C", folder.deletingLastPathComponent().path, folder.lastPathComponent])
                    return archive
                }
            }
            if variant == "gzip" {
                tables = try inputs.map { path in
                    let copy = other.file("\(URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent)/\(URL(fileURLWithPath: path).lastPathComponent).gz")
                    try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: copy).deletingLastPathComponent().path, withIntermediateDirectories: true)
                    try run("/bin/sh", ["-c", "gzip -c '\(path)' > '\(copy)'"])
                    return copy
                }
            }
            var ingest = INatIngest.Options(inputs: tables, output: other.file("records.jsonl"), rejects: other.file("rejects.jsonl"))
            ingest.selection = selection
            ingest.measuredPhotos = [606]
            if variant == "ranges" { ingest.tableRangeBytes = 200 }
            let summary = try INatIngest(options: ingest).run()
            #expect(summary.leftOutRows == 5, "\(variant)")
            var dedupe = Dedupe.Options(input: other.file("records.jsonl"), output: other.file("deduped.jsonl"), conflicts: other.file("c.json"))
            dedupe.selection = selection
            dedupe.measuredPhotos = [606]
            try Dedupe(options: dedupe).run()
            // The same records but for the names of the tables (in the inputs and in an export
            // observation's origin).
            let named = { (path: String, prefix: String) in try lines(path).filter { $0.hasPrefix(prefix) } }
            #expect(try named(other.file("deduped.jsonl"), "[\"obs\"").count == (try named(built.deduped, "[\"obs\"").count), "\(variant)")
            for prefix in ["[\"taxon\"", "[\"user\"", "[\"select\"", "[\"photo\""] {
                #expect(try named(other.file("deduped.jsonl"), prefix) == (try named(built.deduped, prefix)), "\(variant) \(prefix)")
            }
            // Dedupe under other measured sizes refuses ingest's counts.
            dedupe.measuredPhotos = []
            dedupe.output = other.file("again.jsonl")
            #expect { try Dedupe(options: dedupe).run() } throws: { "\($0)".contains("other measured sizes") }
        }

        // Spilled, dedupe counts ingest's lines once (they are all in one partition).
        try Self.expectASpilledDedupeGivesTheSameRecords(
            pruning.file("records.jsonl"), deduped: built.deduped, selection: selection, measured: [606], in: pruning)

        // Sharded, so does the one dedupe shard that gets them, and the bundle adds up the shards.
        for count in [2, 3] {
            let sharded = try Self.shardedBuild(inputs: inputs, selection: selection, policy: policy, measured: [606], shards: count)
            #expect(sharded.bundle == built.bundle, "\(count) shards")
        }
    }

    /// Dedupes ingest's `records` with a memory budget that spills them and expects the bytes of
    /// the one-pass `deduped` records.
    static func expectASpilledDedupeGivesTheSameRecords(
        _ records: String, deduped: String, selection: Selection, measured: [Int64], in directory: TemporaryDirectory
    ) throws {
        var spilling = Dedupe.Options(input: records, output: directory.file("spilled.jsonl"), conflicts: directory.file("spilled.json"))
        spilling.selection = selection
        spilling.measuredPhotos = measured
        spilling.memoryBudget = 200
        #expect(try Dedupe(options: spilling).run().spillPartitions > 1)
        #expect(try text(directory.file("spilled.jsonl")) == (try text(deduped)))
    }

    /// Builds `inputs` as `shards` ingest shards (tables cut at `tableRangeBytes` if given), as
    /// many dedupe shards, and one bundle of their parts; returns its bytes and costs report.
    static func shardedBuild(
        inputs: [String], selection: Selection, policy: ShippingPolicy, measured: [Int64], shards count: Int, tableRangeBytes: Int? = nil
    ) throws -> (bundle: Data, costsReport: String) {
        let split = try TemporaryDirectory()
        try ingestShards(count: count, base: split.file("inat")) { _ in
            var ingest = INatIngest.Options(inputs: inputs, output: "", rejects: "")
            ingest.selection = selection
            ingest.measuredPhotos = measured
            if let tableRangeBytes { ingest.tableRangeBytes = tableRangeBytes }
            return ingest
        }
        let parts = try dedupeShards(count: count, inat: split.file("inat"), base: split.file("dedupe")) { dedupe in
            dedupe.selection = selection
            dedupe.measuredPhotos = measured
        }
        var bundle = BundleBuilder.Options(input: parts[0], output: split.file("content.sqlite"), pipelineName: "select", policy: policy)
        bundle.inputs = parts
        bundle.selection = selection
        bundle.selectionSource = "pipelines/select.json"
        bundle.costsReport = split.file("costs-report.json")
        try BundleBuilder(options: bundle).run()
        return (try Data(contentsOf: URL(fileURLWithPath: split.file("content.sqlite"))), try text(split.file("costs-report.json")))
    }

    /// Ingest's counts and dedupe's lines are told apart: dedupe refuses a deduped file's `select`
    /// line and one counted under other rules, and the bundle refuses ingest's.
    @Test func ingestsCountsAreReadOnlyByDedupeUnderTheSameRules() throws {
        let directory = try TemporaryDirectory()
        let u = Self.uuids
        let inputs = try Self.writeTables(
            "inaturalist-open-data-20241127", rows: [(u[0], Self.inside), (u[1], Self.outside)],
            links: [(601, u[0]), (602, u[1])], in: directory)
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        _ = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: directory, ingestSelects: true)
        #expect(try recordLines(directory.file("records.jsonl")).contains { $0["stage"] as? String == "ingest" })
        var other = selection
        other.places.boxes.append(BoundingBox(west: -10, south: 35, east: 5, north: 44))
        for (input, dedupeSelection, expected) in [
            ("records.jsonl", other, "run fieldpack-inat again"), ("deduped.jsonl", selection, "a deduped records file"),
        ] as [(String, Selection?, String)] {
            var options = Dedupe.Options(
                input: directory.file(input), output: directory.file("again.jsonl"), conflicts: directory.file("again.json"))
            options.selection = dedupeSelection
            #expect { try Dedupe(options: options).run() } throws: { "\($0)".contains(expected) }
        }
        var bundle = BundleBuilder.Options(
            input: directory.file("records.jsonl"), output: directory.file("ingested.sqlite"), pipelineName: "select", policy: ShippingPolicy())
        bundle.selection = selection
        #expect { try BundleBuilder(options: bundle).run() } throws: { "\($0)".contains("records") }
    }

    static let inside = (latitude: "50.5", longitude: "4.25")
    static let outside = (latitude: "-33.9", longitude: "151.2")
    static let uuids = (1...6).map { "00000000-0000-4000-8000-00000000000\($0)" }

    /// An observations table of `rows` (uuid, point) and a photos table of `links` (photo id,
    /// uuid), in `folder`.
    static func writeTables(
        _ folder: String, rows: [(uuid: String, point: (latitude: String, longitude: String))],
        links: [(photo: Int, uuid: String)], in directory: TemporaryDirectory
    ) throws -> [String] {
        var observations = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        for row in rows {
            observations += "\(row.uuid)\t7\t\(row.point.latitude)\t\(row.point.longitude)\t\t48662\tresearch\t2024-04-30\n"
        }
        var photos = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        for (position, link) in links.enumerated() {
            photos += "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e\(String(format: "%02d", position))\t\(link.photo)\t\(link.uuid)\t7\tjpg\tCC-BY\t100\t100\t\(position)\n"
        }
        var paths = [try directory.write("\(folder)/observations.csv", observations)]
        if !links.isEmpty { paths.append(try directory.write("\(folder)/photos.csv", photos)) }
        return paths
    }

    /// An API observation with a real uuid, at `point`, last updated at `updatedAt`, with one photo.
    static func apiObservation(id: Int, uuid: String, point: (latitude: String, longitude: String), updatedAt: String, photo: Int) -> String {
        """
        {"id":\(id),"uuid":"\(uuid)","quality_grade":"research","observed_on":"2024-04-30","updated_at":"\(updatedAt)",\
        "location":"\(point.latitude),\(point.longitude)","taxon":{"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10},\
        "user":{"id":7,"login":"kim","name":null},"photos":[{"id":\(photo),"license_code":"cc-by",\
        "url":"https://inaturalist-open-data.s3.amazonaws.com/photos/\(photo)/square.jpg","attribution":"(c) kim, some rights reserved",\
        "original_dimensions":{"width":100,"height":100}}],"observation_photos":[{"id":\(photo + 1000),"position":0,"photo":{"id":\(photo),\
        "license_code":"cc-by","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/\(photo)/square.jpg",\
        "attribution":"(c) kim, some rights reserved","original_dimensions":{"width":100,"height":100}}}]}
        """
    }

    /// Every way a pruned link could have mattered, and does not: an observation outside the box
    /// whose newer API copy is inside (the API copy wins, with its own photos); one outside whose
    /// older API copy is inside (the export copy wins and is removed); one outside in one table
    /// and inside in another of the same export date (its links are kept: either copy may win
    /// and take them); links to an observation no table holds; a photo in a kept and in a
    /// removed observation (the photo is written once, linked once).
    @Test func noLinkALaterStageWouldUseIsPruned() throws {
        let directory = try TemporaryDirectory()
        let u = Self.uuids
        let folder = "inaturalist-open-data-20241127"
        var inputs = try Self.writeTables(
            folder,
            rows: [(u[0], Self.inside), (u[1], Self.outside), (u[2], Self.outside), (u[3], Self.outside), (u[5], Self.outside)],
            links: [(601, u[0]), (602, u[1]), (603, u[2]), (604, u[3]), (605, u[4]), (606, u[0]), (606, u[5])],
            in: directory)
        // A second observations table of the same date, where the fourth observation is inside.
        inputs += try Self.writeTables("second/\(folder)", rows: [(u[3], Self.inside)], links: [], in: directory)
        inputs.append(try directory.write("page.json", page([
            Self.apiObservation(id: 21, uuid: u[1], point: Self.inside, updatedAt: "2025-06-01T00:00:00+00:00", photo: 701),
            Self.apiObservation(id: 22, uuid: u[2], point: Self.inside, updatedAt: "2024-01-01T00:00:00+00:00", photo: 702),
        ])))
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        let (pruned, linked) = try Self.expectTheSameBuild(inputs: inputs, selection: selection)
        // Left out: the links of the second, third and sixth observations and of the one no table holds.
        #expect(pruned == 4)
        #expect(linked.sorted() == [u[0], u[0], u[3]])
    }

    /// Dedupe without the rules ingest pruned under, or with others, would write observations
    /// without their photos: it refuses, naming the photos table and what to do.
    @Test func dedupeRefusesRecordsPrunedUnderOtherRules() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        let selection = try #require(pipeline.selection)
        _ = try Build.build("pipelines/open-data-sample.json", dedupeSelects: true, in: directory, ingestSelects: true)
        var other = selection
        other.places.boxes.append(BoundingBox(west: -10, south: 35, east: 5, north: 44))
        for (dedupeSelection, expected) in [(nil, "give fieldpack-dedupe the --pipeline"), (other, "run fieldpack-inat again")] as [(Selection?, String)] {
            var options = Dedupe.Options(
                input: directory.file("records.jsonl"), output: directory.file("other.jsonl"), conflicts: directory.file("other.json"))
            options.selection = dedupeSelection
            #expect {
                try Dedupe(options: options).run()
            } throws: { error in
                let message = "\(error)"
                return message.contains("sample-data/open-data/") && message.contains("pruned") && message.contains(expected)
            }
        }
    }

    /// An export of 2024-11-27 whose box keeps two of its three observations (u[0], u[2]), each
    /// with a photo, and the box.
    static func twoKeptOfThree(in directory: TemporaryDirectory) throws -> (inputs: [String], box: Selection) {
        let u = uuids
        let inputs = try writeTables(
            "inaturalist-open-data-20241127", rows: [(u[0], inside), (u[1], outside), (u[2], inside)],
            links: [(601, u[0]), (602, u[1]), (603, u[2])], in: directory)
        var box = Selection()
        box.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        return (inputs, box)
    }

    /// No pruning where it cannot be exact: no rule applied before the bundle (`min_photos`
    /// compares kept observations). (A taxon rule alone: `ExportTaxaTests`.)
    @Test func ingestPrunesNothingWhenItCannotBeExact() throws {
        let directory = try TemporaryDirectory()
        let (inputs, box) = try Self.twoKeptOfThree(in: directory)
        let planned = try #require(try ExportLinkPruning.plan(inputs: inputs, selection: box, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.fingerprint == box.dedupeFingerprint)
        #expect(planned.keptRows == 2)
        var photosOnly = Selection()
        photosOnly.minimumPhotos = 1
        #expect(try ExportLinkPruning.plan(inputs: inputs, selection: photosOnly, openDataDate: nil, scratch: directory.path, workers: 2) == nil)
    }

    /// An export's tar archive beside loose tables is planned from its members, its rows dated by
    /// the archive's name when the members' names carry no date.
    @Test func anArchiveBesideLooseTablesIsPlannedFromItsMembersDatedByItsName() throws {
        let directory = try TemporaryDirectory()
        let u = Self.uuids
        let (inputs, box) = try Self.twoKeptOfThree(in: directory)
        let archive = directory.file("inaturalist-open-data-20250301.tar.gz")
        try run("/bin/tar", ["-czf", archive, "-C", directory.file("inaturalist-open-data-20241127"), "observations.csv", "photos.csv"])
        let planned = try #require(
            try ExportLinkPruning.plan(inputs: inputs + [archive], selection: box, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.keptRows == 4)
        // Kept at the archive's date (the loose tables' is 2024-11-27), and only the kept ones.
        let (kept, removed) = (Array(u[0].utf8).withUnsafeBytes { ObservationUUID($0)! }, Array(u[1].utf8).withUnsafeBytes { ObservationUUID($0)! })
        #expect(planned.keepsLink(to: kept, date: Timestamp.day("2025-03-01")))
        #expect(!planned.keepsLink(to: removed, date: Timestamp.day("2025-03-01")))
        #expect(!planned.keepsLink(to: kept, date: Timestamp.day("2026-01-01")))
    }

    /// The export as iNaturalist publishes it, one `.tar.gz`, is pruned as its tables loose
    /// are (the taxa and observers no kept row needs left out too): the same bundle, report and
    /// findings as when ingest writes every row; beside an API copy (its links only); and cut
    /// short, the rows before the cut kept. With the sample's selection (a taxon rule that the
    /// taxa tables decide), and with its places alone, whose observations the plan judges as it
    /// lists the archive's members.
    @Test(arguments: [false, true])
    func theExportsArchiveIsPrunedAsItsTablesLooseAreAndBuildsTheSameBytes(placesAlone: Bool) throws {
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/open-data-sample.json")
        var selection = try #require(pipeline.selection)
        if placesAlone {
            #expect(!selection.taxa.isEmpty && !selection.places.isEmpty)
            selection.taxa = TaxonRule(include: [], exclude: [])
        }
        let inputs = try pipeline.resolveINatInputs().files
        let tables = inputs.filter { !$0.hasSuffix(".jsonl") }
        let api = try #require(inputs.first { $0.hasSuffix(".jsonl") })
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20241127"
        try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        for table in tables {
            try FileManager.default.copyItem(atPath: table, toPath: directory.file("\(folder)/\(URL(fileURLWithPath: table).lastPathComponent)"))
        }
        let archive = directory.file("\(folder).tar.gz")
        try run("/bin/tar", ["-czf", archive, "-C", directory.path, folder])

        /// Builds `inputs` pruned and not, expects the same bundle, findings and report, and
        /// returns the pruned build.
        func expectTheSameBundle(_ inputs: [String], openDataDate: Int64? = nil) throws -> Build.Built {
            let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
            let pruned = try Build.build(
                inputs: inputs, selection: selection, openDataDate: openDataDate, dedupeSelects: true, in: pruning, ingestSelects: true)
            let whole = try Build.build(inputs: inputs, selection: selection, openDataDate: openDataDate, dedupeSelects: true, in: writing)
            #expect(whole.prunedLinks == 0 && whole.leftOutRows == 0)
            #expect(pruned.bundle == whole.bundle)
            #expect(pruned.summary.findings == whole.summary.findings)
            #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
            return pruned
        }
        // The plan judges the archive's observations and photos as it lists them.
        let planned = try #require(try ExportLinkPruning.plan(
            inputs: [archive], selection: selection, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.judgedWhileListed == 2)
        let fromArchive = try expectTheSameBundle([archive])
        let loose = try expectTheSameBundle(tables, openDataDate: pipeline.openDataDate)
        #expect(fromArchive.prunedLinks > 0 && fromArchive.leftOutRows > 0)
        #expect((fromArchive.prunedLinks, fromArchive.leftOutRows) == (loose.prunedLinks, loose.leftOutRows))
        #expect(fromArchive.bundle == loose.bundle)
        let (prunedBesideAPI, _) = try Self.expectTheSameBuild(inputs: [archive, api], selection: selection)
        #expect(prunedBesideAPI > 0)

        // Cut short anywhere, ingest refuses the file: in the middle of its last member, the
        // photos (it shipped the rows before the cut with a notice, exit 0: part of a guide);
        // where a table is never reached (in the middle of the observations, which come before
        // the photos; inside the header of its second member), naming the tables lost (it
        // shipped a guide without photos); the `.tar.gz` itself cut in half, as a download cut
        // short; and only its gzip trailer cut off (no word at all). (The members' order is
        // given: each is a 512-byte header and its data, padded to 512 bytes.)
        let members = tables.filter { !$0.hasSuffix("photos.csv") } + tables.filter { $0.hasSuffix("photos.csv") }
        let names = members.map { "\(folder)/\(URL(fileURLWithPath: $0).lastPathComponent)" }
        try run("/bin/tar", ["-cf", directory.file("whole.tar"), "-C", directory.path] + names)
        let sizes: [Int] = try members.map { try #require(FileSystem.size($0)) }
        let starts: [Int] = sizes.indices.map { index in sizes[..<index].reduce(0) { total, size in total + 512 + (size + 511) / 512 * 512 } }
        let tar = try Data(contentsOf: URL(fileURLWithPath: directory.file("whole.tar")))
        let gzipped = try Data(contentsOf: URL(fileURLWithPath: archive))
        let observations = try #require(members.firstIndex { $0.hasSuffix("observations.csv") })
        for (cut, bytes) in [
            ("photos", tar.prefix(starts.last! + 512 + sizes.last! / 2)), ("header", tar.prefix(starts[1] + 100)),
            ("observations", tar.prefix(starts[observations] + 512 + sizes[observations] / 2)),
            ("download", gzipped.prefix(gzipped.count / 2)), ("trailer", gzipped.prefix(gzipped.count - 8)),
        ] {
            let folderOfCut = directory.file("cut-\(cut)")
            try FileManager.default.createDirectory(atPath: folderOfCut, withIntermediateDirectories: true)
            let path = "\(folderOfCut)/\(folder).tar.gz"
            if cut == "download" || cut == "trailer" {
                try bytes.write(to: URL(fileURLWithPath: path))
            } else {
                try bytes.write(to: URL(fileURLWithPath: "\(folderOfCut)/cut.tar"))
                try run("/bin/sh", ["-c", "gzip -c '\(folderOfCut)/cut.tar' > '\(path)'"])
            }
            var ingest = INatIngest.Options(inputs: [path], output: directory.file("cut.jsonl"), rejects: directory.file("cut-rejects.jsonl"))
            ingest.selection = selection
            ingest.maxRejectRate = 1
            let error = try #require(throws: FieldpackError.self, "\(cut)") { try INatIngest(options: ingest).run() }
            #expect(error.path == path && error.message.hasSuffix("download it again"), "\(cut): \(error)")
            if cut == "header" || cut == "observations" {
                #expect(error.message.contains("photos") && error.message.contains("table was reached"), "\(cut): \(error)")
            }
            if cut == "photos" || cut == "trailer" {
                #expect(error.message.hasSuffix("an open-data export cut short is refused whole; download it again"), "\(cut): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.file("cut.jsonl")), "\(cut)")
        }
    }

    /// Two exports of different dates repeat every uuid and photo id: past what
    /// `repeat_filter_bytes` holds, every key of those partitions counts as repeated, so no row
    /// is left out, and ingest says so rather than silently writing more.
    @Test func repeatedKeysPastTheirMemoryLeaveNoRowOutAndSaySo() throws {
        let directory = try TemporaryDirectory()
        let u = Self.uuids
        var inputs: [String] = []
        for export in ["inaturalist-open-data-20241127", "inaturalist-open-data-20250301"] {
            inputs += try Self.writeTables(
                export, rows: [(u[0], Self.inside), (u[1], Self.outside), (u[2], Self.outside)],
                links: [(601, u[0]), (602, u[1]), (603, u[2])], in: directory)
        }
        var box = Selection()
        box.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        for (bytes, expected) in [(64 << 20, 0), (16, 2)] {
            var notices: [String] = []
            let planned = try #require(try ExportLinkPruning.plan(
                inputs: inputs, selection: box, openDataDate: nil, filterBytes: bytes, scratch: directory.path, workers: 2,
                notice: { notices.append($0) }))
            // Every key repeats, so no row is left out, whatever the memory.
            let uuids = u[0..<3].map { text in Array(text.utf8).withUnsafeBytes { ObservationUUID($0)! } }
            #expect(!uuids.contains { planned.leavesOut(observation: $0) })
            #expect(![601, 602, 603].contains { planned.leavesOut(photo: $0) })
            #expect(notices.count == expected, "\(notices)")
            #expect(notices.allSatisfy { $0.contains("repeat_filter_bytes") })
        }
    }

    /// The filter of kept observations never misses one it holds, at its date, and rarely
    /// answers yes for another (a link kept that could have been left out: still exact).
    @Test func theKeptFilterHasNoFalseNegativesAndFewFalsePositives() {
        var random = SortInPlaceTests.SplitMix64(state: 11)
        var kept = ExportLinkPruning.Kept()
        let date: Int64 = 1_732_665_600_000
        let inserted = (0..<200_000).map { _ in ObservationUUID(high: random.next(), low: random.next()) }
        for uuid in inserted { kept.insert(uuid, date: date) }
        #expect(inserted.allSatisfy { kept.mayContain($0, date: date) })
        let others = (0..<200_000).map { _ in ObservationUUID(high: random.next(), low: random.next()) }
        #expect(others.filter { kept.mayContain($0, date: date) }.count < 20)
        // The same observation at another export's date is another key.
        #expect(inserted.filter { kept.mayContain($0, date: date + 86_400_000) }.count < 20)
        #expect(inserted.filter { kept.mayContain($0, date: nil) }.count < 20)
    }

    /// Folded to the observations kept (every photos row asks it: at 4 MiB each lookup was a
    /// cache miss), the filter still never misses one it holds, at its date, and answers yes
    /// for at most about one other in 5,000; it takes 64 to 128 bits a kept observation (16,384
    /// of them fold to 64 bits each, the densest).
    @Test func aFoldedKeptFilterNeverMissesAnObservationAndShrinksToThem() {
        var random = SortInPlaceTests.SplitMix64(state: 12)
        let date: Int64 = 1_732_665_600_000
        for count in [1, 300, 16_384, 20_000] {
            var kept = ExportLinkPruning.Kept()
            let inserted = (0..<count).map { _ in ObservationUUID(high: random.next(), low: random.next()) }
            for uuid in inserted { kept.insert(uuid, date: date) }
            kept.fold(toHold: count)
            #expect(kept.byteCount >= max(64, count * 8) && kept.byteCount < max(128, count * 16), "\(count): \(kept.byteCount)")
            #expect(inserted.allSatisfy { kept.mayContain($0, date: date) })
            let others = (0..<200_000).map { _ in ObservationUUID(high: random.next(), low: random.next()) }
            // About 1 in 5,000 at the densest: 40 expected of 200,000.
            #expect(others.filter { kept.mayContain($0, date: date) }.count < 80, "\(count)")
        }
        // Past 4 MiB of 64 bits a row, it stays as it was.
        var large = ExportLinkPruning.Kept()
        large.fold(toHold: 1 << 20)
        #expect(large.byteCount == 4 << 20)
    }

    /// The plan folds the kept filter once every observations row is judged: a few kept rows
    /// take a cache line, and their photos' links are kept, the others' not.
    @Test func thePlanFoldsTheKeptFilterToTheRowsKept() throws {
        let directory = try TemporaryDirectory()
        let (inputs, box) = try Self.twoKeptOfThree(in: directory)
        let planned = try #require(try ExportLinkPruning.plan(inputs: inputs, selection: box, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.keptRows == 2)
        #expect(planned.kept.byteCount == 64)
        let date = Timestamp.day("2024-11-27")
        let (kept, removed) = (Array(Self.uuids[0].utf8).withUnsafeBytes { ObservationUUID($0)! }, Array(Self.uuids[1].utf8).withUnsafeBytes { ObservationUUID($0)! })
        #expect(planned.keepsLink(to: kept, date: date))
        #expect(!planned.keepsLink(to: removed, date: date))
    }

    /// A removed row as ingest marks it reads back, without a parse, with the key, date and rule
    /// it was written with, and the content hash of the same row unmarked (ties between copies
    /// of one date break as if it were not marked).
    @Test func aMarkedRemovedRowReadsBackAsItsUnmarkedSelf() throws {
        let uuidText = Array(Self.uuids[4].utf8)
        try uuidText.withUnsafeBytes { bytes in
            let text = JSONText(start: bytes.baseAddress!, count: bytes.count)
            let uuid = try #require(ObservationUUID(text))
            for (seen, rule) in [(Int64(1_732_665_600_000), "places"), (nil, "observed"), (Int64(0), "quality_grades")] as [(Int64?, String)] {
                var record = ObservationRecord(id: uuid.exportID)
                record.uuid = text
                record.latitude = -33.9
                record.longitude = 151.2
                record.seen = seen
                var plain = JSONWriter()
                record.encode(into: &plain, source: "2:17")
                record.part = try #require(ObservationRecord.Part(removedBy: rule))
                var marked = JSONWriter()
                record.encode(into: &marked, source: "2:17")
                let line = Array(marked.bytes.dropLast())  // without the newline
                let read = try #require(line.withUnsafeBytes { RemovedObservationLine($0) })
                #expect(read.rule == rule)
                #expect(read.seen == seen)
                let unmarked = Array(plain.bytes.dropLast())
                #expect(read.content == unmarked.withUnsafeBytes { RecordSource.contentHash($0) })
                #expect(read.content != line.withUnsafeBytes { RecordSource.contentHash($0) })
                let parsed = try #require(try QuickRecordKeyTests.parsedKey(line))
                #expect(read.key == parsed.key)
            }
        }
        // Not a removed mark: a link, an unmarked row, a mark of no rule.
        for line in [#"["obs",-5,"\#(Self.uuids[0])",null,[[1,0]],"links",5,"2:3"]"#,
                     #"["obs",-5,"\#(Self.uuids[0])",null,[],null,5,"2:3"]"#,
                     #"["obs",-5,"\#(Self.uuids[0])",null,[],"removed:nearby",5,"2:3"]"#] {
            #expect(Array(line.utf8).withUnsafeBytes { RemovedObservationLine($0) } == nil, "\(line)")
        }
    }

    /// What ingest writes depends on the selection's places when it prunes by them: its depfile
    /// names the GeoJSON files they come from, so make reruns ingest, not only dedupe, when one
    /// changes (dedupe would refuse records pruned under the old rules).
    @Test func ingestsDepfileNamesTheSelectionsPlaceFiles() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/select-sample.json")
        let selection = try #require(pipeline.selection)
        #expect(!selection.files.isEmpty)
        var ingest = INatIngest.Options(
            inputs: try pipeline.resolveINatInputs().files, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        ingest.selection = selection
        ingest.depfile = directory.file("records.d")
        try INatIngest(options: ingest).run()
        let depfile = try text(directory.file("records.d"))
        for file in selection.files { #expect(depfile.contains(file), "\(file)") }
    }
}
