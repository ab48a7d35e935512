@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Ingest applies the taxon rule to an export whose taxa tables decide it (`ExportTaxa`): a
/// one-group guide's ingest writes only that group's observations and photo links, dedupe
/// counts what it removed, and the bundle, its report and its findings are the same bytes as
/// when the bundle applies the rule.
@Suite struct ExportTaxaTests {
    typealias Build = DedupeSelectionTests
    typealias Pruning = ExportLinkPruningTests

    /// Birds (3) without ducks (6912), research grade only.
    static let birdsWithoutDucks: Selection = {
        var selection = Selection()
        selection.taxa = TaxonRule(include: [3], exclude: [6912])
        selection.qualityGrades = ["research"]
        return selection
    }()

    static let taxa = """
        taxon_id\tancestry\trank_level\trank\tname\tactive
        48460\t\t100\tstateofmatter\tLife\ttrue
        1\t48460\t70\tkingdom\tAnimalia\ttrue
        2\t48460/1\t60\tphylum\tChordata\ttrue
        3\t48460/1/2\t50\tclass\tAves\ttrue
        6912\t48460/1/2/3\t30\tfamily\tAnatidae\ttrue
        7000\t48460/1/2/3/6912\t10\tspecies\tAnas platyrhynchos\ttrue
        8000\t48460/1/2/3\t10\tspecies\tSylvia atricapilla\ttrue
        47126\t48460\t70\tkingdom\tPlantae\ttrue
        9000\t48460/47126\t10\tspecies\tQuercus robur\ttrue

        """

    /// An export's four tables in `folder`: observations of `rows` (uuid, taxon, grade), photos
    /// of `links` (photo id, uuid), `taxa` and one observer.
    static func writeExport(
        _ folder: String, rows: [(uuid: String, taxon: Int?, grade: String)], links: [(photo: Int, uuid: String)],
        taxa: String = taxa, in directory: TemporaryDirectory
    ) throws -> [String] {
        var observations = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        for row in rows { observations += "\(row.uuid)\t7\t50.5\t4.25\t\t\(row.taxon.map(String.init) ?? "")\t\(row.grade)\t2024-04-30\n" }
        var photos = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        for (position, link) in links.enumerated() {
            photos += "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e\(String(format: "%02d", position))\t\(link.photo)\t\(link.uuid)\t7\tjpg\tCC-BY\t100\t100\t\(position)\n"
        }
        return [
            try directory.write("\(folder)/observations.csv", observations),
            try directory.write("\(folder)/photos.csv", photos),
            try directory.write("\(folder)/taxa.csv", taxa),
            try directory.write("\(folder)/observers.csv", "observer_id\tlogin\tname\n7\tkim\tKim Ito\n"),
        ]
    }

    /// A bird kept; a duck, a plant and an observation of a taxon no row has, removed by the
    /// taxon rule (the duck in two exports, so its rows are written, marked); a bird of another
    /// grade removed by the grades, and a plant of another grade counted under the taxa, the
    /// first rule that removes it. The ids are decided among the kept observations either way,
    /// even when every export-only uuid has one hash (the kept one is not the lowest uuid, so
    /// its id would move if a removed one were counted).
    @Test func aOneGroupGuideOfAnExportIsLeftOutByIngestAndBuildsTheSameBundle() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        var inputs = try Self.writeExport(
            "inaturalist-open-data-20241127",
            rows: [(u[0], 9000, "research"), (u[1], 7000, "research"), (u[2], 8000, "needs_id"), (u[3], 9000, "casual"),
                   (u[4], 8000, "research"), (u[5], 424242, "research")],
            links: [(601, u[4]), (602, u[1]), (603, u[0]), (604, u[4]), (604, u[0]), (605, u[5])],
            in: directory)
        inputs += try Self.writeExport(
            "second/inaturalist-open-data-20250301", rows: [(u[1], 7000, "research")], links: [], in: directory)
        let selection = Self.birdsWithoutDucks
        for exportID in [nil, { @Sendable (_: ObservationUUID) in Int64(-42) }] as [(@Sendable (ObservationUUID) -> Int64)?] {
            let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
            let built = try Build.build(
                inputs: inputs, selection: selection, dedupeSelects: true, in: pruning, exportID: exportID, ingestSelects: true)
            let whole = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: writing, exportID: exportID)
            #expect(built.bundle == whole.bundle)
            #expect(built.summary.findings == whole.summary.findings)
            #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
            #expect(built.prunedLinks == 4)  // 602, 603, 604 to u[0], 605
            #expect(whole.prunedLinks == 0)
        }
        let pruning = try TemporaryDirectory()
        let built = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: pruning, ingestSelects: true)
        let records = try recordLines(pruning.file("records.jsonl"))
        let observations = records.filter { $0["k"] as? String == "obs" && $0["part"] as? String != "links" }
        #expect(observations.compactMap { $0["uuid"] as? String }.sorted() == [u[1], u[1], u[4]])
        #expect(observations.filter { $0["uuid"] as? String == u[1] }.allSatisfy { $0["part"] as? String == "removed:taxa" })
        #expect(records.filter { $0["part"] as? String == "links" }.map { $0["uuid"] as? String } == [u[4], u[4]])
        let counted = records.filter { $0["k"] as? String == "select" }
        let countedRemoved = counted.reduce(into: [String: Int]()) { sum, line in
            for (rule, count) in line["removed"] as! [String: Int] { sum[rule, default: 0] += count }
        }
        #expect(countedRemoved == ["taxa": 3, "quality_grades": 1])
        #expect(counted.allSatisfy { $0["fingerprint"] as? String == selection.dedupeFingerprint(taxaKnown: true) })
        // Dedupe counts every removed observation once, under the rule the bundle would.
        let deduped = try #require(try recordLines(built.deduped, deduped: true).first { $0["k"] as? String == "select" })
        #expect(deduped["removed"] as? [String: Int] == ["taxa": 4, "quality_grades": 1])
        #expect(deduped["fingerprint"] as? String == selection.dedupeFingerprint(taxaKnown: true))
        #expect(try recordLines(built.deduped, deduped: true).filter { $0["k"] as? String == "obs" }.count == 1)

        // Spilled, dedupe writes the same records; on 2 shards, the bundle is the same bytes.
        var spilling = Dedupe.Options(
            input: pruning.file("records.jsonl"), output: pruning.file("spilled.jsonl"), conflicts: pruning.file("spilled.json"))
        spilling.selection = selection
        spilling.memoryBudget = 200
        #expect(try Dedupe(options: spilling).run().spillPartitions > 1)
        #expect(try text(pruning.file("spilled.jsonl")) == (try text(built.deduped)))
        let split = try TemporaryDirectory()
        try ingestShards(count: 2, base: split.file("inat")) { _ in
            var ingest = INatIngest.Options(inputs: inputs, output: "", rejects: "")
            ingest.selection = selection
            return ingest
        }
        let parts = try dedupeShards(count: 2, inat: split.file("inat"), base: split.file("dedupe")) { $0.selection = selection }
        var bundle = BundleBuilder.Options(input: parts[0], output: split.file("content.sqlite"), pipelineName: "select", policy: ShippingPolicy())
        bundle.inputs = parts
        bundle.selection = selection
        bundle.selectionSource = "pipelines/select.json"
        try BundleBuilder(options: bundle).run()
        #expect(try Data(contentsOf: URL(fileURLWithPath: split.file("content.sqlite"))) == built.bundle)
    }

    /// Two exports whose taxonomies put a taxon on both sides of the rule: which row's taxon
    /// the bundle loads depends on dedupe, so ingest leaves the taxon rule to the bundle (and
    /// with no other rule, prunes nothing); so it does when an API page is among the inputs. The
    /// bundle is the same either way.
    @Test func taxaTablesThatDisagreeLeaveTheTaxonRuleToTheBundle() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        var inputs = try Self.writeExport(
            "inaturalist-open-data-20241127", rows: [(u[0], 8000, "research"), (u[1], 7000, "research")],
            links: [(601, u[0]), (602, u[1])], in: directory)
        var taxaOnly = Selection()
        taxaOnly.taxa = Self.birdsWithoutDucks.taxa
        let agreeing = try #require(try ExportLinkPruning.plan(inputs: inputs, selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(agreeing.fingerprint == taxaOnly.dedupeFingerprint(taxaKnown: true))
        #expect(agreeing.keptRows == 1)
        // The duck's species moved out of Anatidae in a later export.
        let moved = Self.taxa.replacingOccurrences(of: "7000\t48460/1/2/3/6912", with: "7000\t48460/1/2/3")
        let later = try Self.writeExport(
            "second/inaturalist-open-data-20250301", rows: [(u[2], 8000, "research")], links: [], taxa: moved, in: directory)
        var notices: [String] = []
        #expect(try ExportLinkPruning.plan(
            inputs: inputs + later, selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2, notice: { notices.append($0) }) == nil)
        #expect(notices.count == 1 && notices[0].contains("taxon 7000") && notices[0].contains("bundle stage"))
        // The same when the later export is its .tar.gz: its taxa are read as its members are listed.
        let archive = directory.file("inaturalist-open-data-20250301.tar.gz")
        try run("/bin/tar", ["-czf", archive, "-C", directory.file("second"), "inaturalist-open-data-20250301"])
        notices = []
        #expect(try ExportLinkPruning.plan(
            inputs: inputs + [archive], selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2,
            notice: { notices.append($0) }) == nil)
        #expect(notices.count == 1 && notices[0].contains("taxon 7000"))
        // Ingest says so; with agreeing taxa it says nothing.
        for (tables, expected) in [(inputs, 0), (inputs + later, 1)] {
            var ingest = INatIngest.Options(inputs: tables, output: directory.file("r.jsonl"), rejects: directory.file("rej.jsonl"))
            ingest.selection = taxaOnly
            #expect(try INatIngest(options: ingest).run().notices.count == expected)
        }
        var withPlaces = Self.birdsWithoutDucks
        withPlaces.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        let placesOnly = try #require(try ExportLinkPruning.plan(inputs: inputs + later, selection: withPlaces, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(placesOnly.fingerprint == withPlaces.dedupeFingerprint(taxaKnown: false))
        inputs += later
        let built = try Build.build(inputs: inputs, selection: withPlaces, dedupeSelects: true, in: try TemporaryDirectory(), ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: withPlaces, dedupeSelects: true, in: try TemporaryDirectory())
        #expect(built.bundle == whole.bundle)
        let page = try directory.write("page.json", page([
            Pruning.apiObservation(id: 21, uuid: u[3], point: Pruning.inside, updatedAt: "2025-06-01T00:00:00+00:00", photo: 701)
        ]))
        #expect(try ExportLinkPruning.plan(inputs: Array(inputs.prefix(4)) + [page], selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2) == nil)
    }

    /// An archive's observations are judged as the archive is listed, whether its taxa come
    /// before or after them: the rows the other rules keep wait for the rule that every taxa row
    /// decides (another member, another export, a loose taxa table), and when the taxa disagree,
    /// the rows the places keep are kept. The bundle is the same bytes each way.
    @Test func anArchivesObservationsAreJudgedAsItIsListedWhereverItsTaxaAre() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        let folder = "inaturalist-open-data-20241127"
        // A bird of another grade (u[4]): removed by the grades, unless the taxa disagree.
        _ = try Self.writeExport(
            folder, rows: [(u[0], 8000, "research"), (u[1], 7000, "research"), (u[2], 9000, "research"), (u[4], 8000, "needs_id")],
            links: [(601, u[0]), (602, u[1]), (603, u[2]), (604, u[4])], in: directory)
        // The duck's species moved out of Anatidae in a later export.
        let moved = Self.taxa.replacingOccurrences(of: "7000\t48460/1/2/3/6912", with: "7000\t48460/1/2/3")
        let laterFolder = "inaturalist-open-data-20250301"
        _ = try Self.writeExport(
            "later/\(laterFolder)", rows: [(u[3], 8000, "research")], links: [], taxa: moved, in: directory)
        func archive(_ name: String, _ folder: String, in parent: String = "", _ tables: [String]) throws -> String {
            let path = directory.file("\(name).tar.gz")
            try run("/bin/tar", ["-czf", path, "-C", directory.file(parent)] + tables.map { "\(folder)/\($0).csv" })
            return path
        }
        let taxaFirst = try archive("taxa-first", folder, ["taxa", "observers", "observations", "photos"])
        let taxaLast = try archive("taxa-last", folder, ["observations", "photos", "taxa", "observers"])
        let later = try archive("later", laterFolder, in: "later", ["taxa", "observers", "observations", "photos"])
        var selection = Self.birdsWithoutDucks
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        // The duck and the oak are removed by the taxon rule, the other grade by the grades,
        // their links pruned; with the later export, whose taxa disagree on the duck, the rules
        // but the places are the bundle's, and the box keeps all. A loose taxa table before or
        // after the archive (the same taxonomy) decides with it.
        let looseTaxa = try directory.write("loose-taxa/\(folder)/taxa.csv", Self.taxa)
        for (inputs, judged, pruned) in [
            ([taxaFirst], 2, 3), ([taxaLast], 2, 3), ([taxaFirst, later], 4, 0), ([taxaFirst, looseTaxa], 2, 3), ([looseTaxa, taxaFirst], 2, 3),
        ] {
            let planned = try #require(try ExportLinkPruning.plan(
                inputs: inputs, selection: selection, openDataDate: nil, scratch: directory.path, workers: 2))
            #expect(planned.judgedWhileListed == judged, "\(inputs)")
            let built = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: try TemporaryDirectory(), ingestSelects: true)
            let whole = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: try TemporaryDirectory())
            #expect(built.bundle == whole.bundle, "\(inputs)")
            #expect(built.prunedLinks == pruned, "\(inputs)")
        }
        // Two exports in one archive, the second's taxa between the two observations members:
        // both members are judged as listed, by the taxa of both; when they disagree, no taxon
        // rule stands and the box keeps all.
        for (name, taxa, judged, pruned) in [("agreeing", Self.taxa, 4, 3), ("disagreeing", moved, 4, 0)] {
            let first = try Self.writeExport(
                "\(name)/\(folder)", rows: [(u[0], 8000, "research"), (u[1], 7000, "research"), (u[2], 9000, "research"), (u[4], 8000, "needs_id")],
                links: [(601, u[0]), (602, u[1]), (603, u[2]), (604, u[4])], in: directory)
            let second = try Self.writeExport(
                "\(name)/\(laterFolder)", rows: [(u[3], 8000, "research")], links: [], taxa: taxa, in: directory)
            let order = [first[2], first[0], second[2], second[0], first[1], second[1], first[3], second[3]]
            let both = directory.file("\(name).tar.gz")
            try run("/bin/tar", ["-czf", both, "-C", directory.file(name)] + order.map { String($0.dropFirst(directory.file(name).count + 1)) })
            let planned = try #require(try ExportLinkPruning.plan(
                inputs: [both], selection: selection, openDataDate: nil, scratch: directory.path, workers: 2))
            #expect(planned.judgedWhileListed == judged, "\(name)")
            let built = try Build.build(inputs: [both], selection: selection, dedupeSelects: true, in: try TemporaryDirectory(), ingestSelects: true)
            let whole = try Build.build(inputs: [both], selection: selection, dedupeSelects: true, in: try TemporaryDirectory())
            #expect(built.bundle == whole.bundle, "\(name)")
            #expect(built.prunedLinks == pruned, "\(name)")
        }
        // Beside loose tables of a later export that repeat the duck: the archive's observations
        // are judged as it is listed, and their keys count with the others' (so the duck's two
        // rows are written, marked, not counted as two removed observations).
        let repeating = try Self.writeExport(
            "loose/\(laterFolder)", rows: [(u[1], 7000, "research")], links: [], in: directory)
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let planned = try #require(try ExportLinkPruning.plan(
            inputs: repeating + [taxaFirst], selection: selection, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.judgedWhileListed == 2)
        let built = try Build.build(inputs: repeating + [taxaFirst], selection: selection, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: repeating + [taxaFirst], selection: selection, dedupeSelects: true, in: writing)
        #expect(built.bundle == whole.bundle)
        #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
        let marked = try recordLines(pruning.file("records.jsonl")).filter { $0["uuid"] as? String == u[1] && $0["part"] as? String == "removed:taxa" }
        #expect(marked.count == 2)
    }

    /// An archive's taxa member whose first rows disagree on the taxon rule is still read to its
    /// end as the archive is listed: its later rows hold the ancestors a kept observation needs
    /// and the ids ingest counts as left out. The bundle is the same bytes as unpruned.
    @Test func taxaRowsAfterADisagreementStillGiveTheAncestorsAKeptRowNeeds() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        let folder = "inaturalist-open-data-20241127"
        // The duck's species twice, on both sides of the rule, before every other taxon.
        let lines = Self.taxa.split(separator: "\n", omittingEmptySubsequences: false)
        let duck = "7000\t48460/1/2/3/6912\t10\tspecies\tAnas platyrhynchos\ttrue"
        let moved = "7000\t48460/1/2/3\t10\tspecies\tAnas platyrhynchos\ttrue"
        let taxa = ([String(lines[0]), duck, moved] + lines.dropFirst().map(String.init).filter { !$0.hasPrefix("7000\t") }).joined(separator: "\n")
        _ = try Self.writeExport(
            folder, rows: [(u[0], 8000, "research"), (u[1], 9000, "research")], links: [(601, u[0]), (602, u[1])], taxa: taxa, in: directory)
        let archive = directory.file("\(folder).tar.gz")
        try run("/bin/tar", ["-czf", archive, "-C", directory.path] + ["taxa", "observers", "observations", "photos"].map { "\(folder)/\($0).csv" })
        var selection = Self.birdsWithoutDucks
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let built = try Build.build(inputs: [archive], selection: selection, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: [archive], selection: selection, dedupeSelects: true, in: writing)
        #expect(built.bundle == whole.bundle)
        #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
        // The taxon rule is the bundle's, so the oak is kept at ingest; the taxa it and the bird
        // need are written, with their ancestors, and the others counted.
        let written = Set(try recordLines(pruning.file("records.jsonl")).filter { $0["k"] as? String == "taxon" }.compactMap { $0["id"] as? Int })
        #expect(written == [48460, 1, 2, 3, 8000, 47126, 9000])
    }

    /// A taxon id past the bitmap of ids (2^27 and up, none in iNaturalist) is decided, and
    /// checked for agreement, the same way.
    @Test func aTaxonIdPastTheBitmapIsDecidedTheSameWay() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        let large = Self.taxa + "200000001\t48460/1/2/3\t10\tspecies\tAves magna\ttrue\n200000002\t48460/47126\t10\tspecies\tQuercus magna\ttrue\n"
        let inputs = try Self.writeExport(
            "inaturalist-open-data-20241127", rows: [(u[0], 200000001, "research"), (u[1], 200000002, "research"), (u[2], 8000, "research")],
            links: [(601, u[0])], taxa: large, in: directory)
        var taxaOnly = Selection()
        taxaOnly.taxa = Self.birdsWithoutDucks.taxa
        let planned = try #require(try ExportLinkPruning.plan(inputs: inputs, selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.keptRows == 2)
        let moved = large.replacingOccurrences(of: "200000001\t48460/1/2/3", with: "200000001\t48460/47126")
        let later = try Self.writeExport("second/inaturalist-open-data-20250301", rows: [], links: [], taxa: moved, in: directory)
        #expect(try ExportLinkPruning.plan(inputs: inputs + later, selection: taxaOnly, openDataDate: nil, scratch: directory.path, workers: 2) == nil)
    }

    /// Rules of every kind, on taxa ingest reads with a part dropped or not at all: an
    /// observation without a taxon, a taxon whose only row is rejected (no name), one whose
    /// ancestry is malformed (dropped, so only its own id and rank decide). Whichever stage
    /// applies the rule, the bundle, its report and its findings are the same bytes.
    @Test(arguments: [
        TaxonRule(include: [3], exclude: [6912]), TaxonRule(ranks: ["species"]), TaxonRule(exclude: [47126]),
        TaxonRule(include: [8100]),
    ])
    func everyKindOfTaxonRuleBuildsTheSameBundleWhicheverStageAppliesIt(rule: TaxonRule) throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        let taxa = Self.taxa + "9100\t48460/47126\t10\tspecies\tNone\ttrue\n8100\t48460/x/3\t10\tspecies\tSylvia borin\ttrue\n"
        let inputs = try Self.writeExport(
            "inaturalist-open-data-20241127",
            rows: [(u[0], 8000, "research"), (u[1], nil, "research"), (u[2], 9100, "research"), (u[3], 8100, "research"),
                   (u[4], 6912, "research"), (u[5], 9000, "research")],
            links: [(601, u[0]), (602, u[1]), (603, u[2]), (604, u[3]), (605, u[4]), (606, u[5])], taxa: taxa, in: directory)
        var selection = Selection()
        selection.taxa = rule
        let planned = try #require(try ExportLinkPruning.plan(inputs: inputs, selection: selection, openDataDate: nil, scratch: directory.path, workers: 2))
        #expect(planned.fingerprint == selection.dedupeFingerprint(taxaKnown: true))
        let (pruning, writing) = (try TemporaryDirectory(), try TemporaryDirectory())
        let built = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: pruning, ingestSelects: true)
        let whole = try Build.build(inputs: inputs, selection: selection, dedupeSelects: true, in: writing)
        #expect(built.bundle == whole.bundle)
        #expect(built.summary.findings == whole.summary.findings)
        #expect(try text(pruning.file("costs-report.json")) == (try text(writing.file("costs-report.json"))))
        #expect(built.leftOutRows > 0)
    }

    /// A taxon with a malformed ancestry in one export and a good one in another: the dropped
    /// ancestry decides otherwise, so ingest leaves the taxon rule to the bundle.
    @Test func aDroppedAncestryBesideAGoodOneIsADisagreement() throws {
        let directory = try TemporaryDirectory()
        let u = Pruning.uuids
        var inputs = try Self.writeExport(
            "inaturalist-open-data-20241127", rows: [(u[0], 8000, "research")], links: [(601, u[0])], in: directory)
        let broken = Self.taxa.replacingOccurrences(of: "8000\t48460/1/2/3", with: "8000\t48460//2/3")
        inputs += try Self.writeExport("second/inaturalist-open-data-20250301", rows: [], links: [], taxa: broken, in: directory)
        var birds = Selection()
        birds.taxa = TaxonRule(include: [3])
        #expect(try ExportLinkPruning.plan(inputs: inputs, selection: birds, openDataDate: nil, scratch: directory.path, workers: 2) == nil)
    }

    /// The taxon rule's digest names the rule: another subtree is another digest, which dedupe
    /// and the bundle refuse; without a taxon rule, knowing the taxa changes nothing.
    @Test func theDigestOfTheRulesNamesTheTaxonRuleWhenIngestAppliesIt() {
        var birds = Selection()
        birds.taxa = TaxonRule(include: [3])
        var ducks = birds
        ducks.taxa = TaxonRule(include: [6912])
        #expect(birds.dedupeFingerprint(taxaKnown: true) != ducks.dedupeFingerprint(taxaKnown: true))
        #expect(birds.dedupeRules(taxaKnown: false).isEmpty)
        #expect(birds.dedupeRules(taxaKnown: true) == ["taxa"])
        var box = Selection()
        box.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        box.qualityGrades = ["research"]
        #expect(box.dedupeFingerprint(taxaKnown: true) == box.dedupeFingerprint(taxaKnown: false))
        #expect(box.dedupeRules(taxaKnown: true) == ["places", "quality_grades"])
    }
}
