import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 10's record-level rules for real iNaturalist input: a record keeps its good parts (only
/// one without a usable id is rejected), photo credits fall back to the login, obscured
/// observations ship their public accuracy, and no non-finite or out-of-range number gets through.
@Suite struct IngestSalvageTests {
    private func ingest(_ text: String, in directory: TemporaryDirectory, maxRejectRate: Double = 0) throws -> INatIngest.Summary {
        let input = try directory.write("in.json", text)
        var options = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = maxRejectRate
        return try INatIngest(options: options).run()
    }

    private func records(_ directory: TemporaryDirectory, kind: String) throws -> [[String: Any]] {
        try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == kind }
    }

    private func findings(_ directory: TemporaryDirectory) throws -> [[String: Any]] {
        try jsonLines(directory.file("rejects.jsonl"))
    }

    private static let photo70 = #"{"id":70,"license_code":"cc-by","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/70/square.jpg"}"#
    private static let photo71 = #"{"id":71,"license_code":"cc-by","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/71/square.jpg"}"#

    // MARK: Rule 1: salvage parts, reject only records without an identity

    @Test func aPhotoWithoutAnIdIsDroppedAndTheObservationKept() throws {
        let directory = try TemporaryDirectory()
        let summary = try ingest(
            page([observationJSON(id: 1).replacingOccurrences(
                of: #""photos":[]"#, with: #""photos":[{"license_code":"cc-by","url":"https://x/photos/9/square.jpg"},\#(Self.photo70)]"#)]),
            in: directory)
        #expect(summary.rejected == 0)
        #expect(summary.salvaged == 1)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["photos"] as? [[Int]] == [[70, 0]])
        #expect(try records(directory, kind: "photo").map { $0["id"] as? Int } == [70])
        let finding = try #require(try findings(directory).first)
        #expect(finding["outcome"] as? String == "salvaged")
        #expect(finding["record"] as? String == "results[0]")
        #expect(finding["path"] as? String == "results[0].photos[0].id")
        #expect(finding["line"] as? Int == 2)
        #expect(finding["reason"] as? String == "photos[0].id is missing; dropped photos[0]")
    }

    /// An `observed_on` that is not a date (empty, or not zero-padded) is dropped, as the
    /// export's is: kept, a date range would judge it as text ("" before every date, "2024-6-1"
    /// after "2024-12-31").
    @Test(arguments: ["", "2024-6-1", "last spring", "2023-02-29"])
    func anObservedOnThatIsNotADateIsDroppedAndTheObservationKept(observed: String) throws {
        let directory = try TemporaryDirectory()
        let summary = try ingest(
            page([observationJSON(id: 1).replacingOccurrences(of: #""observed_on":"2024-04-30""#, with: "\"observed_on\":\"\(observed)\"")]),
            in: directory)
        #expect(summary.accepted == 1 && summary.salvaged == 1)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["observed_on"] is NSNull)
        #expect(try findings(directory).map { $0["reason"] as? String } == ["observed_on \"\(observed)\" is not a date YYYY-MM-DD; dropped observed_on"])
    }

    /// An `updated_at` on a day that does not exist is dropped with a finding, as text that is
    /// no timestamp is: read as the day it rolls over to (the 31st of February as the 2nd of
    /// March), such a copy outranked a real, later one in dedupe.
    @Test(arguments: ["2024-02-31T00:00:00Z", "2023-02-29T12:00:00Z", "2024-04-31T00:00:00+02:00", "1900-02-29T00:00:00Z"])
    func anUpdatedAtOnADayThatDoesNotExistIsDroppedAndTheObservationKept(updated: String) throws {
        let directory = try TemporaryDirectory()
        let json = observationJSON(id: 1)
        let given = try #require(json.range(of: #""updated_at":"[^"]*""#, options: .regularExpression))
        let summary = try ingest(page([json.replacingCharacters(in: given, with: "\"updated_at\":\"\(updated)\"")]), in: directory)
        #expect(summary.accepted == 1 && summary.salvaged == 1)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["updated_at"] is NSNull)
        #expect(try findings(directory).map { $0["reason"] as? String } == ["updated_at \"\(updated)\" is not an ISO 8601 timestamp; dropped updated_at"])
    }

    /// The last day of each month, and the 29th of February of leap years (2000, not 1900), are
    /// read; the day after is not.
    @Test func aTimestampIsReadOnlyOnADayThatExists() {
        for (text, real) in [
            ("2024-02-29", true), ("2000-02-29T10:00:00Z", true), ("2023-02-28", true), ("2024-04-30", true), ("2024-12-31", true),
            ("2024-01-31", true), ("2024-02-30", false), ("2100-02-29", false), ("2024-06-31", false), ("2024-09-31", false),
            ("2024-11-31T00:00Z", false), ("2024-01-32", false), ("2024-01-00", false),
        ] {
            #expect((Timestamp.parse(text) != nil) == real, "\(text)")
        }
        #expect(Timestamp.parse("2024-03-01") == Timestamp.parse("2024-02-29")! + 86_400_000)
    }

    @Test func photosGivenAsTextAreDroppedAndTheObservationKept() throws {
        let directory = try TemporaryDirectory()
        let summary = try ingest(observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: #""photos":"n/a""#), in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.salvaged == 1)
        #expect(try records(directory, kind: "obs").first?["photos"] as? [Any] != nil)
        #expect(try findings(directory).map { $0["reason"] as? String } == ["photos is a string, expected an array; dropped photos"])
    }

    @Test func dimensionsGivenAsTextAreDroppedAndThePhotoKept() throws {
        let directory = try TemporaryDirectory()
        let photo = Self.photo70.replacingOccurrences(of: "}", with: #","original_dimensions":"2048x1536"}"#)
        try ingest(observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: "\"photos\":[\(photo)]"), in: directory)
        let kept = try #require(try records(directory, kind: "photo").first)
        #expect(kept["id"] as? Int == 70)
        #expect(kept["width"] is NSNull)
        #expect(try findings(directory).map { $0["path"] as? String } == ["photos[0].original_dimensions"])
    }

    @Test func aPartDeepInARecordIsNamedByItsWholePath() throws {
        // Paths of two, three, four and five parts below the record: each finding names the
        // part dropped, from the record down.
        let directory = try TemporaryDirectory()
        let textDimensions = #","original_dimensions":"2048x1536"}"#
        let link = #"{"id":9001,"position":0,"photo":\#(Self.photo70.replacingOccurrences(of: "}", with: textDimensions))}"#
        let taxon = #"{"id":3,"name":"Aves","rank":"class","default_photo":\#(Self.photo71.replacingOccurrences(of: "}", with: textDimensions)),"#
            + #""taxon_photos":[{"photo":\#(Self.photo71)},{"photo":{"id":72,"url":"https://x/photos/72/square.jpg","original_dimensions":{"width":"wide","height":1}}},{"photo":"none"}]}"#
        let text = observationJSON(id: 1, taxon: nil)
            .replacingOccurrences(of: #""taxon":null"#, with: #""taxon":\#(taxon)"#)
            .replacingOccurrences(of: #""observation_photos":[]"#, with: #""observation_photos":[\#(link)]"#)
        let summary = try ingest(text, in: directory)
        #expect(summary.accepted == 1)
        #expect(try findings(directory).compactMap { $0["reason"] as? String }.sorted() == [
            "observation_photos[0].photo.original_dimensions is a string, expected an object; dropped observation_photos[0].photo.original_dimensions",
            "taxon.default_photo.original_dimensions is a string, expected an object; dropped taxon.default_photo.original_dimensions",
            "taxon.taxon_photos[1].photo.original_dimensions.width is a string, expected an integer; dropped taxon.taxon_photos[1].photo.original_dimensions",
            "taxon.taxon_photos[2].photo is a string, expected an object; dropped taxon.taxon_photos[2]",
        ])
    }

    @Test func aTaxonGivenAsAListIsDroppedAndTheObservationKept() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, taxon: nil).replacingOccurrences(of: #""taxon":null"#, with: #""taxon":[{"id":3,"name":"Aves"}]"#)
        let summary = try ingest(text, in: directory)
        #expect(summary.salvaged == 1)
        #expect(try records(directory, kind: "obs").first?["taxon"] is NSNull)
        #expect(try records(directory, kind: "taxon").isEmpty)
        #expect(try findings(directory).map { $0["reason"] as? String } == ["taxon is an array, expected an object; dropped taxon"])
    }

    @Test func aBrokenObservationPhotosEntryIsDroppedAndTheOtherPhotosKept() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1).replacingOccurrences(
            of: #""observation_photos":[]"#,
            with: #""observation_photos":[{"id":1000,"position":0},"broken",{"id":1002,"position":2,"photo":\#(Self.photo71)}]"#)
        let summary = try ingest(text, in: directory)
        #expect(summary.salvaged == 2)
        #expect(try records(directory, kind: "obs").first?["photos"] as? [[Int]] == [[71, 2]])
        #expect(try findings(directory).map { $0["path"] as? String } == ["observation_photos[0].photo", "observation_photos[1]"])
    }

    @Test func aUserWithoutAnIdIsDroppedAndTheObservationKept() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1).replacingOccurrences(of: #""user":{"id":7,"#, with: #""user":{"#)
        let summary = try ingest(text, in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.salvaged == 1)
        #expect(try records(directory, kind: "obs").first?["user"] is NSNull)
        #expect(try records(directory, kind: "user").isEmpty)
        #expect(try findings(directory).map { $0["reason"] as? String } == ["user.id is missing; dropped user"])
    }

    @Test func aTaxonKeepsItsGoodPhotosWhenItsDefaultPhotoAndATaxonPhotoAreBroken() throws {
        let directory = try TemporaryDirectory()
        let taxon = """
            {"id":3,"name":"Aves","rank":"class","default_photo":{"url":"https://x/photos/1/square.jpg"},\
            "taxon_photos":[{"taxon_id":3,"photo":\(Self.photo70)},{"taxon_id":3},{"taxon_id":3,"photo":\(Self.photo71)}]}
            """
        let summary = try ingest(taxon, in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.salvaged == 2)
        let kept = try #require(try records(directory, kind: "taxon").first)
        #expect(kept["default_photo"] is NSNull)
        #expect(kept["photos"] as? [Int] == [70, 71])
        #expect(try findings(directory).map { $0["path"] as? String } == ["default_photo.id", "taxon_photos[1].photo"])
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func theSummaryLineGivesTheRejectedAndTheSalvagedCounts() throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let directory = try TemporaryDirectory()
        let lines = [
            observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: #""photos":"n/a""#),
            observationJSON(id: "x"),
            observationJSON(id: 2),
        ]
        let input = try directory.write("in.jsonl", lines.joined(separator: "\n") + "\n")
        let result = try run("\(bin)/fieldpack-inat", [
            input, "--output", directory.file("records.jsonl"), "--rejects", directory.file("rejects.jsonl"), "--max-reject-rate", "0.5",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("\(input):1: warning: photos is a string, expected an array; dropped photos\n"))
        #expect(result.stderr.contains("1 files, 2 records accepted, 1 rejected, 1 salvaged (parts dropped, records kept); "), "\(result.stderr)")
    }

    @Test func onlyRejectedRecordsCountAgainstTheThreshold() throws {
        let directory = try TemporaryDirectory()
        // Three of four records lose a part: at a zero threshold the run passes.
        let salvaged = (1...3).map { observationJSON(id: $0).replacingOccurrences(of: #""photos":[]"#, with: #""photos":"n/a""#) }
        let summary = try ingest(page(salvaged + [observationJSON(id: 4)]), in: directory, maxRejectRate: 0)
        #expect(summary.salvaged == 3)
        #expect(summary.rejected == 0)
        #expect(summary.rejectRate == 0)
        // One record without an id among them fails it.
        let error = try #require(throws: FieldpackError.self) {
            try ingest(page(salvaged + [observationJSON(id: "x")]), in: directory, maxRejectRate: 0)
        }
        #expect(error.message.hasPrefix("1 of 4 records rejected (25.0%)"))
    }

    @Test func eachInputRecordCountsItsSalvagedParts() throws {
        let directory = try TemporaryDirectory()
        try ingest(observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: #""photos":"n/a""#), in: directory)
        let input = try #require(try records(directory, kind: "input").first)
        #expect(input["records"] as? Int == 1)
        #expect(input["rejected"] as? Int == 0)
        #expect(input["salvaged"] as? Int == 1)
    }

    @Test func aSalvagedRecordBuildsABundleWithoutTheDroppedPhoto() throws {
        let directory = try TemporaryDirectory()
        let photos = #""photos":[{"id":"bad","url":"https://x/photos/9/square.jpg"},\#(Self.photo70)]"#
        let input = try directory.write("in.json", observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: photos))
        let bundle = try buildBundle(inputs: [input], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT observation_id, photo_id FROM observation_photos") == [["1", "70"]])
    }

    /// The real API pages kept under Fixtures (see its SOURCES.md), as a user would give them.
    static let realPages = [
        "pyinaturalist/v1/get_observation.json", "pyinaturalist/v1/get_observations_by_id.json",
        "pyinaturalist/v1/get_observations_page1.json", "pyinaturalist/v1/get_observations_page2.json",
        "pyinaturalist/v1/get_taxa.json", "pyinaturalist/v1/get_taxa_by_id.json", "pyinaturalist/v2/get_taxa_full.json",
        "pyinaturalist-convert/observations_without_coords.json",
    ]

    @Test(arguments: realPages)
    func aRealAPIPagePassesAtTheDefaultThresholdWithNothingRejected(page: String) throws {
        let directory = try TemporaryDirectory()
        let input = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/inat/\(page)"
        let options = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        let summary = try INatIngest(options: options).run()
        #expect(summary.rejected == 0, "\(summary.findings.map(\.diagnostic))")
        #expect(summary.accepted > 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
    }

    // MARK: Rule 2, Rails-era photos

    @Test func aRailsEraPhotoWithTierURLsAndNoURLIsReadFromItsSquareURL() throws {
        let directory = try TemporaryDirectory()
        let photo = """
            {"id":42,"license_code":"cc-by","square_url":"http://static.inaturalist.org/photos/42/square.JPG?1345",\
            "small_url":"http://static.inaturalist.org/photos/42/small.JPG?1345","medium_url":"http://static.inaturalist.org/photos/42/medium.JPG?1345",\
            "large_url":"http://static.inaturalist.org/photos/42/large.JPG?1345"}
            """
        let summary = try ingest(observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: "\"photos\":[\(photo)]"), in: directory)
        #expect(summary.salvaged == 0)
        let kept = try #require(try records(directory, kind: "photo").first)
        let url = try #require(kept["url"] as? String)
        #expect(url == "http://static.inaturalist.org/photos/42/square.JPG?1345")
        guard case .inaturalist(let parsed) = PhotoURL.classify(url) else {
            Issue.record("\(url) is not an iNaturalist photo URL")
            return
        }
        #expect(parsed.url(.medium) == "https://static.inaturalist.org/photos/42/medium.JPG")
        #expect(parsed.url(.original) == "https://static.inaturalist.org/photos/42/original.JPG")
    }

    @Test func aRailsEraPhotoWithOnlyALargerTierStillDerivesTheOthers() throws {
        let directory = try TemporaryDirectory()
        let photo = #"{"id":43,"license_code":"cc-by","medium_url":"https://static.inaturalist.org/photos/43/medium.jpg"}"#
        try ingest(observationJSON(id: 1).replacingOccurrences(of: #""photos":[]"#, with: "\"photos\":[\(photo)]"), in: directory)
        let url = try #require(try records(directory, kind: "photo").first?["url"] as? String)
        guard case .inaturalist(let parsed) = PhotoURL.classify(url) else {
            Issue.record("\(url) is not an iNaturalist photo URL")
            return
        }
        #expect(parsed.url(.square) == "https://static.inaturalist.org/photos/43/square.jpg")
    }

    // MARK: Rule 4: credits fall back to the login

    @Test(arguments: [
        #""name":"""#, #""name":"   ""#, #""name":"None""#, #""name":null"#, "",
        // Unicode spaces the credit line collapses away: a line separator, NEL, a medium space.
        #""name":"\u2028""#, #""name":"\u0085""#, #""name":" \u205f ""#,
        // Invisible format characters: a zero width space, a byte order mark.
        #""name":"\u200b""#, #""name":"\ufeff\u200b""#,
    ])
    func aBlankOrNoneNameIsStoredAsNullAndThePhotoIsCreditedToTheLogin(name: String) throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, photos: [(70, "cc-by", 800)])
            .replacingOccurrences(of: #""login":"user7","name":null"#, with: #""login":"kestrel_k""# + (name.isEmpty ? "" : ",\(name)"))
        let input = try directory.write("in.json", text)
        let bundle = try buildBundle(inputs: [input], in: directory)
        #expect(try recordLines(directory.file("records.jsonl")).first { $0["k"] as? String == "user" }?["name"] is NSNull)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT id, credit FROM photos") == [["70", "(c) kestrel_k, some rights reserved (CC BY)"]])
    }

    @Test func aNoneAttributionNameFallsBackToTheObserver() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, photos: [(70, "cc-by", 800)])
            .replacingOccurrences(of: #""original_dimensions":"#, with: #""attribution_name":"None","original_dimensions":"#)
        let input = try directory.write("in.json", text)
        let bundle = try buildBundle(inputs: [input], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT credit FROM photos") == [["(c) user7, some rights reserved (CC BY)"]])
    }

    @Test func aRealNameIsCreditedAsItIs() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, photos: [(70, "cc0", 800)])
            .replacingOccurrences(of: #""name":null"#, with: #""name":"Nicolas Noé""#)
        let bundle = try buildBundle(inputs: [try directory.write("in.json", text)], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT credit FROM photos") == [["Nicolas Noé, no rights reserved (CC0)"]])
    }

    // MARK: Rule 5: obscured coordinates

    @Test(arguments: [
        (#""obscured":true"#, true),
        (#""geoprivacy":"obscured""#, true),
        (#""geoprivacy":"private""#, true),
        (#""taxon_geoprivacy":"obscured""#, true),
        (#""taxon_geoprivacy":"private""#, true),
        (#""geoprivacy":"open","obscured":false"#, false),
        (#""geoprivacy":null"#, false),
        // In any case, as licence codes are read (INAT.md lists the values in lower case).
        (#""geoprivacy":"Obscured""#, true),
        (#""geoprivacy":"PRIVATE""#, true),
        (#""taxon_geoprivacy":"Obscured""#, true),
        (#""geoprivacy":"Open","obscured":false"#, false),
        // A privacy field that is there but unusable is dropped, and the point counts as
        // obscured: a private accuracy never ships by mistake.
        (#""obscured":"yes""#, true),
        (#""geoprivacy":["obscured"]"#, true),
        (#""taxon_geoprivacy":1"#, true),
    ])
    func anObscuredObservationShipsItsPublicAccuracyAndTheBundleSaysItIsObscured(fields: String, obscured: Bool) throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, extra: #","positional_accuracy":20,"public_positional_accuracy":28000,"# + fields)
        let bundle = try buildBundle(inputs: [try directory.write("in.json", text)], in: directory)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["positional_accuracy"] as? Int == (obscured ? 28000 : 20))
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT positional_accuracy, coordinates_obscured FROM observations")
            == [[obscured ? "28000" : "20", obscured ? "1" : "0"]])
    }

    @Test func anObscuredObservationWithoutAPublicAccuracyShipsNone() throws {
        let directory = try TemporaryDirectory()
        try ingest(observationJSON(id: 1, extra: #","positional_accuracy":20,"obscured":true"#), in: directory)
        #expect(try records(directory, kind: "obs").first?["positional_accuracy"] is NSNull)
    }

    @Test func theTaxonsGeoprivacyIsKeptInTheBundle() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1, extra: #","taxon_geoprivacy":"obscured""#)
        let bundle = try buildBundle(inputs: [try directory.write("in.json", text)], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT taxon_geoprivacy FROM observations") == [["obscured"]])
    }

    @Test func migratingAnOlderBundleMarksItsObscuredObservationsAndDropsTheirPrivateAccuracy() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("v5.sqlite"))
        try Migrator().migrate(database, to: 5)
        try database.execute("""
            INSERT INTO observations (id, positional_accuracy, obscured, geoprivacy) VALUES
                (1, 20, 1, NULL), (2, 20, 0, 'private'), (3, 20, 0, 'open'), (4, 20, NULL, NULL);
            """)
        try Migrator().migrate(database)
        #expect(try database.rows("SELECT id, positional_accuracy, coordinates_obscured FROM observations ORDER BY id") == [
            ["1", nil, "1"], ["2", nil, "1"], ["3", "20", "0"], ["4", "20", "0"],
        ])
    }

    // MARK: Rule 6: numbers

    @Test(arguments: [
        #""location":"nan,4.25""#,
        #""location":"50.5,inf""#,
        #""location":"0x10,4""#,
        #""location":"91,4.25""#,
        #""location":"50.5,-180.5""#,
        #""location":[50.5,1e300]"#,
        #""geojson":{"type":"Point","coordinates":["nan","50.5"]}"#,
        #""geojson":{"type":"Point","coordinates":["4.25","inf"]}"#,
        #""geojson":{"type":"Point","coordinates":["4.25","-Infinity"]}"#,
        #""geojson":{"type":"Point","coordinates":["181","50.5"]}"#,
        #""geojson":{"type":"Point","coordinates":["4.25","90.0001"]}"#,
        #""geojson":{"type":"Point","coordinates":["east","50.5"]}"#,
        #""geojson":{"type":"Point","coordinates":[4.25,-95]}"#,
    ])
    func aNonFiniteOrOutOfRangeCoordinateIsDroppedAndTheObservationKept(fields: String) throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1).replacingOccurrences(of: #""location":"50.5,4.25""#, with: fields)
        let summary = try ingest(text, in: directory)
        #expect(summary.rejected == 0)
        #expect(summary.salvaged == 1)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["lat"] is NSNull)
        #expect(observation["lng"] is NSNull)
    }

    @Test func bareNaNAndInfinityAsPythonWritesThemAreDroppedFieldByFieldAndTheRecordKept() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 1, extra: #","positional_accuracy":NaN,"place_guess":"NaN, Infinity ]""#)
            .replacingOccurrences(of: #""location":"50.5,4.25""#, with: #""geojson":{"type":"Point","coordinates":[Infinity, 50.5]}"#)
            .replacingOccurrences(of: #""rank_level":10"#, with: #""rank_level":-Infinity"#)
        let summary = try ingest(page([observation, observationJSON(id: 2)]), in: directory)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 0)
        #expect(try findings(directory).map { $0["reason"] as? String } == [
            "taxon.rank_level is -Infinity, expected a finite number; dropped taxon.rank_level",
            "geojson.coordinates is not [lng, lat] within ±180, ±90; dropped geojson.coordinates",
            "positional_accuracy is NaN, expected a finite number; dropped positional_accuracy",
        ])
        let kept = try #require(try records(directory, kind: "obs").first)
        #expect(kept["place_guess"] as? String == "NaN, Infinity ]")
        #expect(kept["positional_accuracy"] is NSNull)
        #expect(try records(directory, kind: "taxon").first?["rank_level"] is NSNull)
    }

    /// One number simdjson cannot hold (`1e400`, an integer past 64 bits) refused the whole
    /// document: a page lost every record, a JSON Lines record all of itself, as "not valid
    /// JSON". The number is dropped as a field, or rejects only a record whose id it is.
    @Test(arguments: [false, true])
    func aNumberOutOfRangeIsDroppedAsAFieldNotTheRecord(lines: Bool) throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 1, photos: [(id: 70, license: "cc-by", width: 800)], extra: #","positional_accuracy":1e400"#)
            .replacingOccurrences(of: #""width":800"#, with: #""width":18446744073709551616"#)
        let huge = observationJSON(id: 2).replacingOccurrences(of: #"{"id":2,"#, with: #"{"id":-100000000000000000000,"#)
        let text = lines ? [observation, huge, observationJSON(id: 3)].joined(separator: "\n") + "\n" : page([observation, huge, observationJSON(id: 3)])
        let summary = try ingest(text, in: directory, maxRejectRate: 1)
        #expect(summary.accepted == 2 && summary.rejected == 1, "\(summary.findings)")
        let reasons = try findings(directory).map { $0["reason"] as? String }
        #expect(reasons == [
            "observation_photos[0].photo.original_dimensions.width is 18446744073709551616, out of range for an integer; dropped observation_photos[0].photo.original_dimensions",
            "positional_accuracy is 1e400, out of range for an integer; dropped positional_accuracy",
            "id is -100000000000000000000, out of range for an integer id",
        ], "\(reasons)")
        #expect(try records(directory, kind: "obs").compactMap { $0["id"] as? Int } == [1, 3])
    }

    @Test func outOfRangeNumbersAreToldFromTheOnesSimdjsonHolds() {
        func length(_ text: String) -> Int? {
            Array(text.utf8).withUnsafeBytes { NonFiniteTokens.outOfRangeNumberLength($0, at: 0) }
        }
        #expect(length("18446744073709551615") == nil && length("18446744073709551616,") == 20)
        #expect(length("-9223372036854775808") == nil && length("-9223372036854775809") == 20)
        #expect(length("1e308") == nil && length("1.8e308}") == 7 && length("-2E+400 ") == 7)
        #expect(length("1e-400") == nil && length("123") == nil && length("1e400x") == nil && length("1.e400") == nil)
    }

    /// What the export's reader drops, an API record shipped: a negative accuracy, an ancestry
    /// that is not ids, a uuid that is not one (two such records failed the bundle's unique
    /// index on uuids). Each is dropped with a finding, the record kept.
    @Test func aNegativeAccuracyABadAncestryAndAUUIDThatIsNotOneAreDroppedAsTheExportsAre() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 1, extra: #","positional_accuracy":-3"#)
            .replacingOccurrences(of: uuidText(for: 1), with: "not-a-uuid")
            .replacingOccurrences(of: #""rank_level":10"#, with: #""rank_level":10,"ancestry":"48460/x/3""#)
        let good = observationJSON(id: 2, extra: #","positional_accuracy":0"#)
            .replacingOccurrences(of: #""rank_level":10"#, with: #""rank_level":10,"ancestry":"48460/1/3""#)
        let summary = try ingest(page([observation, good]), in: directory)
        #expect(summary.accepted == 2 && summary.rejected == 0)
        let reasons = try findings(directory).map { $0["reason"] as? String }
        #expect(reasons == [
            "taxon.ancestry is \"48460/x/3\", expected taxon ids separated by /; dropped taxon.ancestry",
            "uuid is \"not-a-uuid\", expected a uuid (8-4-4-4-12 hexadecimal digits); dropped uuid",
            "positional_accuracy is -3, expected a whole number of metres; dropped positional_accuracy",
        ])
        let observations = try records(directory, kind: "obs")
        #expect(observations.map { $0["uuid"] is NSNull } == [true, false])
        #expect(observations.map { $0["positional_accuracy"] as? Int } == [nil, 0])
        #expect(try records(directory, kind: "taxon").map { $0["ancestry"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "48460/1/3"])
    }

    @Test func aBadLocationFallsBackToGoodGeoJSON() throws {
        let directory = try TemporaryDirectory()
        let text = observationJSON(id: 1).replacingOccurrences(
            of: #""location":"50.5,4.25""#, with: #""location":"nan,nan","geojson":{"type":"Point","coordinates":["4.25","50.5"]}"#)
        let summary = try ingest(text, in: directory)
        #expect(summary.salvaged == 1)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["lat"] as? Double == 50.5)
        #expect(observation["lng"] as? Double == 4.25)
    }

    @Test func aWholeIngestAndDedupeRunSurvivesBadNumbers() throws {
        let directory = try TemporaryDirectory()
        let bad = [
            observationJSON(id: 1).replacingOccurrences(of: #""location":"50.5,4.25""#, with: #""location":"nan,inf""#),
            observationJSON(id: 2).replacingOccurrences(
                of: #""location":"50.5,4.25""#, with: #""geojson":{"type":"Point","coordinates":["inf","-nan"]}"#),
            observationJSON(id: 3).replacingOccurrences(of: #""location":"50.5,4.25""#, with: #""location":"1e999,5""#),
            // Python's json module writes bare NaN and Infinity, which are not JSON.
            observationJSON(id: 4, extra: #","positional_accuracy":NaN"#)
                .replacingOccurrences(of: #""location":"50.5,4.25""#, with: #""location":[NaN,-Infinity]"#),
            observationJSON(id: 5),
        ]
        let input = try directory.write("in.jsonl", bad.joined(separator: "\n") + "\n")
        let summary = try ingestAndDedupe([input], in: directory)
        #expect(summary.records > 0)
        for line in try lines(directory.file("deduped.jsonl")) {
            #expect(!line.contains("nan") && !line.contains("inf") && !line.contains("Infinity"), "\(line)")
            _ = try JSONSerialization.jsonObject(with: Data(line.utf8))
        }
        let observations = try recordLines(directory.file("deduped.jsonl"), deduped: true).filter { $0["k"] as? String == "obs" }
        #expect(observations.map { $0["id"] as? Int } == [1, 2, 3, 4, 5])
        #expect(observations.map { $0["lat"] is NSNull } == [true, true, true, true, false])
    }
}

/// Ingests `inputs` into `directory` with no reject limit, for the suites below that count what
/// is kept and rejected.
private func ingestKeepingEveryRecord(_ inputs: [String], in directory: TemporaryDirectory) throws -> INatIngest.Summary {
    var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
    options.maxRejectRate = 1
    return try INatIngest(options: options).run()
}

/// One string's bad text (bytes that are not UTF-8, an unpaired surrogate escape) no longer
/// costs its record: the text is repaired to U+FFFD and the record kept, with a salvaged
/// finding. simdjson refused the whole record, as "not valid JSON".
@Suite struct TextRepairIngestTests {
    @Test func aRecordWithTextThatIsNotUTF8OrALoneSurrogateIsKeptRepaired() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array((observationJSON(id: 1) + "\n").utf8)
        bytes += Array(observationJSON(id: 2, extra: ",\"place_guess\":\"Li\u{E8}ge\"").utf8).map { $0 == 0xC3 ? 0xFF : $0 }.filter { $0 != 0xA8 }
        bytes += Array(("\n" + observationJSON(id: 3, extra: ",\"place_guess\":\"bad\\udc80surrogate\"") + "\n").utf8)
        let path = directory.file("pages.jsonl")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 3 && summary.rejected == 0, "\(summary.findings)")
        let repaired = summary.findings.filter { $0.reason == TextRepair.reason }
        #expect(repaired.map(\.line) == [2, 3] && repaired.allSatisfy { $0.outcome == .salvaged })
        let places = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }.compactMap { $0["place_guess"] as? String }
        #expect(places.sorted() == ["Li\u{FFFD}ge", "bad\u{FFFD}surrogate"], "\(places)")
    }

    /// A control character left raw inside a string (a tab pasted into a place name by a writer
    /// other than the API; JSON forbids it) cost the whole record as "not valid JSON": it is
    /// escaped, the record kept with the character in its text, and said so. In a pretty-printed
    /// page, a raw line feed inside a string too.
    @Test func aRawControlCharacterInsideAStringKeepsItsRecord() throws {
        let directory = try TemporaryDirectory()
        let lines = observationJSON(id: 1) + "\n" + observationJSON(id: 2, extra: ",\"place_guess\":\"Zwin\tKnokke\u{7}\"") + "\n"
        let path = try directory.write("pages.jsonl", lines)
        let document = try directory.write("page.json", page([observationJSON(id: 3, extra: ",\"description\":\"first line\nsecond\"")]))
        let summary = try ingestKeepingEveryRecord([path, document], in: directory)
        #expect(summary.accepted == 3 && summary.rejected == 0, "\(summary.findings)")
        #expect(summary.findings.filter { $0.reason == TextRepair.reason && $0.outcome == .salvaged }.count == 2, "\(summary.findings)")
        let records = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }
        #expect(records.compactMap { $0["place_guess"] as? String } == ["Zwin\tKnokke\u{7}"])
    }

    /// An escaped NUL parsed as text and shipped: `ab\u0000cd` in `users.login`, a taxon named
    /// "Danaus" for C-string readers. It is U+FFFD, as a raw NUL is, with the same finding.
    @Test func anEscapedNULIsReplacedAsARawOneIs() throws {
        let directory = try TemporaryDirectory()
        let record = observationJSON(id: 1, extra: ",\"place_guess\":\"Li\\u0000ge\"")
            .replacingOccurrences(of: "\"login\":\"user7\"", with: "\"login\":\"ab\\u0000cd\"")
            .replacingOccurrences(of: "\"name\":\"Danaus plexippus\"", with: "\"name\":\"Danaus\\u0000 plexippus\"")
        let path = try directory.write("pages.jsonl", observationJSON(id: 2) + "\n" + record + "\n")
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 2 && summary.rejected == 0, "\(summary.findings)")
        let repaired = summary.findings.filter { $0.reason == TextRepair.reason }
        #expect(repaired.map(\.line) == [2] && repaired.allSatisfy { $0.outcome == .salvaged }, "\(summary.findings)")
        let lines = try recordLines(directory.file("records.jsonl"))
        #expect(lines.compactMap { $0["place_guess"] as? String }.sorted() == ["Li\u{FFFD}ge"])
        #expect(lines.compactMap { $0["login"] as? String }.sorted() == ["ab\u{FFFD}cd", "user7"])
        #expect(Set(lines.filter { $0["k"] as? String == "taxon" }.compactMap { $0["name"] as? String }) == ["Danaus plexippus", "Danaus\u{FFFD} plexippus"])
        #expect(!(try String(contentsOfFile: directory.file("records.jsonl"), encoding: .utf8)).contains("\\u0000"))
    }

    @Test func aPageWithTextThatIsNotUTF8KeepsEveryRecord() throws {
        let directory = try TemporaryDirectory()
        let text = page([observationJSON(id: 1), observationJSON(id: 2, extra: ",\"place_guess\":\"Li\u{E8}ge\"")])
        let bytes = Array(text.utf8).map { $0 == 0xC3 ? 0xFF : $0 }.filter { $0 != 0xA8 }
        let path = directory.file("page.json")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 2 && summary.rejected == 0, "\(summary.findings)")
        #expect(summary.findings.contains { $0.reason == TextRepair.reason && $0.outcome == .salvaged && $0.path == path })
    }

    @Test func aDocumentBrokenOtherwiseIsNotRepaired() {
        #expect(Array(#"{"a": "fine"}"#.utf8).withUnsafeBytes { TextRepair.repaired($0) } == nil)
        #expect(Array(#"{"a": "\ud83d\ude00 pair", "b": "\\udc80 escaped backslash"}"#.utf8).withUnsafeBytes { TextRepair.repaired($0) } == nil)
    }
}

/// API pages saved one per line (`curl … >> pages.jsonl`) are JSON Lines whose lines are pages:
/// their results are the records. The file was refused whole as "valid JSON, but not an
/// iNaturalist shape" (its lines were taken for records with the keys of a page).
@Suite struct PagesPerLineTests {
    @Test func aJSONLinesFileOfAPIPagesIngestsEveryPagesResults() throws {
        let directory = try TemporaryDirectory()
        func compact(_ ids: [Int]) -> String { page(ids.map { observationJSON(id: $0) }).replacingOccurrences(of: "\n", with: "") }
        let text = [compact([1, 2]), compact([3]), #"{"total_results": 1, "page": 3, "results": "none"}"#].joined(separator: "\n") + "\n"
        let path = try directory.write("pages.jsonl", text)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 3 && summary.rejected == 1, "\(summary.findings)")
        let ids = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }.compactMap { $0["id"] as? Int }
        #expect(ids.sorted() == [1, 2, 3])
        #expect(summary.findings.contains { $0.line == 3 && $0.outcome == .rejected && $0.reason == "results is a string, expected an array" }, "\(summary.findings)")
    }

    /// A page giving `results` twice lost the second list's records without a word (the first
    /// was read); which list is the page's cannot be told, so the page is rejected, saying so.
    @Test func aPageGivingResultsTwiceIsRejectedNotReadInPart() throws {
        let directory = try TemporaryDirectory()
        func compact(_ ids: [Int]) -> String { page(ids.map { observationJSON(id: $0) }).replacingOccurrences(of: "\n", with: "") }
        let twice = "{\"total_results\": 2, \"results\": [\(observationJSON(id: 5).replacingOccurrences(of: "\n", with: ""))], "
            + "\"results\": [\(observationJSON(id: 6).replacingOccurrences(of: "\n", with: ""))]}"
        let path = try directory.write("pages.jsonl", [compact([1]), twice].joined(separator: "\n") + "\n")
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 1 && summary.rejected == 1, "\(summary.findings)")
        #expect(summary.findings.contains {
            $0.line == 2 && $0.outcome == .rejected && $0.reason == "the page gives \"results\" 2 times: which list holds its records would be a guess"
        }, "\(summary.findings)")
    }

    /// Real pages saved one per line are several MiB each: a first line longer than the MiB the
    /// format is told from made the file one document, held whole, past whose limit the stage
    /// failed. Read on to the first line's end, it is JSON Lines, each line a page, and the
    /// same whatever file a worker read before (a grown buffer once showed it more of the head).
    @Test func pagesOfSeveralMiBOnePerLineAreJSONLinesWhateverTheWorkers() throws {
        let directory = try TemporaryDirectory()
        let text = String(repeating: "Lepidoptera seen along the dike at low tide. ", count: 400)
        func compact(_ ids: ClosedRange<Int>) -> String {
            page(ids.map { observationJSON(id: $0, extra: ",\"description\":\"\(text)\"") }).replacingOccurrences(of: "\n", with: "")
        }
        let pageLines = [compact(1...80), compact(81...160), compact(161...240)]
        #expect(pageLines.allSatisfy { $0.utf8.count > 1 << 20 && $0.utf8.count < 2 << 20 })
        let pages = try directory.write("pages.jsonl", pageLines.joined(separator: "\n") + "\n")
        // A page of 3 MiB on one line before it, so that a worker's buffer has grown.
        let big = try directory.write("big.json", compact(1001...1160))
        func run(workers: Int) throws -> [String] {
            let out = try TemporaryDirectory()
            var options = INatIngest.Options(inputs: [big, pages], output: out.file("records.jsonl"), rejects: out.file("rejects.jsonl"))
            options.maxDocumentBytes = 4 << 20
            options.workers = workers
            options.filesPerChunk = 1
            try INatIngest(options: options).run()
            return try lines(out.file("records.jsonl"))
        }
        let one = try run(workers: 1)
        let input = try #require(one.first { $0.hasPrefix("[\"input\"") && $0.contains("pages.jsonl") })
        #expect(input.contains("\"json-lines\""), "\(input)")
        #expect(one.filter { $0.hasPrefix("[\"obs\"") }.count == 400)
        #expect(try run(workers: 2) == one)
    }

    /// Pages past the last, one per line, hold no records: notices, not a rejected file.
    @Test func emptyPagesOnePerLineAreNotARejectedFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("pages.jsonl", "{\"total_results\":0,\"page\":1,\"results\":[]}\n{\"total_results\":0,\"page\":2,\"results\":[]}\n")
        var options = INatIngest.Options(inputs: [path, try directory.write("one.json", page([observationJSON(id: 1)]))],
                                         output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 0.01
        let summary = try INatIngest(options: options).run()
        #expect(summary.rejected == 0 && summary.findings.filter { $0.path == path && $0.outcome == .notice }.count == 2, "\(summary.findings)")
    }
}

/// NUL bytes in a JSON Lines file (a crash leaves runs of them) are damage inside JSON, not a
/// sign the file is binary: the line holding a run of them is rejected by its number, and a NUL
/// inside a string is repaired with the record kept. One NUL refused the whole file as "binary
/// data", with every record lost.
@Suite struct NULBytesInJSONTests {
    @Test func aJSONLinesFileWithNULBytesKeepsEveryRecordItCan() throws {
        let directory = try TemporaryDirectory()
        var bytes: [UInt8] = []
        for id in 1...10 {
            let extra = id == 4 ? ",\"place_guess\":\"a\u{0}b\"" : ""
            bytes += Array((observationJSON(id: id, extra: extra) + "\n").utf8)
            if id == 6 { bytes += [UInt8](repeating: 0, count: 200) + [0x0A] }
        }
        let path = directory.file("pages.jsonl")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 10 && summary.rejected == 1, "\(summary.findings)")
        #expect(summary.findings.contains { $0.line == 7 && $0.outcome == .rejected }, "\(summary.findings)")
        #expect(summary.findings.contains { $0.line == 4 && $0.outcome == .salvaged && $0.reason == TextRepair.reason })
    }
}

/// An element simdjson refuses on its own (an id past 2^64) is one rejection, with its reason:
/// the page also got "malformed after its results array", one rejection too many, and the
/// element's finding said only "not valid JSON" (since 2026-12-06 the id is named).
@Suite struct RefusedElementTests {
    @Test func anElementRefusedOnItsOwnIsOneRejectionWithItsReason() throws {
        let directory = try TemporaryDirectory()
        let text = page([observationJSON(id: 1), observationJSON(id: 2).replacingOccurrences(of: "{\"id\":2,", with: "{\"id\":99999999999999999999,"), observationJSON(id: 3)])
        let path = try directory.write("page.json", text)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 2 && summary.rejected == 1, "\(summary.findings)")
        let rejected = try #require(summary.findings.first { $0.outcome == .rejected })
        #expect(rejected.record == "results[1]" && rejected.reason == "id is 99999999999999999999, out of range for an integer id", "\(rejected)")
    }
}

/// Fields that were kept as written whatever they held: a time that is not one and a zone
/// offset of +99:00 (each now dropped with a finding), and a timestamp where a date belongs (its
/// date kept).
@Suite struct CheckedFieldTests {
    @Test(arguments: [
        ("\"time_observed_at\":\"2024-06-12T99:99:99Z\"", "time_observed_at", "time_observed_at \"2024-06-12T99:99:99Z\" is not an ISO 8601 timestamp"),
        ("\"created_at\":\"2024-06-12T10:00:00+99:00\"", "created_at", "created_at \"2024-06-12T10:00:00+99:00\" is not an ISO 8601 timestamp"),
        // A grade a quality_grades rule would have removed without a word.
        ("\"quality_grade\":\"RESEARCH\"", "quality_grade", "quality_grade \"RESEARCH\" is not research, needs_id or casual"),
    ])
    func aFieldThatIsNotWhatItsNameSaysIsDroppedWithAFinding(field: String, column: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let key = field.split(separator: ":")[0]
        let record = observationJSON(id: 30).replacingOccurrences(of: "\(key):\"", with: "\"_was\(key.dropFirst()):\"")
            .replacingOccurrences(of: "{\"id\":30,", with: "{\"id\":30,\(field),")
        let path = try directory.write("page.json", page([record]))
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.findings.contains { $0.outcome == .salvaged && $0.reason.hasPrefix(reason) }, "\(summary.findings)")
        let observation = try #require(try recordLines(directory.file("records.jsonl")).first { $0["k"] as? String == "obs" })
        #expect(observation[column] is NSNull, "\(observation)")
    }

    @Test func aTimestampWhereADateBelongsKeepsItsDate() throws {
        let directory = try TemporaryDirectory()
        let record = observationJSON(id: 31).replacingOccurrences(of: "\"observed_on\":\"2024-04-30\"", with: "\"observed_on\":\"2024-06-30T10:00:00Z\"")
        let path = try directory.write("page.json", page([record]))
        try ingestKeepingEveryRecord([path], in: directory)
        let observation = try #require(try recordLines(directory.file("records.jsonl")).first { $0["k"] as? String == "obs" })
        #expect(observation["observed_on"] as? String == "2024-06-30")
    }
}

/// Two pages written one after the other (`cat page-1.json page-2.json > pages.json`) are read
/// as two documents: the second page's records were lost as one rejection ("malformed after its
/// results array"). A finding in the second page names its line in the file.
@Suite struct ConcatenatedPagesTests {
    @Test func pagesWrittenOneAfterAnotherAreEachRead() throws {
        let directory = try TemporaryDirectory()
        let first = page([observationJSON(id: 1), observationJSON(id: 2)])
        let second = page([observationJSON(id: 3), observationJSON(id: "x")])
        let path = try directory.write("pages.json", first + second)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 3 && summary.rejected == 1, "\(summary.findings)")
        let ids = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }.compactMap { $0["id"] as? Int }
        #expect(ids.sorted() == [1, 2, 3])
        let rejected = try #require(summary.findings.first { $0.outcome == .rejected })
        let lineOfX = (first + second).split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("\"id\":\"x\"") }! + 1
        #expect(rejected.record == "results[1]" && rejected.line == lineOfX, "\(rejected)")
    }

    /// The last page cut short (an interrupted `curl >> pages.json`), or NUL bytes after the
    /// last page: every page before keeps its records, the cut one its complete records. The
    /// whole file was salvaged as one page, which kept the first page alone.
    @Test(arguments: ["cut", "nul"])
    func pagesWrittenOneAfterAnotherWithTheLastCutKeepEveryCompleteRecord(damage: String) throws {
        let directory = try TemporaryDirectory()
        let first = page([observationJSON(id: 1), observationJSON(id: 2)])
        let second = page([observationJSON(id: 3)])
        let third = page([observationJSON(id: 4), observationJSON(id: 5)])
        let tail = damage == "cut" ? String(third.prefix(third.count * 3 / 4)) : third + String(repeating: "\u{0}", count: 64)
        let path = try directory.write("pages.json", first + second + tail)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        let ids = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }.compactMap { $0["id"] as? Int }
        #expect(ids.sorted() == (damage == "cut" ? [1, 2, 3, 4] : [1, 2, 3, 4, 5]), "\(summary.findings)")
        #expect(summary.rejected == 1, "\(summary.findings)")
    }

    /// A page whose lines end in a carriage return alone (old Mac text): a finding names the
    /// line as the file counts them, not line 1.
    @Test func aFindingInAPageWithOldMacLineEndsNamesItsLine() throws {
        let directory = try TemporaryDirectory()
        let text = page([observationJSON(id: 1), observationJSON(id: 2), observationJSON(id: "x")]).replacingOccurrences(of: "\n", with: "\r")
        #expect(!text.contains("\n"))
        let path = try directory.write("page.json", text)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        let rejected = try #require(summary.findings.first { $0.outcome == .rejected })
        let lineOfX = text.split(separator: "\r", omittingEmptySubsequences: false).firstIndex { $0.contains("\"id\":\"x\"") }! + 1
        #expect(lineOfX > 1)
        #expect(rejected.record == "results[2]" && rejected.line == lineOfX, "\(rejected)")
    }

    /// One of the pages holding an id past 2^64 keeps its other records.
    @Test func aPageOfSeveralThatDoesNotParseKeepsItsOtherRecords() throws {
        let directory = try TemporaryDirectory()
        let first = page([observationJSON(id: 1)])
        let second = page([observationJSON(id: 2), observationJSON(id: 3).replacingOccurrences(of: "{\"id\":3,", with: "{\"id\":99999999999999999999,")])
        let path = try directory.write("pages.json", first + second)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 2 && summary.rejected == 1, "\(summary.findings)")
    }
}

/// A page on one line of JSON Lines that does not parse keeps its complete records, as a page
/// in a file of its own does: the line was one rejection for every record of the page.
@Suite struct DamagedPageLineTests {
    @Test func aPageLineCutShortKeepsItsCompleteRecords() throws {
        let directory = try TemporaryDirectory()
        func compact(_ ids: [Int]) -> String { page(ids.map { observationJSON(id: $0) }).replacingOccurrences(of: "\n", with: "") }
        let second = compact([4, 5, 6])
        let cut = String(second.prefix(second.count * 5 / 6))
        let path = try directory.write("pages.jsonl", compact([1, 2, 3]) + "\n" + cut)
        let summary = try ingestKeepingEveryRecord([path], in: directory)
        #expect(summary.accepted == 5 && summary.rejected == 1, "\(summary.findings)")
        let rejected = try #require(summary.findings.first { $0.outcome == .rejected })
        #expect(rejected.line == 2 && rejected.record == "results[2]", "\(rejected)")
        #expect(rejected.reason.contains("kept the 2 complete records before it"), "\(rejected)")
    }
}
