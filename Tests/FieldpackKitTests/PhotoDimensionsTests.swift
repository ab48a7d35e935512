import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A photo's stored dimensions are a size or unknown: zero, below it, or past the largest image
/// is unknown (a finding), so dedupe fills it from another copy and the costs never multiply it.
@Suite struct PhotoDimensionsTests {
    private func database(_ bundle: String) throws -> Database {
        try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
    }

    private func findings(_ directory: TemporaryDirectory) throws -> [String] {
        try jsonLines(directory.file("rejects.jsonl")).compactMap { $0["reason"] as? String }
    }

    /// The newer copy says 0×0: the older copy's 1024×768 is kept (the 0×0 shipped, and the
    /// costs took the photo for a 2048×1536 original).
    @Test func zeroDimensionsAreUnknownAndFilledFromAnotherCopy() throws {
        let directory = try TemporaryDirectory()
        let older = observationJSON(id: 10, updatedAt: "2024-05-01T10:00:00+00:00", photos: [(500, "cc-by", 1024)])
        let newer = observationJSON(id: 10, updatedAt: "2024-06-01T10:00:00+00:00", photos: [(500, "cc-by", 0)])
        let bundle = try buildBundle(
            inputs: [try directory.write("a.json", page([older])), try directory.write("b.json", page([newer]))], in: directory)
        let row = try database(bundle).rows("SELECT width, height FROM photos WHERE id = 500")
        #expect(row.map { $0.compactMap { $0 } } == [["1024", "768"]])
        #expect(try findings(directory).contains { $0.contains("original_dimensions.width is 0, expected 1 to 65535 pixels") })
    }

    /// Sides past 65,535 pixels are dropped; the bundle stage overflowed on 4,000,000,000.
    @Test func dimensionsPastTheLargestImageAreUnknownAndTheBundleIsBuilt() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 11, photos: [(501, "cc-by", 4_000_000_000)])
        let bundle = try buildBundle(inputs: [try directory.write("a.json", page([observation]))], in: directory)
        let row = try database(bundle).rows("SELECT width, height FROM photos WHERE id = 501")
        #expect(row.count == 1 && row[0].allSatisfy { $0 == nil })
        #expect(try findings(directory).contains { $0.contains("original_dimensions.width is 4000000000, expected 1 to 65535 pixels") })
    }

    /// One side without the other is no size: both are dropped with a finding (a width alone
    /// shipped as 2048 × NULL, without a word).
    @Test func aWidthWithoutAHeightIsNoSize() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 13, photos: [(504, "cc-by", 2048)])
            .replacingOccurrences(of: #","height":1536"#, with: "")
        #expect(!observation.contains("\"height\""))
        let bundle = try buildBundle(inputs: [try directory.write("a.json", page([observation]))], in: directory)
        let row = try database(bundle).rows("SELECT width, height FROM photos WHERE id = 504")
        #expect(row.count == 1 && row[0].allSatisfy { $0 == nil })
        let found = try findings(directory)
        #expect(found.contains { $0.contains("original_dimensions has a width and no height") }, "\(found)")
    }

    /// A hidden flag that is not a boolean is taken as hidden, with a finding: the photo does
    /// not ship (`"hidden": "true"` shipped).
    @Test func aHiddenFlagOfTheWrongTypeIsTakenAsHidden() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 14, photos: [(505, "cc-by", 1024), (506, "cc-by", 1024)])
            .replacingOccurrences(of: #""url":"https://inaturalist-open-data.s3.amazonaws.com/photos/505/"#,
                                  with: #""hidden":"true","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/505/"#)
        #expect(observation.contains(#""hidden":"true""#))
        let bundle = try buildBundle(inputs: [try directory.write("a.json", page([observation]))], in: directory)
        #expect(try database(bundle).rows("SELECT id FROM photos ORDER BY id").map { $0[0] } == ["506"])
        let found = try findings(directory)
        #expect(found.contains { $0.contains("taken as hidden") }, "\(found)")
    }

    /// A position of -2^31 ranked below zero without overflowing dedupe's rank (it crashed).
    @Test func aPhotoPositionFarBelowZeroIsRankedNotACrash() throws {
        let directory = try TemporaryDirectory()
        let observation = observationJSON(id: 12, photos: [(502, "cc-by", 1024), (503, "cc-by", 1024)])
            .replacingOccurrences(of: "\"position\":0", with: "\"position\":-2147483648")
        let bundle = try buildBundle(inputs: [try directory.write("a.json", page([observation]))], in: directory)
        let photos = try database(bundle).rows("SELECT photo_id FROM observation_photos ORDER BY position, photo_id").map { $0[0]! }
        #expect(photos == ["502", "503"])
    }
}
