import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct PhotoURLTests {
    @Test(arguments: [
        ("https://inaturalist-open-data.s3.amazonaws.com/photos/24355315/square.jpeg",
         "https://inaturalist-open-data.s3.amazonaws.com/photos/24355315/large.jpeg"),
        ("https://static.inaturalist.org/photos/92152429/square.jpg?1598551272",
         "https://static.inaturalist.org/photos/92152429/large.jpg"),
        ("http://static.inaturalist.org/photos/7/square.JPG", "https://static.inaturalist.org/photos/7/large.JPG"),
        ("https://static.inaturalist.org/photos/1205428/square.?1413275622", "https://static.inaturalist.org/photos/1205428/large."),
        ("https://static.inaturalist.org/photos/9/medium.png", "https://static.inaturalist.org/photos/9/large.png"),
        // The scheme's own port names the same server: with it, the photo was taken for a remote
        // one, its 75-px square its only URL while its costs said 2048 px.
        ("https://static.inaturalist.org:443/photos/525/square.jpg", "https://static.inaturalist.org/photos/525/large.jpg"),
        ("http://inaturalist-open-data.s3.amazonaws.com:80/photos/5/square.jpg", "https://inaturalist-open-data.s3.amazonaws.com/photos/5/large.jpg"),
        // The same buckets at a regional S3 endpoint, and a host's final dot: taken for remote
        // photos, they shipped their 75-px square for every target.
        ("https://inaturalist-open-data.s3.us-east-1.amazonaws.com/photos/1023/square.jpg",
         "https://inaturalist-open-data.s3.us-east-1.amazonaws.com/photos/1023/large.jpg"),
        ("https://inaturalist.s3-us-west-2.amazonaws.com/photos/8/square.jpg", "https://inaturalist.s3-us-west-2.amazonaws.com/photos/8/large.jpg"),
        ("https://static.inaturalist.org./photos/9/square.jpg", "https://static.inaturalist.org./photos/9/large.jpg"),
    ])
    func everyTierIsDerivedByReplacingOnlyTheSizeToken(url: String, large: String) throws {
        guard case .inaturalist(let parsed) = PhotoURL.classify(url) else {
            Issue.record("\(url) is not an iNaturalist photo URL")
            return
        }
        #expect(parsed.url(.large) == large)
        #expect(parsed.template.replacingOccurrences(of: "{size}", with: "large") == large)
    }

    @Test(arguments: [
        ("https://www.inaturalist.org/assets/copyright-infringement-square.png", PlaceholderKind.copyrightInfringement),
        ("https://www.inaturalist.org/assets/artificially-generated-content-square.png", .artificiallyGenerated),
        ("https://static.inaturalist.org/assets/media-hidden-square.png", .mediaHidden),
        ("https://static.inaturalist.org/attachment_defaults/local_photos/square.png", .stillProcessing),
    ])
    func placeholdersAreNotPhotos(url: String, kind: PlaceholderKind) {
        #expect(PhotoURL.classify(url) == .placeholder(kind))
    }

    /// A user name, or a port other than the scheme's own, is no URL to ship (the scheme's own
    /// port names the same server: see `everyTierIsDerivedByReplacingOnlyTheSizeToken`).
    @Test func aUserNameOrAnotherPortIsUnusable() {
        #expect(PhotoURL.classify("https://static.inaturalist.org:8443/photos/525/square.jpg") == .unusable("URL names the port 8443"))
        #expect(PhotoURL.classify("https://user@static.inaturalist.org/photos/525/square.jpg") == .unusable("URL names a user before its host"))
    }

    /// Ingest takes every photo id to 2^63 − 1, so the URL does too: a 19-digit id was
    /// excluded as "not …/photos/{id}/{size}.{ext}". One past it is said to be.
    @Test func aPhotoIdOfNineteenDigitsIsReadAndOnePastTheLargestIsUnusable() throws {
        for id in ["1000000000000000000", "4611686018427387904", "9223372036854775807"] {
            guard case .inaturalist(let parsed) = PhotoURL.classify("https://static.inaturalist.org/photos/\(id)/square.jpg") else {
                Issue.record("photo \(id) is not an iNaturalist photo URL")
                continue
            }
            #expect(String(parsed.id) == id)
            #expect(parsed.url(.large) == "https://static.inaturalist.org/photos/\(id)/large.jpg")
        }
        #expect(PhotoURL.classify("https://static.inaturalist.org/photos/9223372036854775808/square.jpg")
            == .unusable("iNaturalist URL's photo id is past 2^63 - 1"))
        #expect(PhotoURL.classify("https://static.inaturalist.org/photos/12345678901234567890/square.jpg")
            == .unusable("iNaturalist URL is not …/photos/{id}/{size}.{ext}"))
    }

    @Test func remotePhotosKeepTheirURLAndOnlyHttpsShips() {
        let flickr = "https://live.staticflickr.com/65535/52000000001_abcdef1234_s.jpg"
        #expect(PhotoURL.classify(flickr) == .remote(url: flickr))
        // Another's bucket, or another name around iNaturalist's, is not iNaturalist's.
        for other in ["https://inaturalist-open-data.s3.evil.example.com/photos/1/square.jpg",
                      "https://my-inaturalist-open-data.s3.us-east-1.amazonaws.com/photos/1/square.jpg",
                      "https://inaturalist-open-data.s3.us_east.amazonaws.com/photos/1/square.jpg",
                      // Someone's bucket named "inaturalist.s3", at a real region.
                      "https://inaturalist.s3.s3-us-west-2.amazonaws.com/photos/1/square.jpg",
                      "https://inaturalist.org../photos/1/square.jpg"] {
            #expect(PhotoURL.classify(other) == .remote(url: other), "\(other)")
        }
        #expect(PhotoURL.classify("http://farm1.staticflickr.com/1/2_s.jpg") == .unusable("remote photo URL is not https"))
        #expect(PhotoURL.classify("ftp://x/photos/1/square.jpg") == .unusable("not an http(s) URL"))
    }

    /// Every size URL the real `/v1/taxa/{id}` response gives for its taxon photos is what the
    /// square URL derives to.
    @Test func derivedTiersMatchTheSizeURLsOfTheRealTaxaResponse() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(samplesRoot)/pyinaturalist/v1/get_taxa_by_id.json"))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let taxon = (root["results"] as! [[String: Any]])[0]
        var checked = 0
        for entry in taxon["taxon_photos"] as! [[String: Any]] {
            let photo = entry["photo"] as! [String: Any]
            guard case .inaturalist(let parsed) = PhotoURL.classify(photo["url"] as! String) else {
                Issue.record("not parsed: \(photo["url"]!)")
                continue
            }
            for tier in [PhotoTier.square, .small, .medium, .large, .original] {
                guard let given = photo["\(tier.rawValue)_url"] as? String else { continue }
                let withoutQuery = String(given.split(separator: "?")[0])
                #expect(parsed.url(tier) == withoutQuery)
                checked += 1
            }
        }
        #expect(checked == 25)
    }

    /// Every photo URL in the real responses classifies as a photo or a remote photo.
    @Test func everyRealSampleURLIsClassified() throws {
        var urls: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let url = object["url"] as? String, object["id"] is Int, object["license_code"] != nil || object["attribution"] != nil {
                    urls.append(url)
                }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        for file in ["get_observations_page1", "get_observations_page2", "get_observation", "get_observations_by_id", "get_taxa", "get_taxa_by_id"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(samplesRoot)/pyinaturalist/v1/\(file).json"))
            collect(try JSONSerialization.jsonObject(with: data))
        }
        #expect(urls.count > 300)
        var remote = 0
        for url in urls {
            switch PhotoURL.classify(url) {
            case .inaturalist: break
            case .remote: remote += 1
            default: Issue.record("\(url) → \(PhotoURL.classify(url))")
            }
        }
        #expect(remote > 0)
    }
}

@Suite struct LicenseTests {
    @Test(arguments: [
        ("cc-by", License.ccBy), ("CC-BY", .ccBy), ("CC-BY-NC-SA", .ccByNcSa), ("cc0", .cc0), ("CC0", .cc0),
        ("pd", .pd), ("gfdl", .gfdl),
    ])
    func codesReadInEitherCase(code: String, license: License) {
        #expect(License.parse(code) == license)
    }

    @Test func aMissingCodeIsAllRightsReservedAndAnUnknownOneIsNotGuessed() {
        #expect(License.parse(nil) == .allRightsReserved)
        #expect(License.parse("cc-by-4.0-weird") == nil)
    }

    @Test func aPipelineThatListsNoLicencesShipsOnlyThoseThatAllowCommercialUse() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try Pipeline.load(try directory.write("p.json", #"{"name": "p", "inat": ["x"]}"#))
        // One photo under every licence there is (no code: all rights reserved).
        let photos: [(id: Int, license: String?, width: Int?)] = License.allCases.enumerated().map { index, license in
            (10 + index, license == .allRightsReserved ? nil : license.rawValue, 800)
        }
        let input = try directory.write("in.json", page([observationJSON(id: 1, photos: photos)]))
        let bundle = try buildBundle(inputs: [input], in: directory, policy: pipeline.shipping)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.rows("SELECT license FROM photos ORDER BY license") == [["cc-by"], ["cc-by-sa"], ["cc0"], ["pd"]])
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'photos.licenses_allowed'") == "cc-by,cc-by-sa,cc0,pd")
    }

    @Test(arguments: [
        (License.ccBy, "(c) Zoë Brontë, some rights reserved (CC BY)"),
        (.ccByNcSa, "(c) Zoë Brontë, some rights reserved (CC BY-NC-SA)"),
        (.cc0, "Zoë Brontë, no rights reserved (CC0)"),
        (.pd, "Zoë Brontë, no known copyright restrictions (public domain)"),
        (.allRightsReserved, "(c) Zoë Brontë, all rights reserved"),
        // The GFDL asks for its notice: a credit saying "all rights reserved" (as iNaturalist's
        // own string does) misstates it.
        (.gfdl, "(c) Zoë Brontë, some rights reserved (GFDL)"),
    ])
    func creditsAreBuiltFromTheLicenceAndTheName(license: License, credit: String) {
        #expect(license.credit(name: "Zoë\n Brontë") == credit)
    }

    /// A right-to-left override in a name turned the licence text after it around in the app; a
    /// BEL, a zero-width space or a byte order mark were shipped as they were. Joiners stay.
    @Test func aCreditHoldsNoControlCharacterOrDirectionOverride() {
        #expect(License.ccBy.credit(name: "A\u{7}B") == "(c) AB, some rights reserved (CC BY)")
        #expect(License.ccBy.credit(name: "\u{202E}evil\u{202C}") == "(c) evil, some rights reserved (CC BY)")
        #expect(License.ccBy.credit(name: "\u{2067}Zoë\u{200B}\u{2069} \u{FEFF}Ito\u{85}") == "(c) Zoë Ito, some rights reserved (CC BY)")
        #expect(License.cc0.credit(name: "\u{9F}\u{202D}") == nil)
        // Direction marks (a leading RLM turned the credit line's direction), the Arabic letter
        // mark, and a Hangul filler, a letter that shows nothing: a name of it alone is none.
        #expect(License.ccBy.credit(name: "\u{200F}سارا\u{061C} \u{200E}Ito") == "(c) سارا Ito, some rights reserved (CC BY)")
        #expect(License.cc0.credit(name: "\u{3164}") == nil)
        #expect(UserRecord.usableName("\u{3164}\u{3164}") == nil && UserRecord.usableName("\u{200F}") == nil)
        #expect(UserRecord.creditName(name: "\u{3164}", login: "kim") == "kim")
        // Persian's zero-width non-joiner and an emoji's joiner are part of the name.
        #expect(License.cc0.credit(name: "می\u{200C}خواهم 👩\u{200D}🔬") == "می\u{200C}خواهم 👩\u{200D}🔬, no rights reserved (CC0)")
    }

    @Test func noNameMeansNoCredit() {
        #expect(License.ccBy.credit(name: nil) == nil)
        #expect(License.cc0.credit(name: "  \n") == nil)
    }
}

@Suite struct RepairedPhotoURLTests {
    /// A remote URL that held bytes that were not UTF-8 (repaired by ingest to U+FFFD) names an
    /// address no one meant: excluded, not shipped broken.
    @Test func aRemoteURLWithARepairedCharacterIsUnusable() {
        #expect(PhotoURLParser().classify("https://farm1.staticflickr.com/1/Li\u{FFFD}ge_b.jpg") == .unusable("remote photo URL held bytes that are not UTF-8"))
        #expect(PhotoURLParser().classify("https://farm1.staticflickr.com/1/Liège_b.jpg") == .remote(url: "https://farm1.staticflickr.com/1/Liège_b.jpg"))
    }

    /// A photo id written with a leading zero gave a template whose size token fell inside the
    /// extension (`…/706/sq{size}pg`): such a URL is not one iNaturalist serves.
    @Test func aPhotoIDWithALeadingZeroIsUnusable() {
        #expect(PhotoURLParser().classify("https://static.inaturalist.org/photos/00706/square.jpg?123") == .unusable("iNaturalist URL's photo id starts with 0"))
    }

    /// An extension holding anything but letters and digits (a stray space, an escape) was
    /// kept verbatim in every tier's URL: the photo is excluded with the reason, as an export
    /// row with such an `extension` is.
    @Test(arguments: ["square.jpg ", "square.jpg%20", "square.j-pg"])
    func anExtensionThatIsNotLettersAndDigitsIsUnusable(file: String) {
        let source = PhotoURLParser().classify("https://static.inaturalist.org/photos/804/\(file)")
        guard case .unusable(let reason) = source else {
            Issue.record("\(source)")
            return
        }
        #expect(reason.hasPrefix("iNaturalist URL's extension \""), "\(reason)")
        #expect(PhotoURLParser().classify("https://static.inaturalist.org/photos/804/square.JPG?1598551272") != source)
    }
}
