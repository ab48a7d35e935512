import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct DedupeTests {
    /// Ingests pages (in the given order) and dedupes them; returns the deduped records by kind.
    private func dedupe(_ pages: [String], in directory: TemporaryDirectory) throws -> [String: [[String: Any]]] {
        let inputs = try pages.enumerated().map { try directory.write("in-\($0.offset).json", $0.element) }
        try ingestAndDedupe(inputs, in: directory)
        return Dictionary(grouping: try recordLines(directory.file("deduped.jsonl"), deduped: true), by: { $0["k"] as! String })
    }

    @Test(arguments: [false, true])
    func newerObservationWinsWhicheverFileComesLast(newerFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let older = page([observationJSON(id: 5, updatedAt: "2024-05-01T10:00:00+02:00", quality: "needs_id")])
        // Later in absolute time although its local clock reads earlier: offsets are honoured.
        let newer = page([observationJSON(id: 5, updatedAt: "2024-05-01T09:30:00+00:00", quality: "research")])
        let records = try dedupe(newerFirst ? [newer, older] : [older, newer], in: directory)
        let observations = try #require(records["obs"])
        #expect(observations.count == 1)
        #expect(observations[0]["quality_grade"] as? String == "research")
    }

    /// One observation listing a photo twice with other values (a remote copy, then the hosted
    /// one): both are occurrences, ranked by dedupe's rules whatever their order in the record
    /// (a hosted copy over a remote one) and reported as a conflict; the photo is linked once, at
    /// its first place. The first listed won unsaid. The same copy listed again (the API's
    /// `observation_photos` and `photos`) is one occurrence.
    @Test(arguments: [false, true])
    func aPhotoListedTwiceInOneObservationIsRankedByTheRulesNotByItsPlace(remoteFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let hosted = #"{"id":2401,"license_code":"cc-by","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/2401/square.jpg","original_dimensions":{"width":2048,"height":1536}}"#
        let remote = #"{"id":2401,"license_code":"cc-by","url":"https://live.staticflickr.com/65535/2401_abc_s.jpg","original_dimensions":{"width":500,"height":375}}"#
        let other = #"{"id":2402,"license_code":"cc-by","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/2402/square.jpg"}"#
        let listed = (remoteFirst ? [remote, other, hosted] : [hosted, other, remote]).joined(separator: ",")
        let observation = observationJSON(id: 9).replacingOccurrences(of: #""photos":[],"observation_photos":[]"#, with: "\"photos\":[\(listed)]")
        let records = try dedupe([page([observation])], in: directory)
        let photos = try #require(records["photo"])
        #expect(photos.map { $0["id"] as? Int } == [2401, 2402])
        #expect(photos[0]["url"] as? String == "https://inaturalist-open-data.s3.amazonaws.com/photos/2401/square.jpg")
        #expect(photos[0]["width"] as? Int == 2048)
        #expect(try #require(records["obs"]).map { $0["photos"] as? [[Int]] } == [[[2401, 0], [2402, 1]]])
        let conflicts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("conflicts.json")))) as! [String: Any]
        #expect(conflicts["photos_with_conflicts"] as? Int == 1)
        #expect(conflicts["url"] as? Int == 1)

        // A second listing that leaves the licence out (a sparse `fields=` page) is the first
        // copy, not an unlicensed one: as "none", the most restrictive, it won and the photo
        // did not ship.
        let sparse = try TemporaryDirectory()
        let unlicensed = #"{"id":2401,"url":"https://inaturalist-open-data.s3.amazonaws.com/photos/2401/square.jpg"}"#
        let listedTwice = observationJSON(id: 9).replacingOccurrences(of: #""photos":[],"observation_photos":[]"#, with: "\"photos\":[\(hosted),\(unlicensed)]")
        let kept = try dedupe([page([listedTwice])], in: sparse)
        #expect(try #require(kept["photo"]).map { $0["license"] as? String } == ["cc-by"])
        #expect(try recordLines(sparse.file("records.jsonl")).filter { $0["k"] as? String == "photo" }.count == 1)

        // The same copy in `observation_photos` and `photos`: one occurrence, no conflict.
        let again = try TemporaryDirectory()
        try ingestAndDedupe([try again.write("page.json", page([observationJSON(id: 9, photos: [(77, "cc-by", 1000)])]))], in: again)
        #expect(try recordLines(again.file("records.jsonl")).filter { $0["k"] as? String == "photo" }.count == 1)
    }

    @Test func photoIdentityIsTheIdNotTheURL() throws {
        let directory = try TemporaryDirectory()
        let first = observationJSON(id: 1, photos: [(77, "cc-by", 1000)])
        let moved = observationJSON(id: 2, photos: [(77, "cc-by", 1000)])
            .replacingOccurrences(of: "inaturalist-open-data.s3.amazonaws.com/photos/77/square.jpg", with: "static.inaturalist.org/photos/77/square.jpeg?1598551272")
        let records = try dedupe([page([first, moved])], in: directory)
        let photos = try #require(records["photo"])
        #expect(photos.count == 1)
        // The photo belongs to both observations: both links are kept.
        let links = try #require(records["obs"]).map { ($0["photos"] as? [[Int]]) ?? [] }
        #expect(links == [[[77, 0]], [[77, 0]]])
        // Ties on updated_at go to the higher observation id.
        #expect((photos[0]["url"] as? String)?.contains("static.inaturalist.org") == true)
        let conflicts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("conflicts.json")))) as! [String: Any]
        #expect(conflicts["url"] as? Int == 1)
        #expect(conflicts["license"] as? Int == 0)
    }

    @Test func urlsThatDifferOnlyByTheirTimestampAreNotAConflict() throws {
        let directory = try TemporaryDirectory()
        let first = observationJSON(id: 1, photos: [(77, "cc-by", 1000)])
        let stamped = observationJSON(id: 2, photos: [(77, "cc-by", 1000)]).replacingOccurrences(of: "77/square.jpg", with: "77/square.jpg?1598551272")
        _ = try dedupe([page([first, stamped])], in: directory)
        let conflicts = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("conflicts.json")))) as! [String: Any]
        #expect(conflicts["photos_with_conflicts"] as? Int == 0)
    }

    @Test func newestOccurrenceWinsAndMissingDimensionsAreFilledFromAnother() throws {
        let directory = try TemporaryDirectory()
        let old = observationJSON(id: 1, updatedAt: "2023-01-01T00:00:00Z", photos: [(77, "cc-by-nc", 1600)])
        let new = observationJSON(id: 2, updatedAt: "2024-01-01T00:00:00Z", photos: [(77, "cc-by", nil)])
        let records = try dedupe([page([new]), page([old])], in: directory)
        let photo = try #require(records["photo"]?.first)
        #expect(photo["license"] as? String == "cc-by")
        #expect(photo["width"] as? Int == 1600)
        #expect(photo["height"] as? Int == 1200)
    }

    @Test func observationPhotoBeatsTaxonPhotoOnATie() throws {
        let directory = try TemporaryDirectory()
        // Photo 77 is the observation's own photo and its taxon's default photo, in one record.
        let observation = observationJSON(id: 1, photos: [(77, "cc-by", 1000)]).replacingOccurrences(
            of: "\"rank_level\":10}",
            with: "\"rank_level\":10,\"default_photo\":{\"id\":77,\"license_code\":\"cc0\",\"url\":\"https://x/photos/77/square.jpg\",\"attribution\":\"no rights reserved\",\"original_dimensions\":null}}")
        let records = try dedupe([page([observation])], in: directory)
        let photo = try #require(records["photo"]?.first)
        #expect(photo["ctx"] as? String == "obs")
        #expect(photo["license"] as? String == "cc-by")
        #expect(try #require(records["taxon"]?.first)["default_photo"] as? Int == 77)
    }

    /// Two snapshots of one observation with the same `updated_at` (a photo relicensed, or
    /// done processing, without the observation changing) tie on every rule: the copy that
    /// wins is the safe one, never the one whose bytes hash higher (7 of 10 photos shipped as
    /// `cc-by` after their owner made them `cc-by-nc`). Either order of the files.
    @Test(arguments: [false, true])
    func aTieBetweenCopiesOfAPhotoGoesToTheSafeSide(swapped: Bool) throws {
        let ids = Array(70..<80)
        func copy(_ license: String, url: ((Int) -> String)? = nil) -> String {
            var json = observationJSON(id: 1, photos: ids.map { ($0, license, 1000) })
            if let url {
                for id in ids { json = json.replacingOccurrences(of: "https://inaturalist-open-data.s3.amazonaws.com/photos/\(id)/square.jpg", with: url(id)) }
            }
            return json
        }
        func winners(_ a: String, _ b: String) throws -> [[String: Any]] {
            let records = try dedupe(swapped ? [page([b]), page([a])] : [page([a]), page([b])], in: try TemporaryDirectory())
            return try #require(records["photo"])
        }
        // The more restrictive licence.
        let licensed = try winners(copy("cc-by"), copy("cc-by-nc"))
        #expect(licensed.map { $0["license"] as? String } == ids.map { _ in "cc-by-nc" })
        // A photo over its still-processing stand-in.
        let processing = "https://static.inaturalist.org/attachment_defaults/local_photos/square.png"
        let processed = try winners(copy("cc-by"), copy("cc-by", url: { _ in processing }))
        #expect(processed.allSatisfy { ($0["url"] as? String)?.contains("/photos/") == true }, "\(processed.map { $0["url"] ?? "" })")
        // A taken-down stand-in over the photo.
        let hidden = { (id: Int) in "https://static.inaturalist.org/photos/\(id)/media-hidden/square.png" }
        let takenDown = try winners(copy("cc-by"), copy("cc-by", url: hidden))
        #expect(takenDown.allSatisfy { ($0["url"] as? String)?.contains("media-hidden") == true }, "\(takenDown.map { $0["url"] ?? "" })")
        // A marker in the query string names no stand-in (as the photo's shipping rules read a
        // URL): that copy is a photo, and the licence rule decides.
        let queried = { (id: Int) in "https://static.inaturalist.org/photos/\(id)/square.jpg?media-hidden" }
        let notTakenDown = try winners(copy("cc-by", url: queried), copy("cc-by-nc"))
        #expect(notTakenDown.map { $0["license"] as? String } == ids.map { _ in "cc-by-nc" })
        // A copy a moderator hid (`hidden: true`, its URL still the photo's): half of such ties
        // shipped the photo.
        let flagged = copy("cc-by").replacingOccurrences(of: "\"original_dimensions\"", with: "\"hidden\":true,\"original_dimensions\"")
        let hiddenWins = try winners(copy("cc-by"), flagged)
        #expect(hiddenWins.allSatisfy { $0["hidden"] as? Bool == true }, "\(hiddenWins.map { $0["hidden"] ?? "" })")
        // The current URL: an openly licensed photo's old static-host address with an old
        // response's `?timestamp` lost to the open-data bucket's only by its content hash.
        let old = { (id: Int) in "https://static.inaturalist.org/photos/\(id)/square.jpg?1598551272" }
        let current = try winners(copy("cc-by", url: old), copy("cc-by"))
        #expect(current.allSatisfy { ($0["url"] as? String)?.hasPrefix("https://inaturalist-open-data.s3.amazonaws.com/") == true },
                "\(current.map { $0["url"] ?? "" })")
        // …and an all-rights-reserved photo's static-host address over an open-data one.
        let current2 = try winners(copy("", url: old), copy(""))
        #expect(current2.allSatisfy { ($0["url"] as? String)?.hasPrefix("https://static.inaturalist.org/") == true },
                "\(current2.map { $0["url"] ?? "" })")
        // Of two static-host addresses, the one without a timestamp.
        let dated = try winners(copy("", url: old), copy("", url: { "https://static.inaturalist.org/photos/\($0)/square.jpg" }))
        #expect(dated.allSatisfy { ($0["url"] as? String)?.hasSuffix("square.jpg") == true }, "\(dated.map { $0["url"] ?? "" })")
    }

    @Test func linksComeFromTheNewestCopyOfAnObservation() throws {
        let directory = try TemporaryDirectory()
        let old = observationJSON(id: 1, updatedAt: "2023-01-01T00:00:00Z", photos: [(10, "cc-by", 100), (11, "cc-by", 100)])
        let new = observationJSON(id: 1, updatedAt: "2024-01-01T00:00:00Z", photos: [(11, "cc-by", 100)])
        let records = try dedupe([page([new]), page([old])], in: directory)
        #expect(records["obs"]?.first?["photos"] as? [[Int]] == [[11, 0]])
    }

    @Test func sampleDataDedupesToTheGoldenFiles() throws {
        let directory = try TemporaryDirectory()
        let folder = "sample-data/inat"
        let inputs = try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/\(folder)")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
        // Relative input paths, as make passes them, so the golden files name them the same way.
        let previous = FileManager.default.currentDirectoryPath
        try #require(previous == repositoryRoot, "swift test runs from the package root, which the relative paths need")
        let summary = try ingestAndDedupe(inputs, in: directory)
        #expect(summary.unique["obs"] == 19)
        #expect(summary.unique["photo"] == 44)
        #expect(summary.unique["taxon"] == 8)
        #expect(summary.unique["user"] == 10)
        #expect(summary.conflicts.ids == 2)
        try expectGolden(directory.file("deduped.jsonl"), "sample-deduped.jsonl")
        try expectGolden(directory.file("conflicts.json"), "sample-conflicts.json")
        try expectGolden(directory.file("rejects.jsonl"), "sample-rejects.jsonl")
    }
}

/// Compares a stage output with its golden file; `FIELDPACK_UPDATE_GOLDEN=1` rewrites the golden.
func expectGolden(_ path: String, _ golden: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let goldenPath = "\(repositoryRoot)/Tests/FieldpackKitTests/Golden/\(golden)"
    let actual = try text(path)
    if ProcessInfo.processInfo.environment["FIELDPACK_UPDATE_GOLDEN"] == "1" {
        try actual.write(toFile: goldenPath, atomically: true, encoding: .utf8)
        return
    }
    let expected = try text(goldenPath)
    #expect(actual == expected, "\(path) differs from Golden/\(golden); rerun with FIELDPACK_UPDATE_GOLDEN=1 after checking the diff", sourceLocation: sourceLocation)
}
