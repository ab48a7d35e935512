import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// What the bundle ships under a `select`: the observations each rule keeps, the caps' rank,
/// the taxa kept with their ancestors, and what the costs report says was removed.
@Suite struct SelectionBundleTests {
    /// One constructed API observation.
    struct Observation {
        var id: Int
        var taxon: Int? = 70118
        var rank = "species"
        var ancestry = "48460/1/47120/53850"
        var quality = "research"
        var observed = "2024-05-01"
        var location: String? = "50.5,4.25"
        var license: String? = "cc-by"
        var obscured = false
        var photos: [(id: Int, license: String?)] = []

        var json: String {
            let photoObjects = photos.map { photo in
                "{\"id\":\(photo.id),\"license_code\":\(photo.license.map { "\"\($0)\"" } ?? "null"),\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/\(photo.id)/square.jpg\",\"attribution\":\"(c) u, some rights reserved\",\"original_dimensions\":{\"width\":2048,\"height\":1536}}"
            }
            let links = photoObjects.enumerated().map { "{\"id\":\(2000 + $0.offset),\"position\":\($0.offset),\"photo\":\($0.element)}" }
            let taxonText = taxon.map { "{\"id\":\($0),\"name\":\"Taxon \($0)\",\"rank\":\"\(rank)\",\"rank_level\":10,\"ancestry\":\"\(ancestry)\"}" } ?? "null"
            return """
                {"id":\(id),"uuid":"\(uuidText(for: id))","quality_grade":"\(quality)","observed_on":"\(observed)",\
                "updated_at":"2024-05-02T10:00:00+00:00","created_at":"2024-05-02T09:00:00+00:00",\
                "location":\(location.map { "\"\($0)\"" } ?? "null"),"obscured":\(obscured),\
                "license_code":\(license.map { "\"\($0)\"" } ?? "null"),"taxon":\(taxonText),\
                "user":{"id":\(id + 500),"login":"user\(id)","name":null},"photos":[\(photoObjects.joined(separator: ","))],\
                "observation_photos":[\(links.joined(separator: ","))]}
                """
        }
    }

    /// Ingests, dedupes and bundles `observations` under `selection`; returns the database path
    /// and the build summary.
    private func build(
        _ observations: [Observation], _ selection: Selection?, in directory: TemporaryDirectory, otherInputs: [(name: String, text: String)] = []
    ) throws -> (database: String, summary: BundleBuilder.Summary) {
        var inputs = [try directory.write("page.json", page(observations.map(\.json)))]
        for input in otherInputs { inputs.append(try directory.write(input.name, input.text)) }
        try ingestAndDedupe(inputs, in: directory)
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "select",
            policy: ShippingPolicy())
        options.costsReport = directory.file("costs-report.json")
        options.selection = selection
        options.selectionSource = "pipelines/select.json"
        let summary = try BundleBuilder(options: options).run()
        return (directory.file("content.sqlite"), summary)
    }

    private func ids(_ sql: String, in database: String) throws -> [Int] {
        try Database(path: database, mode: .readOnly).rows(sql).map { Int($0[0]!)! }
    }

    /// Five research and needs-ID observations of one taxon (see the rank in `SelectionCaps`).
    static let ranked: [Observation] = [
        Observation(id: 11, observed: "2024-01-01", license: "cc-by"),
        Observation(id: 12, observed: "2023-01-01", license: "cc0"),
        Observation(id: 13, observed: "2023-01-01", license: "cc0"),
        Observation(id: 14, quality: "needs_id", observed: "2025-01-01", license: "cc0"),
        Observation(id: 15, observed: "2024-06-01", license: "cc-by"),
    ]

    /// Research grade beats everything (14 goes first though newest and CC0), the licence beats
    /// the date (12 and 13 before 15 and 11), the newer date beats the older (15 before 11), and
    /// the lower id breaks a tie (12 before 13).
    @Test(arguments: [(1, [12]), (2, [12, 13]), (3, [12, 13, 15]), (4, [11, 12, 13, 15]), (5, [11, 12, 13, 14, 15])])
    func theObservationCapKeepsResearchGradeThenThePreferredLicenceThenTheNewestThenTheLowestID(cap: Int, kept: [Int]) throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.observationsPerTaxon = cap
        let (database, summary) = try build(Self.ranked, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == kept)
        #expect(summary.selection?.removed == ["observation_cap": 5 - kept.count])
    }

    @Test func theLicencePreferenceOfThePipelineReordersTheCap() throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.observationsPerTaxon = 2
        selection.caps.licensePreference = [.ccBy]
        let (database, _) = try build(Self.ranked, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [11, 15])
    }

    /// Photos ranked by their observation's grade, their own licence, the observation's date and
    /// their id: 202 (research, CC0), 204 (research, CC BY, newer), 201 (research, CC BY), 203
    /// (needs ID, though CC0 and newest).
    @Test(arguments: [(1, [202]), (2, [202, 204]), (3, [201, 202, 204]), (4, [201, 202, 203, 204])])
    func thePhotoCapKeepsThePhotosOfTheBestObservationsFirst(cap: Int, kept: [Int]) throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.photosPerTaxon = cap
        let observations = [
            Observation(id: 21, observed: "2024-01-01", photos: [(201, "cc-by"), (202, "cc0")]),
            Observation(id: 22, quality: "needs_id", observed: "2025-01-01", photos: [(203, "cc0")]),
            Observation(id: 23, observed: "2024-06-01", photos: [(204, "cc-by")]),
        ]
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == kept)
        #expect(try ids("SELECT photo_id FROM observation_photos ORDER BY photo_id", in: database) == kept)
        // Every observation stays: no minimum number of photos was asked for.
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [21, 22, 23])
        let report = try #require(summary.report)
        #expect(report.shipped == kept.count)
        #expect(report.excluded["selection:photo-cap"] == (kept.count == 4 ? nil : 4 - kept.count))
        #expect(summary.selection?.photosCapped == 4 - kept.count)
        // The hero is chosen again among the kept photos: the photo of the research-grade
        // observation updated last, the higher id on a tie (23, whose photo 204 the smallest cap drops).
        let hero = try Database(path: database, mode: .readOnly).int("SELECT hero_photo_id FROM taxa WHERE id = 70118")
        #expect(hero == (kept.contains(204) ? 204 : 202))
    }

    /// With min_photos, the photo cap fills whole observations: two observations of two photos
    /// each, a cap of two and a minimum of two ship the first observation with both its photos,
    /// where taking the two best photos (one of each, both CC0) left both observations one short
    /// and the taxon empty.
    @Test func thePhotoCapWithAMinimumShipsWholeObservationsNotAnEmptyTaxon() throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.photosPerTaxon = 2
        selection.minimumPhotos = 2
        let observations = [
            Observation(id: 61, photos: [(601, "cc0"), (602, "cc-by")]),
            Observation(id: 62, photos: [(603, "cc0"), (604, "cc-by")]),
        ]
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [61])
        #expect(try ids("SELECT photo_id FROM observation_photos ORDER BY photo_id", in: database) == [601, 602])
        #expect(try ids("SELECT id FROM taxa ORDER BY id", in: database) == [70118])
        #expect(summary.selection?.removed["photo_cap"] == 1)
        // A cap of three: still one observation's worth (a second would need two more places).
        let three = try TemporaryDirectory()
        selection.caps.photosPerTaxon = 3
        let (database3, _) = try build(observations, selection, in: three)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database3) == [61])
        #expect(try ids("SELECT photo_id FROM observation_photos ORDER BY photo_id", in: database3) == [601, 602])
    }

    /// One photo in two observations of a taxon counts for both: a cap of three on a taxon of
    /// three distinct photos removes nothing, with a minimum of two. The shared photo (702),
    /// taken for the newer observation, is the older one's first, so the older one needs one
    /// place more, not two (it was cut, then removed as short). A cap of two still ships one
    /// observation whole; with a third observation of its own two photos, the third waits.
    @Test(arguments: [(3, [71, 72], [701, 702, 703]), (2, [71], [701, 702]), (4, [71, 72], [701, 702, 703])])
    func aPhotoSharedByTwoObservationsCountsForBothUnderTheCapsMinimum(cap: Int, kept: [Int], photos: [Int]) throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.photosPerTaxon = cap
        selection.minimumPhotos = 2
        let observations = [
            Observation(id: 71, observed: "2024-06-01", photos: [(701, "cc0"), (702, "cc0")]),
            Observation(id: 72, observed: "2024-01-01", photos: [(702, "cc0"), (703, "cc0")]),
        ]
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == kept)
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == photos)
        #expect((summary.selection?.removed["photo_cap"] ?? 0) == (kept.count == 2 ? 0 : 1))
        #expect(try ids("SELECT count(*) FROM photos", in: database)[0] <= cap)
    }

    /// A photo the cap meets before the shared photo that ranks lower does not leave its
    /// observation short: observation 72's own photo 703 ranks before 702, which 71 takes, so 72
    /// needs one place, not two (it was cut, then removed as short, and the place it held left
    /// unused). With a minimum of three and a cap of five, both observations of three photos
    /// that share one ship; with a cap of four only the better one, its cut photos counted under
    /// the cap, none as not selected (203 went only because of the cap).
    @Test(arguments: [
        (2, 3, [71, 72], [701, 702, 703], 0), (2, 2, [71], [701, 702], 1),
        (3, 5, [71, 72], [101, 102, 201, 203, 900], 0), (3, 4, [71], [101, 102, 900], 2),
    ])
    func aSharedPhotoThatRanksLowerStillCountsForBothObservationsUnderTheCapsMinimum(
        minimum: Int, cap: Int, kept: [Int], photos: [Int], capped: Int
    ) throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.caps.photosPerTaxon = cap
        selection.minimumPhotos = minimum
        let observations = minimum == 2
            ? [Observation(id: 71, observed: "2024-06-01", photos: [(701, "cc0"), (702, "cc-by")]),
               Observation(id: 72, observed: "2024-01-01", photos: [(703, "cc0"), (702, "cc-by")])]
            : [Observation(id: 71, observed: "2024-06-01", photos: [(101, "cc0"), (102, "cc0"), (900, "cc-by")]),
               Observation(id: 72, observed: "2024-01-01", photos: [(201, "cc0"), (900, "cc-by"), (203, "cc-by-sa")])]
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == kept)
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == photos)
        #expect((summary.selection?.removed["photo_cap"] ?? 0) == 2 - kept.count)
        #expect(summary.selection?.photosCapped == capped)
        #expect(summary.selection?.photosNotSelected == 0)
    }

    @Test func placesKeepObservationsInsideABoxOrAPolygonAndObscuredOnesFollowTheStatedRule() throws {
        let observations = [
            Observation(id: 31, location: "50.5,4.25"),              // in the box
            Observation(id: 32, location: "-16,179.5"),              // in the polygon, east of 180
            Observation(id: 33, location: "-16,-179.5"),             // in the box across 180
            Observation(id: 34, location: "20,20"),                  // nowhere
            Observation(id: 35, location: nil),                      // no coordinates
            Observation(id: 36, location: "50.6,4.3", obscured: true),  // in the box, obscured
            Observation(id: 37, location: "5,5"),                    // in the polygon's hole
        ]
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 2, south: 49, east: 7, north: 52), BoundingBox(west: 179, south: -20, east: -179, north: -10)]
        selection.places.polygons = [
            Polygon(rings: [[179, -20, 180, -20, 180, -10, 179, -10, 179, -20]]), SelectionRulesTests.squareWithHole,
        ]
        let directory = try TemporaryDirectory()
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [31, 32, 33, 36])
        #expect(summary.selection?.removed == ["places": 3])
        #expect(try ids("SELECT id FROM users ORDER BY id", in: database) == [531, 532, 533, 536])

        // Dropped, 36 is counted as obscured, not as outside the places (it is inside the box).
        selection.obscured = .drop
        let dropping = try TemporaryDirectory()
        let dropped = try build(observations, selection, in: dropping)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: dropped.database) == [31, 32, 33])
        #expect(dropped.summary.selection?.removed == ["places": 3, "obscured": 1])
    }

    @Test func theTaxaKeptAreThoseOfTheKeptObservationsAndAllTheirAncestors() throws {
        // A beetle genus and a species of it, a bird, and a second beetle species left out by the date.
        let observations = [
            Observation(id: 41, taxon: 53850, rank: "genus", ancestry: "48460/1/47120", observed: "2024-05-01"),
            Observation(id: 42, taxon: 70118, rank: "species", ancestry: "48460/1/47120/53850", observed: "2024-05-01"),
            Observation(id: 43, taxon: 3, rank: "class", ancestry: "48460/1/2", observed: "2024-05-01"),
            Observation(id: 44, taxon: 131878, rank: "species", ancestry: "48460/1/47120/53850", observed: "2019-05-01"),
        ]
        var selection = Selection()
        selection.taxa = TaxonRule(include: [47120], ranks: ["species", "class"])
        selection.observedFrom = "2020-01-01"
        let directory = try TemporaryDirectory()
        let (database, summary) = try build(observations, selection, in: directory)
        // 41 is a genus, 43 a bird: the taxon rule removes them, 44 the date; 42's genus stays as its ancestor.
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [42])
        #expect(try ids("SELECT id FROM taxa ORDER BY id", in: database) == [53850, 70118])
        #expect(summary.selection?.removed == ["taxa": 2, "observed": 1])
        #expect(summary.selection?.taxaKept == 2 && summary.selection?.taxaConsidered == 4)
    }

    /// "All their ancestors" reaches the root through each ancestor's own lineage: taxa records
    /// of different dates (a taxon moved between them) may name an ancestor that the kept taxon's
    /// lineage does not, and the app's tree would have a hole without it.
    @Test func theAncestorsOfAncestorsAreKeptWhenTheirLineagesNameOthers() throws {
        let taxa = """
            {"total_results": 3, "page": 1, "per_page": 30, "results": [
              {"id": 3, "name": "Aves", "rank": "class", "rank_level": 50, "ancestry": "1/2/50"},
              {"id": 50, "name": "Moved", "rank": "subphylum", "rank_level": 57, "ancestry": "1/2"},
              {"id": 200, "name": "Family", "rank": "family", "rank_level": 30, "ancestry": "1/2/50/3"}]}
            """
        var selection = Selection()
        selection.taxa = TaxonRule(include: [3])
        let directory = try TemporaryDirectory()
        let observations = [Observation(id: 81, taxon: 201, ancestry: "1/2/3/200")]
        let (database, _) = try build(observations, selection, in: directory, otherInputs: [("taxa.json", taxa)])
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [81])
        #expect(try ids("SELECT id FROM taxa ORDER BY id", in: database) == [3, 50, 200, 201])
    }

    @Test func qualityGradesAndAMinimumOfShippablePhotosRemoveObservationsAndTheReportCountsEachRule() throws {
        let observations = [
            Observation(id: 51, photos: [(501, "cc-by")]),
            Observation(id: 52, quality: "casual", photos: [(502, "cc-by")]),
            Observation(id: 53, photos: [(503, "cc-by-nc")]),  // its only photo cannot ship
            Observation(id: 54, photos: []),
        ]
        var selection = Selection()
        selection.qualityGrades = ["needs_id", "research"]
        selection.minimumPhotos = 1
        let directory = try TemporaryDirectory()
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [51])
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == [501])
        #expect(summary.selection?.removed == ["quality_grades": 1, "min_photos": 2])
        #expect(summary.selection?.photosNotSelected == 1)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json")))) as! [String: Any]
        let part = try #require(report["selection"] as? [String: Any])
        let removed = (part["observations"] as? [String: Any])?["removed"] as? [String: Int]
        #expect(removed == ["quality_grades": 1, "min_photos": 2])
        #expect((report["excluded"] as? [String: Int])?["selection:not-selected"] == 1)
        #expect(report["shipped"] as? Int == 1)
    }

    /// The load never decides a photo no kept observation links: whether its licence would let
    /// it ship or not, it is counted once, as not selected, and the report still adds up
    /// (`photos` is `shipped` plus every exclusion). A kept observation's unshippable photo is
    /// still counted under its licence.
    @Test func aPhotoTheSelectionLeavesOutIsCountedAsNotSelectedWhateverItsLicence() throws {
        let observations = [
            Observation(id: 61, photos: [(601, "cc-by"), (604, "cc-by-nc")]),
            Observation(id: 62, quality: "casual", photos: [(602, "cc-by-nc"), (603, "cc-by")]),
        ]
        var selection = Selection()
        selection.qualityGrades = ["research"]
        let directory = try TemporaryDirectory()
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == [601])
        #expect(summary.selection?.photosNotSelected == 2)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json")))) as! [String: Any]
        let excluded = try #require(report["excluded"] as? [String: Int])
        #expect(excluded == ["selection:not-selected": 2, "license:cc-by-nc": 1])
        #expect(report["shipped"] as? Int == 1)
        #expect(report["photos"] as? Int == 4)
    }

    /// Both ends of the range are in; a value with a time after its date is judged on the date;
    /// a value with no date is outside any range. The rule applies as the records load, before
    /// `min_photos`, so the removed observations' photos are neither shipped nor capped: they
    /// are counted as not selected.
    @Test func theObservedRangeKeepsItsFirstAndLastDaysAndJudgesATimestampByItsDate() throws {
        let observations = [
            Observation(id: 61, observed: "2023-12-31", photos: [(601, "cc-by")]),
            Observation(id: 62, observed: "2024-01-01", photos: [(602, "cc-by")]),
            Observation(id: 63, observed: "2024-12-31T23:30:00", photos: [(603, "cc-by")]),
            Observation(id: 64, observed: "2025-01-01T00:00:00", photos: [(604, "cc-by")]),
            Observation(id: 65, observed: "", photos: [(605, "cc-by")]),
            Observation(id: 66, observed: "2024-06-01", photos: []),
        ]
        var selection = Selection()
        selection.observedFrom = "2024-01-01"
        selection.observedTo = "2024-12-31"
        selection.minimumPhotos = 1
        let directory = try TemporaryDirectory()
        let (database, summary) = try build(observations, selection, in: directory)
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [62, 63])
        #expect(try ids("SELECT id FROM photos ORDER BY id", in: database) == [602, 603])
        #expect(summary.selection?.removed == ["observed": 3, "min_photos": 1])
        #expect(summary.selection?.observationsConsidered == 6 && summary.selection?.observationsKept == 2)
        #expect(summary.selection?.photosNotSelected == 3)

        // An open range: from a day on.
        selection.observedTo = nil
        let later = try TemporaryDirectory()
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: try build(observations, selection, in: later).database) == [62, 63, 64])
    }

    @Test func aSelectionThatKeepsNothingIsAFindingAndTheBundleStillBuilds() throws {
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: -1, south: -1, east: 1, north: 1)]
        let directory = try TemporaryDirectory()
        let (database, summary) = try build([Observation(id: 61, photos: [(601, "cc-by")])], selection, in: directory)
        #expect(try ids("SELECT count(*) FROM observations", in: database) == [0])
        #expect(try ids("SELECT count(*) FROM photos", in: database) == [0])
        #expect(try ids("SELECT count(*) FROM size_costs", in: database) == [0])
        #expect(summary.findings.map(\.diagnostic) == [
            "pipelines/select.json: warning: the selection keeps none of the 1 observations (places removed 1)",
            "pipelines/select.json: warning: the selection keeps none of the 1 taxa",
        ])
    }

    @Test func aSelectionThatKeepsEverythingGivesTheSameRowsAsNone() throws {
        let observations = Self.ranked.map { var o = $0; o.photos = [(700 + o.id, "cc-by")]; return o }
        var everything = Selection()
        everything.caps.observationsPerTaxon = 100
        let (first, second) = (try TemporaryDirectory(), try TemporaryDirectory())
        let with = try build(observations, everything, in: first).database
        let without = try build(observations, nil, in: second).database
        for table in ["observations", "photos", "taxa", "users", "observation_photos", "size_costs"] {
            let a = try Database(path: with, mode: .readOnly).rows("SELECT * FROM \(table) ORDER BY 1, 2")
            let b = try Database(path: without, mode: .readOnly).rows("SELECT * FROM \(table) ORDER BY 1, 2")
            #expect(a == b, "\(table)")
        }
    }

    /// The hero of a taxon whose newest research-grade observation is from the export: the
    /// load dated an export copy by its export, the selection's second choice by its
    /// `updated_at` (which the export does not give), so a `select` that removed nothing changed
    /// the hero. Both go by `updated_at`, as the docs say.
    @Test func theHeroIsTheSameWithASelectionThatKeepsEverythingWhenTheExportIsAnInput() throws {
        let export = "inaturalist-open-data-20240601"
        let tables: [(name: String, text: String)] = [
            ("\(export)/observations.csv", """
                observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on
                5a0c7e62-3f1b-4d8e-9c2a-6b1f0e4d7a10\t9\t50.5\t4.25\t10\t70118\tresearch\t2024-05-20

                """),
            ("\(export)/photos.csv", """
                photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e01\t901\t5a0c7e62-3f1b-4d8e-9c2a-6b1f0e4d7a10\t9\tjpg\tCC-BY\t2048\t1536\t0

                """),
            ("\(export)/observers.csv", "observer_id\tlogin\tname\n9\tkim\tKim Ito\n"),
            ("\(export)/taxa.csv", """
                taxon_id\tancestry\trank_level\trank\tname\tactive
                48460\t\t100\tstateofmatter\tLife\ttrue
                1\t48460\t70\tkingdom\tAnimalia\ttrue
                47120\t48460/1\t60\tphylum\tArthropoda\ttrue
                53850\t48460/1/47120\t50\tclass\tInsecta\ttrue
                70118\t48460/1/47120/53850\t10\tspecies\tTaxon 70118\ttrue

                """),
        ]
        let observations = [Observation(id: 11, photos: [(711, "cc-by")])]
        var everything = Selection()
        everything.caps.observationsPerTaxon = 100
        let (first, second) = (try TemporaryDirectory(), try TemporaryDirectory())
        let with = try build(observations, everything, in: first, otherInputs: tables).database
        let without = try build(observations, nil, in: second, otherInputs: tables).database
        let hero = "SELECT hero_photo_id FROM taxa WHERE id = 70118"
        #expect(try ids("SELECT count(*) FROM observations", in: without) == [2])
        #expect(try ids(hero, in: with) == [711])
        #expect(try ids(hero, in: without) == [711])
    }

    @Test func theTaxaOfASpeciesCountsListAreKeptWhenTheTaxonRuleKeepsThem() throws {
        let counts = """
            {"total_results": 2, "page": 1, "per_page": 500, "results": [
              {"count": 41, "taxon": {"id": 48662, "name": "Danaus plexippus", "rank": "species", "rank_level": 10, "ancestry": "48460/1/47120/47157"}},
              {"count": 17, "taxon": {"id": 131878, "name": "Nicrophorus vespillo", "rank": "species", "rank_level": 10, "ancestry": "48460/1/47120/47208/53850"}}]}
            """
        var selection = Selection()
        selection.taxa = TaxonRule(include: [47208])
        let directory = try TemporaryDirectory()
        let observations = [Observation(id: 71, ancestry: "48460/1/47120/47208/53850"), Observation(id: 72, taxon: 3, rank: "class", ancestry: "48460/1/2")]
        let (database, _) = try build(observations, selection, in: directory, otherInputs: [("species-counts.json", counts)])
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: database) == [71])
        // The beetle of the list stays without an observation; the butterfly and the bird go.
        #expect(try ids("SELECT id FROM taxa ORDER BY id", in: database) == [70118, 131878])
    }

    @Test func theSelectedBundleIsTheSameWhateverTheInputOrder() throws {
        var selection = Selection()
        selection.caps.observationsPerTaxon = 2
        selection.caps.photosPerTaxon = 2
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        let first = Self.ranked.map { var o = $0; o.photos = [(800 + o.id, "cc-by"), (900 + o.id, "cc0")]; return o }
        let second = [Observation(id: 16, observed: "2024-08-01", photos: [(816, "cc0")]), Observation(id: 17, location: "60,20")]
        let (a, b) = (try TemporaryDirectory(), try TemporaryDirectory())
        let one = try build(first, selection, in: a, otherInputs: [("more.json", page(second.map(\.json)))]).database
        let other = try build(second, selection, in: b, otherInputs: [("more.json", page(first.map(\.json)))]).database
        #expect(try SmallBundle.sha256sum(one) == SmallBundle.sha256sum(other))
        #expect(try ids("SELECT id FROM observations ORDER BY id", in: one) == [12, 13])
    }

    /// Deduped records come in file order: an observation after the `select` line (which ends
    /// the observations, so the loader starts putting them in) is refused naming its line.
    @Test func anObservationAfterTheSelectLineIsRefusedNamingItsLine() throws {
        let directory = try TemporaryDirectory()
        var selection = Selection()
        selection.qualityGrades = ["research"]
        let observations = [Observation(id: 11), Observation(id: 12), Observation(id: 13, quality: "needs_id")]
        try ingestAndDedupe([try directory.write("page.json", page(observations.map(\.json)))], in: directory, selection: selection)
        var lines = try String(contentsOfFile: directory.file("deduped.jsonl"), encoding: .utf8).split(separator: "\n").map(String.init)
        let select = try #require(lines.firstIndex { $0.hasPrefix("[\"select\"") })
        let last = try #require(lines.lastIndex { $0.hasPrefix("[\"obs\"") })
        #expect(last == select - 1)
        lines.insert(lines.remove(at: last), at: select)
        let input = try directory.write("reordered.jsonl", lines.joined(separator: "\n") + "\n")
        var options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "select", policy: ShippingPolicy())
        options.selection = selection
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.path == input)
        #expect(error.line == select + 1)
        #expect(error.message.hasPrefix("deduped records out of order: an observation after the select or photo records"))
    }
}
