import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// How an observation known only from the open-data export is identified in the bundle, and what
/// happens to its references: two uuids whose hashes collide keep two rows with their own photos
/// (`ExportIDs`), and an observer or taxon that no table has is dropped from the observation,
/// with a finding naming the export's file, line and id, instead of failing the bundle. Both are
/// the bundle stage's rules (they need every record); `OpenDataWholeJobTests` splits the dedupe.
@Suite struct OpenDataIdentityTests {
    /// In the order of their text (the collision rule's uuid order).
    static let first = "1b000000-0000-4000-8000-000000000001"
    static let second = "2b000000-0000-4000-8000-000000000002"
    static let third = "3b000000-0000-4000-8000-000000000003"

    /// An export (dated by its folder) of `observations` rows (uuid, observer, taxon), in that
    /// order or `reversed`, research grade but for the `casual` uuids, one photo per observation
    /// (photo 600 + its index), observer 7 and the taxa Life, Animalia, 48662.
    static func writeExport(
        _ observations: [(uuid: String, observer: Int, taxon: Int)], reversed: Bool = false, casual: Set<String> = [],
        in directory: TemporaryDirectory
    ) throws -> [String] {
        let folder = "inaturalist-open-data-20241127"
        var rows = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        var photos = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        let indexed = Array(observations.enumerated())
        for (index, observation) in reversed ? indexed.reversed() : indexed {
            let grade = casual.contains(observation.uuid) ? "casual" : "research"
            rows += "\(observation.uuid)\t\(observation.observer)\t50.5\t4.25\t\t\(observation.taxon)\t\(grade)\t2024-04-30\n"
            photos += "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e\(String(format: "%02d", index))\t\(600 + index)\t\(observation.uuid)\t"
                + "\(observation.observer)\tjpg\tCC-BY\t100\t100\t0\n"
        }
        return [
            try directory.write("\(folder)/observations.csv", rows),
            try directory.write("\(folder)/photos.csv", photos),
            try directory.write("\(folder)/observers.csv", "observer_id\tlogin\tname\n7\tkim\tKim Ito\n"),
            try directory.write("\(folder)/taxa.csv", """
                taxon_id\tancestry\trank_level\trank\tname\tactive
                48460\t\t100\tstateofmatter\tLife\ttrue
                1\t48460\t70\tkingdom\tAnimalia\ttrue
                48662\t48460/1\t10\tspecies\tDanaus plexippus\ttrue

                """),
        ]
    }

    /// Ingest, dedupe and the bundle (with `hash` as the uuid hash, if given), in process.
    @discardableResult
    private func build(
        _ inputs: [String], in directory: TemporaryDirectory, hash: (@Sendable (ObservationUUID) -> Int64)? = nil,
        selection: Selection? = nil
    ) throws -> (bundle: BundleBuilder.Summary, database: Database) {
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        try INatIngest(options: ingest).run()
        try Dedupe(options: .init(
            input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))).run()
        var bundle = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        if let hash { bundle.exportID = hash }
        bundle.selection = selection
        let summary = try BundleBuilder(options: bundle).run()
        return (summary, try Database(path: directory.file("content.sqlite"), mode: .readOnly))
    }

    /// Each observation's id and its photo, by uuid.
    private func idsAndPhotos(_ database: Database) throws -> [[String?]] {
        try database.rows("""
            SELECT o.uuid, o.id, op.photo_id FROM observations AS o LEFT JOIN observation_photos AS op ON op.observation_id = o.id
            ORDER BY o.uuid
            """)
    }

    @Test func twoExportUUIDsWithOneHashStayTwoObservationsWithTheirOwnPhotos() throws {
        let directory = try TemporaryDirectory()
        // Written out of uuid order: the lowest uuid keeps the hash whatever the rows' order.
        let export = try Self.writeExport([(Self.third, 7, 48662), (Self.first, 7, 48662), (Self.second, 7, 48662)], in: directory)
        let (_, database) = try build(export, in: directory, hash: { _ in -7 })
        #expect(try idsAndPhotos(database) == [
            [Self.first, "-7", "601"], [Self.second, "-8", "602"], [Self.third, "-9", "600"]])
    }

    @Test func aMovedIdPassesOverAnIdThatAnotherUUIDHashesTo() throws {
        let directory = try TemporaryDirectory()
        let export = try Self.writeExport([(Self.first, 7, 48662), (Self.second, 7, 48662), (Self.third, 7, 48662)], in: directory)
        // first and second collide on -7; -8 is third's own hash, so second moves on to -9.
        let hashes: [String: Int64] = [Self.first: -7, Self.second: -7, Self.third: -8]
        let (_, database) = try build(export, in: directory, hash: { uuid in hashes[Self.text(uuid)] ?? -1 })
        #expect(try idsAndPhotos(database) == [
            [Self.first, "-7", "600"], [Self.second, "-9", "601"], [Self.third, "-8", "602"]])
    }

    @Test func withoutACollisionAnExportObservationsIdIsItsUUIDsHash() throws {
        let directory = try TemporaryDirectory()
        let export = try Self.writeExport([(Self.first, 7, 48662), (Self.second, 7, 48662)], in: directory)
        let (_, database) = try build(export, in: directory)
        let expected = [Self.first, Self.second].map { text in
            Array(text.utf8).withUnsafeBytes { ObservationUUID($0).map { String($0.exportID) } }
        }
        #expect(try database.rows("SELECT id FROM observations ORDER BY uuid").map { $0[0] } == expected)
    }

    @Test func anObserverOrTaxonThatNoTableHasIsDroppedFromTheObservationWithAFinding() throws {
        let directory = try TemporaryDirectory()
        // Line 2: observer 99 has no row in observers; line 3: taxon 777 has none in taxa.
        let export = try Self.writeExport([(Self.first, 99, 48662), (Self.second, 7, 777)], in: directory)
        let (summary, database) = try build(export, in: directory)
        let findings = summary.missingParents.shown
        #expect(summary.missingParents.count == 2)
        #expect(findings.map(\.path) == [export[0], export[0]])
        #expect(findings.map(\.line) == [2, 3])
        #expect(findings.map(\.field) == ["observer_id", "taxon_id"])
        #expect(findings.allSatisfy { $0.outcome == .salvaged })
        #expect(findings[0].reason.contains("observer_id 99 has no row in observers"), "\(findings[0].reason)")
        #expect(findings[1].reason.contains("taxon_id 777 has no row in taxa"), "\(findings[1].reason)")
        #expect(findings[0].diagnostic.hasPrefix("\(export[0]):2: warning: observation \(Self.first)"))
        // Both observations are in the bundle, without the missing link.
        #expect(try database.rows("SELECT uuid, user_id, taxon_id FROM observations ORDER BY uuid") == [
            [Self.first, nil, "48662"], [Self.second, "7", nil]])
        // The photo of the observation without an observer has nobody to credit: it does not ship.
        #expect(try database.rows("SELECT id FROM photos ORDER BY id").map { $0[0] } == ["601"])
    }

    /// An observation that `min_photos` or a cap removes after the load leaves nothing behind:
    /// its missing observer was a warning about an observation the guide does not ship.
    @Test(arguments: ["cap", "min_photos", "none"])
    func anObservationACapOrMinPhotosRemovesLeavesNoMissingParentFinding(rule: String) throws {
        let directory = try TemporaryDirectory()
        // The first: observer 99, whom no table has (its photo has nobody to credit), casual.
        let export = try Self.writeExport([(Self.first, 99, 48662), (Self.second, 7, 48662)], casual: [Self.first], in: directory)
        var selection = Selection()
        switch rule {
        case "cap": selection.caps.observationsPerTaxon = 1
        case "min_photos": selection.minimumPhotos = 1
        default: selection.qualityGrades = ["casual", "research"]
        }
        let (summary, database) = try build(export, in: directory, selection: selection)
        let kept = try database.rows("SELECT uuid FROM observations ORDER BY uuid").map { $0[0] }
        #expect(kept == (rule == "none" ? [Self.first, Self.second] : [Self.second]))
        #expect(summary.missingParents.count == (rule == "none" ? 1 : 0))
        #expect(summary.missingParents.shown.count == summary.missingParents.count)
        #expect(summary.findings.filter { $0.reason.contains("observer_id 99") }.count == (rule == "none" ? 1 : 0), "\(summary.findings)")
    }

    @Test func anObserverThatAnotherInputHasIsNoFinding() throws {
        let directory = try TemporaryDirectory()
        let export = try Self.writeExport([(Self.first, 99, 48662)], in: directory)
        // The API knows user 99 (from another observation of theirs).
        let api = try directory.write("api/observation.json", observationJSON(id: 9_100_002, user: 99))
        let (summary, database) = try build(export + [api], in: directory)
        #expect(summary.missingParents.count == 0)
        #expect(try database.scalar("SELECT user_id FROM observations WHERE uuid = ?", [.text(Self.first)]) == "99")
    }

    private static func text(_ uuid: ObservationUUID) -> String {
        let hex = String(uuid.high, radix: 16).leftPadded(16) + String(uuid.low, radix: 16).leftPadded(16)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
