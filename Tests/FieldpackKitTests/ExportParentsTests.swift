@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// When every input is an export table, ingest writes only the taxa and users a kept row may need
/// (`ExportParents`) and counts the others once: the bundle and its report are the same bytes as
/// when ingest writes them all, sharded or not.
@Suite struct ExportParentsTests {
    typealias Build = DedupeSelectionTests
    typealias Pruning = ExportLinkPruningTests

    /// One export of 2024-11-27 and a photos table of a later one (2025-03-01). Kept: o1 (user 11,
    /// taxon 48662). Removed by the box: o2 (user 12) and o3 (user 13). Photos: 701 of o1 by user
    /// 14 (a photo's observer is not always its observation's); 702 of o1 by user 16, and again
    /// in the later export, of o3 by user 15: that newer row wins, so the photo o1 ships is
    /// credited to user 15, whose row links no kept observation; 703 of o2 by user 17, with
    /// measured sizes; 704 of o3 by user 18, left out. Observers 11–20; taxa: 48662 with its
    /// ancestors, and taxa no kept row names.
    static func writeExport(in directory: TemporaryDirectory) throws -> (inputs: [String], measured: String) {
        let u = Pruning.uuids
        let (inside, outside) = (Pruning.inside, Pruning.outside)
        let first = "inaturalist-open-data-20241127"
        var observations = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        for (uuid, user, point, taxon) in [(u[0], 11, inside, 48662), (u[1], 12, outside, 900), (u[2], 13, outside, 901)] {
            observations += "\(uuid)\t\(user)\t\(point.latitude)\t\(point.longitude)\t\t\(taxon)\tresearch\t2024-04-30\n"
        }
        func photos(_ rows: [(photo: Int, uuid: String, user: Int)]) -> String {
            var text = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
            for (position, row) in rows.enumerated() {
                text += "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e\(String(format: "%02d", position))\t\(row.photo)\t\(row.uuid)\t\(row.user)\tjpg\tCC-BY\t100\t100\t0\n"
            }
            return text
        }
        var observers = "observer_id\tlogin\tname\n"
        for user in 11...20 { observers += "\(user)\tlogin\(user)\tName \(user)\n" }
        var taxa = "taxon_id\tancestry\trank_level\trank\tname\tactive\n"
        taxa += "48662\t48460/1/47120/48661\t10\tspecies\tDanaus plexippus\ttrue\n"
        taxa += "48460\t\t100\tstateofmatter\tLife\ttrue\n"
        taxa += "1\t48460\t70\tkingdom\tAnimalia\ttrue\n"
        taxa += "47120\t48460/1\t60\tphylum\tArthropoda\ttrue\n"
        taxa += "48661\t48460/1/47120\t20\tgenus\tDanaus\ttrue\n"
        taxa += "900\t48460/1/47120\t10\tspecies\tPieris rapae\ttrue\n"
        taxa += "901\t48460/1/5000\t10\tspecies\tTurdus merula\ttrue\n"
        taxa += "5000\t48460/1\t60\tphylum\tChordata\ttrue\n"
        let inputs = [
            try directory.write("\(first)/observations.csv", observations),
            try directory.write("\(first)/photos.csv", photos([(701, u[0], 14), (702, u[0], 16), (703, u[1], 17), (704, u[2], 18)])),
            try directory.write("\(first)/observers.csv", observers),
            try directory.write("\(first)/taxa.csv", taxa),
            try directory.write("inaturalist-open-data-20250301/photos.csv", photos([(702, u[2], 15)])),
        ]
        return (inputs, try directory.write("measured-sizes.csv", "photo_id,tier,bytes\n703,small,18000\n"))
    }

    /// The box alone, and with a taxon rule that ingest decides from the taxa tables.
    static let selections: [Selection] = {
        var box = Selection()
        box.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        var taxa = box
        taxa.taxa = TaxonRule(include: [47120], exclude: [])
        return [box, taxa]
    }()

    @Test(arguments: selections)
    func onlyTheTaxaAndUsersAKeptRowMayNeedAreWrittenAndTheOthersCountedOnce(selection: Selection) throws {
        let directory = try TemporaryDirectory()
        let (inputs, measured) = try Self.writeExport(in: directory)
        var policy = ShippingPolicy()
        policy.measuredSizes = measured
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let pruned = try Build.build(inputs: inputs, selection: selection, policy: policy, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, policy: policy, dedupeSelects: true, in: writing)
        #expect(pruned.bundle == whole.bundle)
        #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
        #expect(pruned.summary.findings == whole.summary.findings)

        let records = try recordLines(pruning.file("records.jsonl"))
        let ids = { (kind: String) in Set(records.filter { $0["k"] as? String == kind }.compactMap { $0["id"] as? Int }) }
        // 15 credits the photo that ships; 17 the measured photo; 12, 13, 18, 19 and 20 nothing.
        #expect(ids("user") == [11, 14, 15, 16, 17])
        #expect(ids("taxon") == [48662, 48460, 1, 47120, 48661])
        #expect(pruned.leftOutRows == 1 + 2 + 8)  // photo 704, observations o2 and o3, 3 taxa and 5 observers
        let counted = records.filter { $0["k"] as? String == "select" }
        #expect(counted.reduce(0) { $0 + ($1["users_left_out"] as! Int) } == 5)
        #expect(counted.reduce(0) { $0 + ($1["taxa_left_out"] as! Int) } == 3)
        // The bundle counts them where it counted them when they were loaded.
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pruning.file("costs-report.json")))) as? [String: Any])
        let selected = try #require(report["selection"] as? [String: Any])
        #expect((selected["taxa"] as? [String: Int])?["considered"] == 8)
        #expect(selected["users_removed"] as? Int == 9)

        // As published, each export one `.tar.gz`: the same bundle, and the same taxa and users
        // written (15 from the repeated photo's row in the second archive, its observer beside
        // the photo's key, `RepeatedKeys.Collector` with values).
        let archives = try ["inaturalist-open-data-20241127", "inaturalist-open-data-20250301"].map { folder in
            let archive = directory.file("archives/\(folder).tar.gz")
            try FileManager.default.createDirectory(atPath: directory.file("archives"), withIntermediateDirectories: true)
            try run("/bin/tar", ["-czf", archive, "-C", directory.path, folder])
            return archive
        }
        let fromArchives = try TemporaryDirectory()
        let archived = try Build.build(
            inputs: archives, selection: selection, policy: policy, dedupeSelects: true, in: fromArchives, ingestSelects: true)
        #expect(archived.bundle == pruned.bundle)
        #expect(try text(fromArchives.file("costs-report.json")) == (try text(pruning.file("costs-report.json"))))
        #expect(archived.leftOutRows == pruned.leftOutRows)
        let archivedRecords = try recordLines(fromArchives.file("records.jsonl"))
        #expect(Set(archivedRecords.filter { $0["k"] as? String == "user" }.compactMap { $0["id"] as? Int }) == [11, 14, 15, 16, 17])
        #expect(Set(archivedRecords.filter { $0["k"] as? String == "taxon" }.compactMap { $0["id"] as? Int }) == ids("taxon"))

        // Spilled, dedupe adds the counts once.
        try Pruning.expectASpilledDedupeGivesTheSameRecords(
            pruning.file("records.jsonl"), deduped: pruned.deduped, selection: selection, measured: [703], in: pruning)

        // Sharded, every shard plans alike and one range counts: the same bundle (the tables in
        // several ranges).
        for count in [2, 3] {
            let sharded = try Pruning.shardedBuild(
                inputs: inputs, selection: selection, policy: policy, measured: [703], shards: count, tableRangeBytes: 120)
            #expect(sharded.bundle == pruned.bundle, "\(count) shards")
            #expect(sharded.costsReport == (try text(pruning.file("costs-report.json"))), "\(count) shards")
        }
    }

    /// The ancestors ingest writes reach the root through the ancestors' own rows, as the bundle
    /// keeps them: with the row of the kept taxon's genus naming another lineage (a taxon moved
    /// between two dates), the bundle is the same pruned as whole, the moved-to taxon in both.
    @Test func theAncestorsOfAncestorsAreWrittenAsTheBundleKeepsThem() throws {
        let directory = try TemporaryDirectory()
        let (inputs, _) = try Self.writeExport(in: directory)
        let taxaPath = try #require(inputs.first { $0.hasSuffix("taxa.csv") })
        let taxa = try text(taxaPath).replacingOccurrences(of: "48661\t48460/1/47120\t20", with: "48661\t48460/1/47120/47999\t20")
            + "47999\t48460/1\t57\tsubphylum\tMoved\ttrue\n"
        try taxa.write(toFile: taxaPath, atomically: true, encoding: .utf8)
        let selection = Self.selections[0]
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let pruned = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: writing)
        #expect(pruned.bundle == whole.bundle)
        let written = try recordLines(pruning.file("records.jsonl")).filter { $0["k"] as? String == "taxon" }.compactMap { $0["id"] as? Int }
        #expect(Set(written) == [48662, 48460, 1, 47120, 48661, 47999])
    }

    /// Taxa and observers tables alone, under a taxon rule ingest decides: nothing is kept, and
    /// the left-out taxa and users are counted under the rules dedupe reads from the inputs.
    @Test func taxaAndObserversTablesAloneAreCountedUnderTheirRules() throws {
        let directory = try TemporaryDirectory()
        let (tables, _) = try Self.writeExport(in: directory)
        let inputs = tables.filter { $0.hasSuffix("observers.csv") || $0.hasSuffix("taxa.csv") }
        let selection = Self.selections[1]
        let pruned = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: directory, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: try TemporaryDirectory())
        #expect(pruned.bundle == whole.bundle)
        let records = try recordLines(directory.file("records.jsonl"))
        #expect(records.filter { $0["k"] as? String == "user" || $0["k"] as? String == "taxon" }.isEmpty)
        #expect(records.filter { $0["k"] as? String == "select" }.map { [$0["taxa_left_out"] as? Int, $0["users_left_out"] as? Int] } == [[8, 10]])
    }

    /// The observer of a repeated photo's row that links no kept row, when another row of that
    /// photo links one (15 here), is written whether the photo ids' partitions keep their
    /// repeated keys or, past `repeat_filter_bytes`, take every key for repeated: the observers
    /// beside the keys are asked of the photos kept rows link either way.
    @Test(arguments: [64 << 20, 16])
    func theObserversOfARepeatedPhotosOtherRowsAreWrittenWhateverItsPartitionKeeps(filterBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let (export, _) = try Self.writeExport(in: directory)
        // A later export repeats photo 701 too, so that two photo ids repeat: one more than 16
        // bytes keep (the partition then takes every key for repeated).
        let later = try directory.write(
            "inaturalist-open-data-20250401/photos.csv",
            "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
                + "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e99\t701\t\(Pruning.uuids[1])\t14\tjpg\tCC-BY\t100\t100\t0\n")
        var notices: [String] = []
        // 703 has measured sizes (`writeExport`'s file): its observer 17 is written too.
        let planned = try #require(try ExportLinkPruning.plan(
            inputs: export + [later], selection: Self.selections[0], openDataDate: nil, measuredPhotos: [703],
            filterBytes: filterBytes, scratch: directory.path, workers: 2, notice: { notices.append($0) }))
        #expect(notices.isEmpty == (filterBytes > 16), "\(notices)")
        let parents = try #require(planned.parents)
        #expect((11...20).filter { parents.writes(user: Int64($0)) } == [11, 14, 15, 16, 17])
    }

    /// With an input that is not an export table (API pages may carry the same users and taxa),
    /// every taxon and user is written.
    @Test func withAnotherInputEveryTaxonAndUserIsWritten() throws {
        let directory = try TemporaryDirectory()
        let (tables, _) = try Self.writeExport(in: directory)
        let api = try directory.write(
            "api.jsonl", Pruning.apiObservation(id: 9, uuid: Pruning.uuids[4], point: Pruning.inside, updatedAt: "2024-05-01T00:00:00Z", photo: 801) + "\n")
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        _ = try Build.build(inputs: tables + [api], selection: selection, dedupeSelects: true, in: directory, ingestSelects: true)
        let records = try recordLines(directory.file("records.jsonl"))
        #expect(Set(records.filter { $0["k"] as? String == "user" }.compactMap { $0["id"] as? Int }) == Set(11...20).union([7]))
        #expect(records.filter { $0["k"] as? String == "taxon" && ($0["from"] as? String) == "open-data" }.count == 8)
        #expect(records.filter { $0["k"] as? String == "select" }.allSatisfy { ($0["users_left_out"] as? Int ?? 0) == 0 && ($0["taxa_left_out"] as? Int ?? 0) == 0 })
    }
}

/// The rows a listed archive's photos set aside (`PendingPhotos`) read back whole on several
/// workers at once: every row once, with its observation key (or none) and observer (or none),
/// over several chunks and a partial last one.
@Suite struct PendingRowsTests {
    /// The observations rows an archive's listing sets aside (`PendingObservations`) read back
    /// in order, over several batches: each with its key, its taxon and observer (or none), and
    /// whether the rules but the taxon rule keep it.
    @Test func observationsRowsSetAsideReadBackInOrderWithTheirFlags() throws {
        let directory = try TemporaryDirectory()
        let pending = try PendingObservations(in: directory.path, date: nil)
        let rows = (1 << 16) + 7
        func row(_ index: Int) -> (key: UInt64, taxon: Int64?, user: Int64?, othersKeep: Bool) {
            (UInt64(index) &* 0x9E37_79B9_7F4A_7C15, index % 3 == 0 ? nil : Int64(index), index % 4 == 0 ? nil : 999_999_999_999_999_999 - Int64(index),
             index % 2 == 0)
        }
        var batch = PendingObservations.Batch(pending)
        for index in 0..<rows {
            let r = row(index)
            try batch.add(key: r.key, taxon: r.taxon, user: r.user, othersKeep: r.othersKeep)
        }
        try batch.flush()
        var read = 0, wrong = 0
        try pending.forEach { key, taxon, user, othersKeep in
            let r = row(read)
            if (key, taxon, user, othersKeep) != (r.key, r.taxon, r.user, r.othersKeep) { wrong += 1 }
            read += 1
        }
        #expect(read == rows)
        #expect(wrong == 0)
    }

    @Test func photosRowsSetAsideReadBackOnceEachOnSeveralWorkers() throws {
        let directory = try TemporaryDirectory()
        let pending = try PendingPhotos(in: directory.path, date: 1_732_665_600_000)
        let rows = (1 << 16) + 12_345
        // A key of 0 is a key, not its absence; every seventh row has no observation, every fifth
        // no observer.
        @Sendable func row(_ index: Int) -> (key: UInt64?, observer: Int64?) {
            (index % 7 == 0 ? nil : (index % 11 == 0 ? 0 : UInt64(index) &* 0x9E37_79B9_7F4A_7C15), index % 5 == 0 ? nil : Int64(index % 97 + 1))
        }
        var batch = PendingPhotos.Batch(pending)
        for index in 0..<rows {
            try batch.add(photo: Int64(index + 1), observation: row(index).key, observer: row(index).observer)
        }
        try batch.flush()
        let seen = Mutex([Int](repeating: 0, count: rows))
        let wrong = Mutex(0)
        try pending.forEach(workers: 3) { _, photo, observation, observer in
            let index = Int(photo) - 1
            if observation != row(index).key || observer != row(index).observer { wrong.withLock { $0 += 1 } }
            seen.withLock { if index >= 0 && index < $0.count { $0[index] += 1 } }
        }
        #expect(wrong.withLock { $0 } == 0)
        let counts = seen.withLock { $0 }
        let notOnce = counts.indices.filter { counts[$0] != 1 }
        #expect(notOnce.count == 0, "rows not read back once, the first \(notOnce.first ?? -1)")
    }
}
