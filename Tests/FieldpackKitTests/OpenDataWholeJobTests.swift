import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The open-data export's whole-job rules (an export-only observation's id moved off a colliding
/// uuid hash; an observer or taxon that no record has dropped with a finding) are the bundle
/// stage's: they hold alike whether dedupe ran in one pass, as N shards or in spill partitions.
@Suite struct OpenDataWholeJobTests {
    /// Export observations: (uuid, observer, taxon). Observer 7 and the taxa Life, Animalia and
    /// 48662 exist; 97, 98, 99, 776 and 777 do not.
    static let observations: [(uuid: String, observer: Int, taxon: Int)] = {
        var rows: [(String, Int, Int)] = [
            ("1b000000-0000-4000-8000-000000000001", 7, 48662),
            ("2b000000-0000-4000-8000-000000000002", 99, 48662),
            ("3b000000-0000-4000-8000-000000000003", 7, 777),
            ("4b000000-0000-4000-8000-000000000004", 7, 48662),
            ("5b000000-0000-4000-8000-000000000005", 98, 776),
            // Has an older API copy: the export copy wins and takes the API's id.
            ("6b000000-0000-4000-8000-000000000006", 97, 48662),
        ]
        for index in 7...40 {
            rows.append((String(format: "%02x", index * 6) + "000000-0000-4000-8000-" + String(format: "%012d", index), 7, 48662))
        }
        return rows
    }()

    /// The uuid hash the tests inject: the first, second and fourth uuids share -7 and the third
    /// hashes to -8 (so the second moves past it, to -9, and the fourth to -10); the rest keep
    /// their real hash.
    static let hash: @Sendable (ObservationUUID) -> Int64 = { uuid in
        switch uuid.high >> 56 {
        case 0x1b, 0x2b, 0x4b: -7
        case 0x3b: -8
        default: uuid.exportID
        }
    }

    /// The export (dated by its folder, rows out of uuid order), one photo per observation, and
    /// the older API copy of the sixth observation.
    static func writeInputs(in directory: TemporaryDirectory) throws -> [String] {
        let sixth = observations[5].uuid.uppercased()
        return try OpenDataIdentityTests.writeExport(observations, reversed: true, in: directory) + [
            try directory.write("api/observation.json", """
                {"id":9100006,"uuid":"\(sixth)","quality_grade":"research","observed_on":"2024-04-30",\
                "created_at":"2024-04-30T09:00:00+00:00","updated_at":"2024-05-01T10:00:00+00:00","location":"50.5,4.25",\
                "taxon":{"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10,"ancestry":"48460/1"},\
                "user":{"id":7,"login":"kim","name":"Kim Ito"},"observation_photos":[]}
                """),
        ]
    }

    /// What a build gives: the bundle's bytes and the bundle stage's findings.
    struct Built {
        var bundle: Data
        var findings: [Finding]
        var missing: Int
        var database: String
    }

    static func bundle(_ parts: [String], in directory: TemporaryDirectory) throws -> Built {
        var options = BundleBuilder.Options(
            input: parts[0], output: directory.file("content.sqlite"), pipelineName: "whole-job", policy: ShippingPolicy())
        options.inputs = parts
        options.exportID = hash
        let summary = try BundleBuilder(options: options).run()
        return Built(
            bundle: try ShardedBuildTests.bytes(directory.file("content.sqlite")), findings: summary.findings,
            missing: summary.missingParents.count, database: directory.file("content.sqlite"))
    }

    static func ingest(_ inputs: [String], in directory: TemporaryDirectory) throws {
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        try INatIngest(options: ingest).run()
    }

    /// Ingest, a one-pass dedupe (or one within a `memoryBudget` of occurrences), the bundle.
    static func unsharded(_ inputs: [String], memoryBudget: Int? = nil, in directory: TemporaryDirectory) throws -> Built {
        try ingest(inputs, in: directory)
        var options = Dedupe.Options(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))
        if let memoryBudget { options.memoryBudget = memoryBudget }
        let deduped = try Dedupe(options: options).run()
        if memoryBudget != nil { #expect(deduped.spillPartitions > 1, "the dedupe was to spill") }
        return try bundle([directory.file("deduped.jsonl")], in: directory)
    }

    /// N ingest shards (byte ranges of 400 bytes), N dedupe shards, the bundle over the N parts.
    static func sharded(_ inputs: [String], count: Int, in directory: TemporaryDirectory) throws -> Built {
        try ingestShards(count: count, base: directory.file("inat")) { _ in
            var ingest = INatIngest.Options(inputs: inputs, output: "", rejects: "")
            ingest.maxRejectRate = 1
            ingest.rangeBytes = 400
            return ingest
        }
        let parts = try dedupeShards(count: count, inat: directory.file("inat"), base: directory.file("dedupe"))
        return try bundle(parts, in: directory)
    }

    /// The one-pass build holds both rules (so a split build equal to it holds them too).
    static func expectBothRules(_ built: Built, observations path: String) throws {
        let database = try Database(path: built.database, mode: .readOnly)
        var ids: [String: String] = [:]
        for row in try database.rows("SELECT uuid, id FROM observations ORDER BY uuid") { ids[row[0]!] = row[1] }
        #expect(observations.prefix(6).map { ids[$0.uuid] } == ["-7", "-9", "-8", "-10", String(hash(uuid(4))), "9100006"])
        #expect(built.missing == 5)
        #expect(built.findings.map(\.path) == Array(repeating: path, count: 5))
        // Rows are written in reverse: observation n (from 0) is on line 41 − n.
        #expect(built.findings.map(\.line) == [40, 39, 37, 37, 36])
        #expect(built.findings.map(\.field) == ["observer_id", "taxon_id", "observer_id", "taxon_id", "observer_id"])
        #expect(built.findings.allSatisfy { $0.outcome == .salvaged })
        #expect(try database.rows("SELECT user_id, taxon_id FROM observations WHERE uuid = ?", [.text(observations[4].uuid)]) == [[nil, nil]])
    }

    static func uuid(_ index: Int) -> ObservationUUID {
        Array(observations[index].uuid.utf8).withUnsafeBytes { ObservationUUID($0)! }
    }

    @Test(arguments: [4, 16])
    func aShardedBuildOfAnExportWithMissingParentsAndCollidingHashesIsTheUnshardedOne(shards: Int) throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try Self.writeInputs(in: inputsFolder)
        let (wholeFolder, splitFolder) = (try TemporaryDirectory(), try TemporaryDirectory())
        let whole = try Self.unsharded(inputs, in: wholeFolder)
        let split = try Self.sharded(inputs, count: shards, in: splitFolder)
        #expect(split.bundle == whole.bundle, "the bundle differs with \(shards) shards")
        #expect(split.findings == whole.findings)
        #expect(split.missing == whole.missing)
        try Self.expectBothRules(whole, observations: inputs[0])
        withExtendedLifetime((wholeFolder, splitFolder)) {}
    }

    @Test func aSpilledDedupeOfAnExportWithMissingParentsAndCollidingHashesGivesTheOnePassBundle() throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try Self.writeInputs(in: inputsFolder)
        let onePassFolder = try TemporaryDirectory()
        let onePass = try Self.unsharded(inputs, in: onePassFolder)
        let spilledFolder = try TemporaryDirectory()
        let spilled = try Self.unsharded(inputs, memoryBudget: 200, in: spilledFolder)
        #expect(spilled.bundle == onePass.bundle)
        #expect(spilled.findings == onePass.findings)
        #expect(spilled.missing == onePass.missing)
        try Self.expectBothRules(onePass, observations: inputs[0])
        withExtendedLifetime((onePassFolder, spilledFolder)) {}
    }
}
