@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The photo shipping rules as the bundle applies them: what may ship, credits, URLs, hero photos,
/// costs per photo and target, and the report.
@Suite struct PhotoShippingTests {
    private func policy(budget: Int = 50 << 20) -> ShippingPolicy {
        var policy = ShippingPolicy()
        policy.targets = [
            DisplayTarget(name: "map-pin", width: 20, height: 20, scale: 3, mode: .fill),
            DisplayTarget(name: "list-cell", width: 60, height: 60, scale: 3, mode: .fill),
            DisplayTarget(name: "detail", width: 390, height: 260, scale: 3, mode: .fit),
        ]
        policy.memoryBudget = budget
        return policy
    }

    /// Builds a bundle from API pages; returns it opened read-only and the costs report.
    private func bundle(_ pages: [String], policy: ShippingPolicy? = nil, in directory: TemporaryDirectory) throws
        -> (Database, [String: Any])
    {
        let inputs = try pages.enumerated().map { try directory.write("in-\($0.offset).json", $0.element) }
        let published = try buildBundle(inputs: inputs, in: directory, policy: policy ?? self.policy())
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json"))))
        return (try Database(path: "\(published)/content.sqlite", mode: .immutable), report as! [String: Any])
    }

    /// A photo object as the API writes it.
    private func photoJSON(_ id: Int, license: String?, url: String? = nil, width: Int? = 1000, name: String? = nil) -> String {
        let license = license.map { "\"\($0)\"" } ?? "null"
        let url = url ?? "https://inaturalist-open-data.s3.amazonaws.com/photos/\(id)/square.jpg"
        let dimensions = width.map { "{\"width\":\($0),\"height\":\($0 * 3 / 4)}" } ?? "null"
        let name = name.map { ",\"attribution_name\":\"\($0)\"" } ?? ""
        return "{\"id\":\(id),\"license_code\":\(license),\"url\":\"\(url)\",\"attribution\":\"(c) someone\",\"original_dimensions\":\(dimensions)\(name)}"
    }

    /// A taxa page holding one taxon with its default and taxon photos (credited to a named photographer).
    private func taxonPage(_ id: Int, default photo: (Int, String?)?, photos: [(Int, String?)]) -> String {
        let defaultPhoto = photo.map { ",\"default_photo\":" + photoJSON($0.0, license: $0.1, name: "Ann Lee") } ?? ""
        let taxonPhotos = photos.map { "{\"taxon_id\":\(id),\"photo\":\(photoJSON($0.0, license: $0.1, name: "Ann Lee"))}" }
        return page(["{\"id\":\(id),\"name\":\"Taxon \(id)\",\"rank\":\"species\",\"rank_level\":10\(defaultPhoto),\"taxon_photos\":[\(taxonPhotos.joined(separator: ","))]}"])
    }

    /// An observation whose photos are given as API photo objects.
    private func observation(_ id: Int, taxon: Int = 48662, user: Int = 7, updatedAt: String = "2024-05-01T10:00:00+00:00",
                             quality: String = "research", photos: [String]) -> String {
        let links = photos.enumerated().map { "{\"id\":\($0.offset + 1000),\"position\":\($0.offset),\"photo\":\($0.element)}" }
        return observationJSON(id: id, updatedAt: updatedAt, quality: quality, taxon: taxon, user: user)
            .replacingOccurrences(of: "\"photos\":[]", with: "\"photos\":[\(photos.joined(separator: ","))]")
            .replacingOccurrences(of: "\"observation_photos\":[]", with: "\"observation_photos\":[\(links.joined(separator: ","))]")
    }

    @Test func onlyAllowedLicencesShipAndTheirCreditComesFromTheObserver() throws {
        let directory = try TemporaryDirectory()
        let named = observationJSON(id: 1, user: 7, photos: [(10, "cc-by", 2048), (11, "cc-by-nc", 2048), (12, nil, 2048), (13, "CC0", 800)])
            .replacingOccurrences(of: "\"name\":null", with: "\"name\":\"Zoë  Brontë\\n\"")
        let (database, report) = try bundle([page([named])], in: directory)
        #expect(try database.rows("SELECT id, license, credit FROM photos ORDER BY id") == [
            ["10", "cc-by", "(c) Zoë Brontë, some rights reserved (CC BY)"],
            ["13", "cc0", "Zoë Brontë, no rights reserved (CC0)"],
        ])
        // The API's own string is kept beside the built credit.
        #expect(try database.scalar("SELECT attribution FROM photos WHERE id = 10") == "(c) u, some rights reserved")
        #expect(try database.rows("SELECT photo_id FROM observation_photos ORDER BY photo_id") == [["10"], ["13"]])
        #expect(report["photos"] as? Int == 4)
        #expect(report["shipped"] as? Int == 2)
        #expect(report["excluded"] as? [String: Int] == ["license:cc-by-nc": 1, "license:all-rights-reserved": 1])
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'photos.excluded'")
                == #"{"license:all-rights-reserved":1,"license:cc-by-nc":1}"#)
    }

    @Test func aPipelineMayOptInToNonCommercialLicences() throws {
        let directory = try TemporaryDirectory()
        var policy = policy()
        policy.licenses.insert(.ccByNc)
        let (database, _) = try bundle([page([observationJSON(id: 1, photos: [(10, "cc-by-nc", 800), (11, "cc-by-nd", 800)])])],
                                       policy: policy, in: directory)
        #expect(try database.rows("SELECT id, credit FROM photos") == [["10", "(c) user7, some rights reserved (CC BY-NC)"]])
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'photos.licenses_allowed'")
                == "cc-by,cc-by-nc,cc-by-sa,cc0,pd")
    }

    @Test func everyTierURLComesFromTheTemplateWithTheExtensionKeptAndTheQueryDropped() throws {
        let directory = try TemporaryDirectory()
        let photos = [
            photoJSON(10, license: "cc-by", url: "https://inaturalist-open-data.s3.amazonaws.com/photos/10/medium.jpeg?1700000000"),
            photoJSON(11, license: "cc-by", url: "http://static.inaturalist.org/photos/11/square.JPG"),
            photoJSON(12, license: "cc-by", url: "https://static.inaturalist.org/photos/12/square.?1700000000"),
            photoJSON(13, license: "cc-by", url: "http://farm1.staticflickr.com/1/13_abc.jpg"),
        ]
        let (database, report) = try bundle([page([observation(1, photos: photos)])], in: directory)
        #expect(try database.rows("SELECT id, url, url_template FROM photos ORDER BY id") == [
            ["10", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/medium.jpeg",
             "https://inaturalist-open-data.s3.amazonaws.com/photos/10/{size}.jpeg"],
            ["11", "https://static.inaturalist.org/photos/11/square.JPG", "https://static.inaturalist.org/photos/11/{size}.JPG"],
            ["12", "https://static.inaturalist.org/photos/12/square.", "https://static.inaturalist.org/photos/12/{size}."],
        ])
        #expect(try database.rows("SELECT tier, url FROM photo_urls WHERE photo_id = 10 ORDER BY tier") == [
            ["large", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/large.jpeg"],
            ["medium", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/medium.jpeg"],
            ["original", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/original.jpeg"],
            ["small", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/small.jpeg"],
            ["square", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/square.jpeg"],
            ["thumb", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/thumb.jpeg"],
        ])
        // A third-party photo over plain http is not upgraded: it does not ship, and is counted.
        #expect(report["excluded"] as? [String: Int] == ["url:remote photo URL is not https": 1])
    }

    @Test func theStoredTemplateIsTheOneTheURLParserDerives() throws {
        // url_template is computed by SQLite from url; it must agree with PhotoURL everywhere.
        let directory = try TemporaryDirectory()
        let folder = "\(repositoryRoot)/sample-data/inat"
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        var policy = try samplePolicy()
        policy.licenses = Set(License.allCases)
        let published = try buildBundle(inputs: inputs, in: directory, policy: policy)
        let database = try Database(path: "\(published)/content.sqlite", mode: .immutable)
        let rows = try database.rows("SELECT url, url_template FROM photos WHERE remote = 0")
        #expect(rows.count > 20)
        for row in rows {
            guard case .inaturalist(let url) = PhotoURL.classify(row[0]!) else {
                Issue.record("\(row[0]!) is not an iNaturalist photo URL")
                continue
            }
            #expect(row[1] == url.template)
        }
    }

    @Test func aURLNamingAnotherPhotoDoesNotShip() throws {
        let directory = try TemporaryDirectory()
        let wrong = photoJSON(10, license: "cc-by", url: "https://static.inaturalist.org/photos/11/square.jpg")
        let (database, report) = try bundle([page([observation(1, photos: [wrong])])], in: directory)
        #expect(try database.int("SELECT count(*) FROM photos") == 0)
        #expect(report["excluded"] as? [String: Int] == ["url:URL names another photo": 1])
    }

    @Test func placeholdersAndUncreditedPhotosNeverShip() throws {
        let directory = try TemporaryDirectory()
        let photos = PlaceholderKind.allCases.enumerated().map { index, kind in
            photoJSON(10 + index, license: "cc-by", url: "https://static.inaturalist.org/assets/\(kind.rawValue)-square.png")
        }
        // A taxon's default photo with no attribution_name, in no observation: nobody to credit.
        let uncredited = page(["{\"id\":500,\"name\":\"Taxon 500\",\"rank\":\"species\",\"default_photo\":\(photoJSON(77, license: "cc0"))}"])
        let (database, report) = try bundle([page([observation(1, photos: photos)]), uncredited], in: directory)
        #expect(try database.int("SELECT count(*) FROM photos") == 0)
        #expect(try database.rows("SELECT default_photo_id, hero_photo_id FROM taxa WHERE id = 500") == [[nil, nil]])
        #expect(report["excluded"] as? [String: Int] == [
            "placeholder:copyright-infringement": 1, "placeholder:artificially-generated-content": 1,
            "placeholder:media-hidden": 1, "placeholder:attachment_defaults": 1, "no-credit": 1,
        ])
    }

    /// A hosted URL naming its scheme's own port ships without it, its template at the right
    /// place (stored as given, the template's size token fell inside the port's text).
    @Test func aHostedURLWithItsSchemesPortShipsWithoutIt() throws {
        let directory = try TemporaryDirectory()
        let photo = photoJSON(525, license: "cc-by", url: "https://static.inaturalist.org:443/photos/525/square.jpg")
        let (database, _) = try bundle([page([observation(1, photos: [photo])])], in: directory)
        #expect(try database.rows("SELECT remote, url, url_template FROM photos") == [
            ["0", "https://static.inaturalist.org/photos/525/square.jpg", "https://static.inaturalist.org/photos/525/{size}.jpg"],
        ])
    }

    @Test func remotePhotosKeepTheirURLAndSayTheirSizeIsAssumed() throws {
        let directory = try TemporaryDirectory()
        let flickr = photoJSON(10, license: "cc-by-sa", url: "https://live.staticflickr.com/65535/10_abc_b.jpg", width: nil)
        let (database, report) = try bundle([page([observation(1, photos: [flickr])])], in: directory)
        #expect(try database.rows("SELECT remote, url, url_template, width FROM photos") == [
            ["1", "https://live.staticflickr.com/65535/10_abc_b.jpg", nil, nil],
        ])
        #expect(try database.rows("SELECT tier, url FROM photo_urls") == [[nil, "https://live.staticflickr.com/65535/10_abc_b.jpg"]])
        // Its own URL is the only size; the assumed 2048 × 1536 original stands in, flagged.
        #expect(try database.rows("""
            SELECT target, tier, url, served_width, served_height, upscaled, assumed_dimensions FROM photo_costs ORDER BY target_id
            """) == [
            ["map-pin", nil, "https://live.staticflickr.com/65535/10_abc_b.jpg", "2048", "1536", "0", "1"],
            ["list-cell", nil, "https://live.staticflickr.com/65535/10_abc_b.jpg", "2048", "1536", "0", "1"],
            ["detail", nil, "https://live.staticflickr.com/65535/10_abc_b.jpg", "2048", "1536", "0", "1"],
        ])
        #expect(report["remote"] as? Int == 1)
        #expect(report["assumed_dimensions"] as? Int == 1)
    }

    @Test func theWorkedExamplesHoldForEveryPhotoOfThatSize() throws {
        let directory = try TemporaryDirectory()
        let (database, _) = try bundle([page([observationJSON(id: 1, photos: [(10, "cc-by", 2048), (11, "cc0", 2048)])])], in: directory)
        let expected: [[String?]] = [
            ["map-pin", "square", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/square.jpg", "75", "75", "60", "60", "15360"],
            ["list-cell", "small", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/small.jpg", "240", "180", "180", "180", "138240"],
            ["detail", "original", "https://inaturalist-open-data.s3.amazonaws.com/photos/10/original.jpg", "2048", "1536", "1040", "780", "3244800"],
        ]
        #expect(try database.rows("""
            SELECT target, tier, url, served_width, served_height, display_width, display_height, decoded_bytes
            FROM photo_costs WHERE photo_id = 10 ORDER BY target_id
            """) == expected)
        // Both photos share one size class: one stored cost row per target, a view row per photo.
        #expect(try database.int("SELECT count(*) FROM size_costs") == 3)
        #expect(try database.int("SELECT count(*) FROM photo_costs") == 6)
        // The transient cost is the decoded download: 2048 × 4 bytes × 1536 rows.
        #expect(try database.int("SELECT transient_bytes FROM photo_costs WHERE photo_id = 11 AND target = 'detail'") == 12_582_912)
    }

    @Test func heroPhotosFallBackFromDefaultToTaxonPhotosToNewestResearchGradeObservation() throws {
        let directory = try TemporaryDirectory()
        let pages = [
            taxonPage(1001, default: (101, "cc-by"), photos: [(102, "cc0")]),
            taxonPage(1002, default: (201, "cc-by-nc"), photos: [(202, "cc-by-nd"), (203, "cc-by"), (204, "cc0")]),
            taxonPage(1003, default: (301, "cc-by-nc"), photos: []),
            taxonPage(1004, default: nil, photos: [(401, nil)]),
            page([
                // Taxon 1003: 10:00Z (written +02:00) is older than 11:00Z, whatever the text says.
                observation(1, taxon: 1003, updatedAt: "2024-05-01T12:00:00+02:00", photos: [photoJSON(31, license: "cc-by")]),
                observation(2, taxon: 1003, updatedAt: "2024-05-01T11:00:00+00:00",
                            photos: [photoJSON(33, license: "cc-by-nc"), photoJSON(32, license: "cc-by")]),
                observation(3, taxon: 1003, updatedAt: "2024-06-01T00:00:00+00:00", quality: "needs_id",
                            photos: [photoJSON(34, license: "cc-by")]),
            ]),
        ]
        let (database, _) = try bundle(pages, in: directory)
        #expect(try database.rows("SELECT id, default_photo_id, hero_photo_id FROM taxa WHERE id > 1000 ORDER BY id") == [
            ["1001", "101", "101"],
            ["1002", nil, "203"],
            ["1003", nil, "32"],
            ["1004", nil, nil],
        ])
        // Excluded taxon photos leave no row; the kept ones keep their positions.
        #expect(try database.rows("SELECT position, photo_id FROM taxon_photos WHERE taxon_id = 1002 ORDER BY position")
                == [["1", "203"], ["2", "204"]])
    }

    @Test func measuredSizesReplaceTheDownloadFiguresOfTheirTiersAndTheFitIsReported() throws {
        let directory = try TemporaryDirectory()
        var policy = policy()
        // Photo 10 is 1000 × 750: small is 240 × 180 (43,200 px), large is the original (750,000 px).
        policy.measuredSizes = try directory.write("sizes.csv", """
            photo_id,tier,bytes
            10,small,17280
            11,small,15552
            10,large,120000

            """)
        let (database, report) = try bundle([page([observationJSON(id: 1, photos: [(10, "cc-by", 1000), (11, "cc-by", 1000)])])],
                                            policy: policy, in: directory)
        let model = try #require(report["model"] as? [String: Any])
        let fits = try #require(model["measured_fit"] as? [[String: Any]])
        #expect(fits.map { $0["tier"] as? String } == ["small", "large"])
        #expect(fits.map { $0["samples"] as? Int } == [2, 1])
        #expect((fits[0]["bytes_per_pixel"] as? Double).map { abs($0 - 0.38) < 0.0001 } == true)
        #expect((fits[0]["mean_absolute_percentage_error"] as? Double).map { $0 > 0.04 && $0 < 0.06 } == true)
        #expect((model["download_bytes_per_pixel"] as? [String: Double])?["large"] == 0.16)
        // The list cell fetches `small`: 43,200 px × 0.38.
        #expect(try database.int("SELECT download_bytes FROM photo_costs WHERE photo_id = 10 AND target = 'list-cell'") == 16_416)
    }

    /// A photo's tier given twice (a contradicting typo) is refused naming both lines: both
    /// were fitted, and the tier's figure came out six times the default. A spreadsheet's byte
    /// order mark before the header is passed over.
    @Test func aPhotosTierMeasuredTwiceIsRefusedAndAByteOrderMarkPassedOver() throws {
        let directory = try TemporaryDirectory()
        let twice = try directory.write("twice.csv", "photo_id,tier,bytes\n10,small,13890\n11,small,14000\n10,small,138900\n")
        let error = try #require(throws: FieldpackError.self) { try MeasuredSizes(path: twice) }
        #expect(error.path == twice && error.line == 4)
        #expect(error.message == "photo 10's small is given twice (line 2 and here): one line per photo and tier")
        let marked = try directory.write("marked.csv", "\u{FEFF}photo_id,tier,bytes\n10,small,13890\n")
        #expect(try MeasuredSizes(path: marked).entries.count == 1)
    }

    @Test func aBadMeasuredSizesLineIsNamed() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("sizes.csv", "photo_id,tier,bytes\n10,huge,100\n")
        let error = try #require(throws: FieldpackError.self) { try MeasuredSizes(path: path) }
        #expect(error.path == path)
        #expect(error.line == 2)
        #expect(error.message.hasPrefix("tier \"huge\" is not one of square"))
    }

    @Test func theBudgetReportWalksTheListInBundleOrderThroughAnLRU() throws {
        let directory = try TemporaryDirectory()
        // A list cell decodes to 138,240 bytes; a detail view of these photos to 3,244,800.
        let (_, report) = try bundle([page([observationJSON(id: 1, photos: [(10, "cc-by", 2048), (11, "cc-by", 2048), (12, "cc-by", 2048)])])],
                                     policy: policy(budget: 300_000), in: directory)
        let targets = try #require(report["targets"] as? [[String: Any]])
        let cell = try #require(targets.first { $0["name"] as? String == "list-cell" })
        #expect(cell["budget"] as? [String: Int] == ["fit_from_top": 2, "larger_than_budget": 0, "cached_after_scrolling_to_the_end": 2])
        #expect((cell["decoded_bytes"] as? [String: Int])?["total"] == 3 * 138_240)
        #expect((cell["tiers"] as? [String: Int])?["small"] == 3)
        let detail = try #require(targets.first { $0["name"] as? String == "detail" })
        #expect(detail["budget"] as? [String: Int] == ["fit_from_top": 0, "larger_than_budget": 3, "cached_after_scrolling_to_the_end": 0])
    }

    @Test func sampleDataCostsMatchTheGoldenReport() throws {
        let directory = try TemporaryDirectory()
        let folder = "\(repositoryRoot)/sample-data/inat"
        let inputs = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        try buildBundle(inputs: inputs, in: directory, name: "sample")
        try expectGolden(directory.file("costs-report.json"), "sample-costs-report.json")
    }
}

/// A photo that no observation links and no taxon shows is not shipped: nothing in the app
/// reaches it. An observer removed photo 501 from observation 10; the older page still lists it.
@Suite struct UnlinkedPhotoTests {
    @Test func aPhotoTheNewestCopyOfItsObservationNoLongerListsIsNotShipped() throws {
        let directory = try TemporaryDirectory()
        let older = observationJSON(id: 10, updatedAt: "2024-05-01T10:00:00+00:00", photos: [(500, "cc-by", 1024), (501, "cc-by", 1024)])
        let newer = observationJSON(id: 10, updatedAt: "2024-06-01T10:00:00+00:00", photos: [(500, "cc-by", 1024)])
        let bundle = try buildBundle(
            inputs: [try directory.write("a.json", page([older])), try directory.write("b.json", page([newer]))], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
        #expect(try database.rows("SELECT id FROM photos ORDER BY id").map { $0[0] } == ["500"])
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json")))) as! [String: Any]
        let excluded = report["excluded"] as? [String: Int]
        #expect(excluded?["unlinked"] == 1, "\(report)")
        #expect(report["shipped"] as? Int == 1 && report["photos"] as? Int == 2)
    }
}

/// A photo's hosted copy beats its remote copy whatever their order and dates, and a remote
/// winner never takes a hosted copy's size. Photo 33535972 is a Wikimedia `75px-…` thumbnail in
/// the real v1 taxa search and hosted (947×442) in the v2 one: the thumbnail could win (by a
/// content hash, neither copy dated), costed at 947×442, and dropped as having no one to credit.
@Suite struct HostedPhotoCopyTests {
    @Test(arguments: [false, true])
    func theHostedCopyOfAPhotoWinsOverItsRemoteCopy(reversed: Bool) throws {
        let directory = try TemporaryDirectory()
        let inputs = ["\(samplesRoot)/pyinaturalist/v1/get_taxa.json", "\(samplesRoot)/pyinaturalist/v2/get_taxa_full.json"]
        var policy = try samplePolicy()
        policy.licenses = Set(License.allCases)
        let bundle = try buildBundle(inputs: reversed ? inputs.reversed() : inputs, in: directory, policy: policy)
        let row = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
            .rows("SELECT url, width, height, attribution FROM photos WHERE id = 33535972")
        #expect(row.count == 1)
        #expect(row.first?[0] == "https://inaturalist-open-data.s3.amazonaws.com/photos/33535972/square.jpeg")
        #expect(row.first?[1] == "947" && row.first?[2] == "442")
    }

    /// A remote photo ships the one URL it is given: the largest of its tier URLs, not `url`,
    /// which is the 75 px square (the real v1 Wikimedia thumbnail of photo 33535972, and a
    /// Flickr photo shaped as v1 writes them, went to a 1040-point detail view at 75 px). A
    /// hosted photo keeps `url`, from which every tier is derived.
    @Test func aRemotePhotoShipsALargerGivenURLNotTheSquare() throws {
        let directory = try TemporaryDirectory()
        let flickr = observationJSON(id: 9, photos: [(31486, "cc-by-nc-sa", nil), (77, "cc-by", 1000)])
            .replacingOccurrences(
                of: "\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/31486/square.jpg\"",
                with: "\"url\":\"https://farm4.staticflickr.com/3614/3557113604_11b14dfd03_s.jpg\",\"square_url\":\"https://farm4.staticflickr.com/3614/3557113604_11b14dfd03_s.jpg\",\"medium_url\":\"https://farm4.staticflickr.com/3614/3557113604_11b14dfd03.jpg\"")
            .replacingOccurrences(
                of: "\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/77/square.jpg\"",
                with: "\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/77/square.jpg\",\"medium_url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/77/medium.jpg\"")
        let inputs = [try directory.write("flickr.json", page([flickr])), "\(samplesRoot)/pyinaturalist/v1/get_taxa.json"]
        try ingestAndDedupe(inputs, in: directory)
        let photos = try recordLines(directory.file("deduped.jsonl"), deduped: true)
            .filter { $0["k"] as? String == "photo" && [77, 31486, 33535972].contains($0["id"] as? Int) }
            .sorted { ($0["id"] as? Int ?? 0) < ($1["id"] as? Int ?? 0) }
        #expect(photos.map { $0["url"] as? String ?? "" } == [
            "https://inaturalist-open-data.s3.amazonaws.com/photos/77/square.jpg",
            "https://farm4.staticflickr.com/3614/3557113604_11b14dfd03.jpg",
            "https://upload.wikimedia.org/wikipedia/commons/thumb/1/16/FMIB_47485_Prosopodasys_gogorzae.jpeg/500px-FMIB_47485_Prosopodasys_gogorzae.jpeg",
        ])
    }

    @Test(arguments: [
        ("https://inaturalist-open-data.s3.amazonaws.com/photos/1/square.jpg", true),
        ("HTTP://Static.INaturalist.org/photos/1/square.jpg?123", true),
        ("https://inaturalist.org/photos/1/square.jpg", true),
        ("https://inaturalist.s3.amazonaws.com/photos/1/square.jpg", true),
        ("https://upload.wikimedia.org/wikipedia/commons/thumb/1/16/a.jpeg/75px-a.jpeg", false),
        ("https://farm4.staticflickr.com/1/2_s.jpg", false),
        ("https://notinaturalist.org/photos/1/square.jpg", false),
        ("https://inaturalist.org.evil.example/photos/1/square.jpg", false),
        ("inaturalist.org/photos/1/square.jpg", false),
    ])
    func aURLIsHostedExactlyWhenItsHostIsINaturalists(url: String, hosted: Bool) {
        var text = url
        let answer = text.withUTF8 { PhotoURL.isHosted(JSONText(start: UnsafeRawPointer($0.baseAddress!), count: $0.count)) }
        #expect(answer == hosted)
    }
}
