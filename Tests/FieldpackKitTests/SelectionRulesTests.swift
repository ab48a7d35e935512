import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The pipeline's `select` as rules: places (boxes, polygons, holes, edges, the antimeridian),
/// taxa through their lineage, and the strict reading of the pipeline file.
@Suite struct SelectionRulesTests {
    /// Writes a pipeline with `select` and reads it back.
    private func selection(_ select: String, in directory: TemporaryDirectory) throws -> Selection {
        let path = try directory.write("pipelines/p.json", "{\"name\": \"p\", \"inat\": [\"x\"], \"select\": \(select)}")
        return try #require(try Pipeline.load(path).selection)
    }

    @Test func aBoxHoldsItsEdgesAndCornersAndNothingBeyond() {
        let box = BoundingBox(west: 2, south: 49, east: 7, north: 52)
        #expect(box.contains(longitude: 4.35, latitude: 50.85))
        #expect(box.contains(longitude: 2, latitude: 50))
        #expect(box.contains(longitude: 7, latitude: 52))
        #expect(!box.contains(longitude: 7.000001, latitude: 50))
        #expect(!box.contains(longitude: 4, latitude: 48.999999))
    }

    @Test func aBoxWhoseWestIsEastOfItsEastCrossesTheAntimeridian() {
        // Fiji and its neighbours: from 170°E across 180° to 170°W.
        let box = BoundingBox(west: 170, south: -25, east: -170, north: -10)
        #expect(box.crossesAntimeridian)
        #expect(box.contains(longitude: 178.4, latitude: -18.1))
        #expect(box.contains(longitude: -179.9, latitude: -16))
        #expect(box.contains(longitude: 180, latitude: -16))
        #expect(box.contains(longitude: -180, latitude: -16))
        #expect(box.contains(longitude: -170, latitude: -16))
        #expect(!box.contains(longitude: 0, latitude: -16))
        #expect(!box.contains(longitude: -169.9, latitude: -16))
        #expect(!box.contains(longitude: 169.9, latitude: -16))
        #expect(!box.contains(longitude: 178.4, latitude: -26))
    }

    /// Longitude 180 and -180 are one meridian: a point written at 180 on Taveuni is in a box or
    /// the half of a place cut at the antimeridian that ends at -180, and one written at -180 in
    /// one that ends at 180 (it was left out, its twin kept).
    @Test func aPointOnTheAntimeridianIsInAPlaceThatEndsThereWrittenEitherWay() {
        let east = Places(boxes: [BoundingBox(west: -180, south: -17, east: -179.5, north: -16)])
        let west = Places(polygons: [Polygon(rings: [[179, -17, 180, -17, 180, -16, 179, -16, 179, -17]])])
        for places in [east, west] {
            #expect(places.contains(longitude: 180, latitude: -16.5) && places.contains(longitude: -180, latitude: -16.5))
            #expect(!places.contains(longitude: 180, latitude: -15) && !places.contains(longitude: -180, latitude: -18))
        }
        #expect(!east.contains(longitude: 179.9, latitude: -16.5) && !west.contains(longitude: -179.9, latitude: -16.5))
    }

    /// A 10 x 10 square with a 2 x 2 hole in its middle (counterclockwise outside, clockwise hole).
    static let squareWithHole = Polygon(rings: [
        [0, 0, 10, 0, 10, 10, 0, 10, 0, 0],
        [4, 4, 4, 6, 6, 6, 6, 4, 4, 4],
    ])

    @Test func aPointInAHoleIsOutsideThePolygonAndAPointOnTheHolesEdgeIsInside() {
        let polygon = Self.squareWithHole
        #expect(polygon.contains(longitude: 1, latitude: 1))
        #expect(!polygon.contains(longitude: 5, latitude: 5))
        #expect(polygon.contains(longitude: 4, latitude: 5))  // on the hole's west edge
        #expect(polygon.contains(longitude: 6, latitude: 6))  // on a corner of the hole
        #expect(polygon.contains(longitude: 5, latitude: 3.9))
        #expect(!polygon.contains(longitude: 11, latitude: 5))
    }

    @Test func aPointOnAnEdgeOrAVertexOfThePolygonIsInside() {
        let triangle = Polygon(rings: [[0, 0, 4, 0, 0, 4, 0, 0]])
        #expect(triangle.contains(longitude: 2, latitude: 2))  // on the slanted edge
        #expect(triangle.contains(longitude: 2, latitude: 0))  // on the bottom edge
        #expect(triangle.contains(longitude: 0, latitude: 4))  // a vertex
        #expect(triangle.contains(longitude: 1, latitude: 1))
        #expect(!triangle.contains(longitude: 2.5, latitude: 2))
        #expect(!triangle.contains(longitude: -0.5, latitude: 2))
        // A ray through a vertex counts the crossing once: (−1, 0)…(−1, 4) side points.
        #expect(!triangle.contains(longitude: -1, latitude: 0))
        #expect(!triangle.contains(longitude: -1, latitude: 4))
    }

    @Test func theRingsWindingDoesNotChangeWhatIsInside() {
        let clockwise = Polygon(rings: [[0, 0, 0, 10, 10, 10, 10, 0, 0, 0], [4, 4, 6, 4, 6, 6, 4, 6, 4, 4]])
        for (x, y) in [(1.0, 1.0), (5.0, 5.0), (4.0, 5.0), (11.0, 5.0), (9.9, 9.9)] {
            #expect(clockwise.contains(longitude: x, latitude: y) == Self.squareWithHole.contains(longitude: x, latitude: y))
        }
    }

    @Test func theSelectRulesAreReadFromThePipelineFile() throws {
        let directory = try TemporaryDirectory()
        let selection = try selection("""
            {"bbox": [[170, -25, -170, -10], [2, 49, 7, 52]],
             "geojson": {"type": "MultiPolygon", "coordinates": [
                 [[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]]},
             "obscured": "drop",
             "taxa": {"include": [3], "exclude": [6912], "ranks": ["species"]},
             "quality_grades": ["research", "needs_id", "research"],
             "observed": {"from": "2015-01-01", "to": "2024-12-31"},
             "min_photos": 1,
             "caps": {"observations_per_taxon": 20, "photos_per_taxon": 10, "license_preference": ["cc-by", "CC0"]}}
            """, in: directory)
        #expect(selection.places.boxes == [
            BoundingBox(west: 170, south: -25, east: -170, north: -10), BoundingBox(west: 2, south: 49, east: 7, north: 52),
        ])
        #expect(selection.places.polygons.count == 2)
        #expect(selection.places.contains(longitude: 5.9, latitude: 5.5))
        #expect(selection.obscured == .drop)
        #expect(selection.taxa == TaxonRule(include: [3], exclude: [6912], ranks: ["species"]))
        #expect(selection.qualityGrades == ["needs_id", "research"])
        #expect(selection.observedFrom == "2015-01-01" && selection.observedTo == "2024-12-31")
        #expect(selection.minimumPhotos == 1)
        #expect(selection.caps.observationsPerTaxon == 20 && selection.caps.photosPerTaxon == 10)
        #expect(selection.caps.licensePreference == [.ccBy, .cc0])
        // Listed licences first, in their order; then the rest in License's order.
        #expect(selection.caps.rank(of: .ccBy) < selection.caps.rank(of: .cc0))
        #expect(selection.caps.rank(of: .cc0) < selection.caps.rank(of: .pd))
        #expect(selection.caps.rank(of: .pd) < selection.caps.rank(of: .allRightsReserved))
    }

    @Test func aGeoJSONFileIsReadRelativeToThePipelineFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("places/park.geojson", """
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {}, "geometry":
                {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]], [[4, 4], [4, 6], [6, 6], [6, 4], [4, 4]]]}}]}
            """)
        let selection = try selection("{\"geojson\": [\"../places/park.geojson\"]}", in: directory)
        #expect(selection.places.polygons == [Self.squareWithHole])
        // The bundle's depfile names it, so make rebuilds the bundle when the place changes.
        #expect(selection.files == [directory.file("pipelines/../places/park.geojson")])
    }

    @Test(arguments: [
        ("{\"bbox\": [1, 2, 3]}", "select.bbox must be [west, south, east, north]"),
        // An object of boxes was read as a list of them, its keys unsaid.
        ("{\"bbox\": {\"park\": [1, 2, 3, 4]}}", "select.bbox must be [west, south, east, north]"),
        ("{\"bbox\": [[1, 2, 3, 4], [0, 50, 10, 40]]}", "select.bbox[1]: latitudes must be within -90…90, south no more than north (south 50.0, north 40.0)"),
        ("{\"bbox\": [190, 0, 10, 10]}", "select.bbox: longitudes must be within -180…180 (west 190.0"),
        ("{\"box\": [1, 2, 3, 4]}", "select.box is not a selection rule"),
        ("{\"geojson\": {\"type\": \"Point\", \"coordinates\": [1, 2]}}", "select.geojson is a GeoJSON Point"),
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}}", "select.geojson.coordinates[0] is not closed"),
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [1, 0], [0, 0]]]}}", "select.geojson.coordinates[0] has 3 positions"),
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [1, 95], [1, 1], [0, 0]]]}}", "select.geojson.coordinates[0][1] must be a position"),
        ("{\"geojson\": \"missing.geojson\"}", "does not exist"),
        ("{\"geojson\": \"..\"}", "pipelines/..\" is a folder, expected a file"),
        // A place with no outline, which read as no rule would keep every place.
        ("{\"geojson\": {\"type\": \"FeatureCollection\", \"features\": []}}", "select.geojson holds no polygon"),
        ("{\"geojson\": {\"type\": \"MultiPolygon\", \"coordinates\": []}}", "select.geojson holds no polygon"),
        ("{\"geojson\": []}", "select.geojson is an empty list"),
        ("{\"quality_grades\": []}", "select.quality_grades is empty"),
        ("{\"taxa\": {\"include\": []}}", "select.taxa names no taxon and no rank"),
        ("{\"obscured\": \"keep\"}", "select.obscured must be \"point\" or \"drop\""),
        ("{\"taxa\": {\"include\": [3], \"exclude\": [3]}}", "taxon 3 is both included and excluded"),
        ("{\"taxa\": {\"include\": [\"Aves\"]}}", "select.taxa.include must hold positive taxon ids"),
        ("{\"taxa\": {\"ranks\": [\"specie\"]}}", "select.taxa.ranks holds \"specie\", not an iNaturalist rank"),
        ("{\"taxa\": {\"only\": [3]}}", "select.taxa.only is not"),
        ("{\"quality_grades\": [\"good\"]}", "select.quality_grades holds \"good\""),
        ("{\"observed\": {\"from\": \"2024-02-30\"}}", "select.observed.from is \"2024-02-30\", a day that does not exist"),
        ("{\"observed\": {\"to\": \"May 1\"}}", "select.observed.to must be a date YYYY-MM-DD (is \"May 1\")"),
        ("{\"observed\": {\"from\": \"2024-05-01\", \"to\": \"2024-04-01\"}}", "select.observed.from (2024-05-01) is after"),
        ("{\"observed\": {\"since\": \"2024-05-01\"}}", "select.observed.since is not"),
        // A bound given as null was the bound left out; a value inside a rule is not (the docs).
        ("{\"observed\": {\"from\": null, \"to\": \"2024-01-01\"}}", "select.observed.from is null: give a date YYYY-MM-DD, or leave the bound out"),
        // An empty range was taken for no rule at all, where an empty list of grades is refused.
        ("{\"observed\": {}}", "select.observed gives neither \"from\" nor \"to\""),
        ("{\"observed\": {\"_note\": \"spring\"}}", "select.observed gives neither \"from\" nor \"to\""),
        ("{\"min_photos\": -1}", "select.min_photos must be an integer from 0 to 1000000 (is -1)"),
        ("{\"caps\": {\"photos_per_taxon\": 0}}", "select.caps.photos_per_taxon must be an integer from 1 to 1000000 (is 0)"),
        ("{\"caps\": {\"observations_per_taxon\": 1e300}}", "select.caps.observations_per_taxon must be an integer from 1 to 1000000 (is 1e+300)"),
        ("{\"caps\": {\"license_preference\": [\"cc-zero\"]}}", "select.caps.license_preference holds an unknown licence code \"cc-zero\""),
        ("{\"caps\": {\"photos\": 3}}", "select.caps.photos is not a cap"),
        // An empty caps object was taken for no rule at all, as an empty range was.
        ("{\"caps\": {}}", "select.caps gives no cap"),
        ("{\"caps\": {\"_note\": \"later\"}}", "select.caps gives no cap"),
        ("{\"caps\": {\"license_preference\": [5]}}", "select.caps.license_preference holds a value that is not a licence code"),
        // Rules that would do nothing, accepted without a word: refused as an empty list is.
        ("{\"caps\": {\"license_preference\": [\"cc0\"]}}", "select.caps.license_preference orders what the caps keep, and no cap is given"),
        ("{\"obscured\": \"drop\"}", "select.obscured applies to observations tested against a place, and no select.bbox or select.geojson is given"),
        ("{\"taxa\": {\"include\": [1]}, \"obscured\": \"point\"}", "select.obscured applies to observations tested against a place"),
        // A ring drawn across the antimeridian selected the rest of the world, Fiji left out.
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[170, -25], [-170, -25], [-170, -10], [170, -10], [170, -25]]]}}",
         "select.geojson.coordinates[0][0] to [1] spans 340.0° of longitude: a ring crossing the antimeridian must be cut in two at ±180"),
        ("{\"geojson\": {\"type\": \"MultiPolygon\", \"coordinates\": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[0, 0], [1, 0], [1, 1], [-179.5, 1], [0, 0]]]]}}",
         "select.geojson.coordinates[1][0][2] to [3] spans 180.5° of longitude"),
        // A ring across the antimeridian cut at ±180 but not split in two (a naive clip): its
        // edges from 180 to -180 made it the rest of the world on the plane, Fiji left out.
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[170, -20], [180, -20], [-180, -20], [-170, -20], [-170, -16], [-180, -16], [180, -16], [170, -16], [170, -20]]]}}",
         "select.geojson.coordinates[0][1] to [2] spans 360.0° of longitude"),
        ("{\"geojson\": {\"type\": \"Polygon\", \"coordinates\": [[[170, -20], [180, -20], [180, -20], [-180, -20], [-170, -20], [-170, -16], [170, -16], [170, -20]]]}}",
         "select.geojson.coordinates[0][2] to [3] spans 360.0° of longitude"),
        ("[1]", "\"select\" must be an object"),
    ])
    func aBadSelectionIsRefusedNamingTheKey(select: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("pipelines/p.json", "{\"name\": \"p\", \"inat\": [\"x\"], \"select\": \(select)}")
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.description.contains(message), "\(error.description)")
    }

    /// The >180° edge rule refuses a ring drawn across the antimeridian, not a polar cap, a
    /// world band or a ring cut at ±180, whose long edges run along a parallel from -180 to 180.
    @Test func aRingWhoseLongEdgesRunFromMinus180To180IsAPlace() throws {
        let directory = try TemporaryDirectory()
        let antarctica = #"{"type": "Polygon", "coordinates": [[[-180, -90], [180, -90], [180, -60], [-180, -60], [-180, -90]]]}"#
        let world = #"{"type": "Polygon", "coordinates": [[[-180, -90], [180, -90], [180, 90], [-180, 90], [-180, -90]]]}"#
        // A band around the world, its edges from 180 to -180 between runs along ±180, drawn
        // from its first position on the meridian, and with a position given twice.
        let band = #"{"type": "Polygon", "coordinates": [[[180, -16], [-180, -16], [-180, -20], [-180, -20], [180, -20], [180, -16]]]}"#
        let path = try directory.write("pipelines/p.json", "{\"name\": \"p\", \"inat\": [\"x\"], \"select\": {\"geojson\": [\(antarctica), \(world), \(band)]}}")
        let selection = try #require(try Pipeline.load(path).selection)
        #expect(selection.places.polygons.count == 3)
        #expect(selection.places.contains(longitude: 0, latitude: -75) && selection.places.contains(longitude: 179.9, latitude: 10))
        let bandOnly = try directory.write("pipelines/band.json", "{\"name\": \"p\", \"inat\": [\"x\"], \"select\": {\"geojson\": \(band)}}")
        let places = try #require(try Pipeline.load(bandOnly).selection).places
        #expect(places.contains(longitude: 0, latitude: -18) && places.contains(longitude: 179.5, latitude: -17))
        #expect(!places.contains(longitude: 0, latitude: -10))
    }

    @Test func aGeoJSONFileWithNoPolygonIsAnErrorNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("places/none.geojson", "{\"type\": \"FeatureCollection\", \"features\": []}")
        let path = try directory.write("pipelines/p.json", "{\"name\": \"p\", \"inat\": [\"x\"], \"select\": {\"geojson\": \"../places/none.geojson\"}}")
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == directory.file("pipelines/../places/none.geojson") || error.path == file, "\(error.description)")
        #expect(error.message.contains("the file holds no polygon"), "\(error.description)")
    }

    /// A GeoJSON file whose shape is wrong is told as the pipeline's key (which entry of a list
    /// of places), the file and where in it: it was told by the file alone, which of three
    /// places of the pipeline unsaid.
    @Test func aWrongShapeInAGeoJSONFileNamesThePipelineItsKeyAndTheFile() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("places/good.geojson", #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#)
        _ = try directory.write("places/open.geojson", #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}"#)
        let path = try directory.write(
            "pipelines/p.json",
            #"{"name": "p", "inat": ["x"], "select": {"geojson": ["../places/good.geojson", {"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 0]]]}, "../places/open.geojson"]}}"#)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == path)
        #expect(error.message.hasPrefix(#"select.geojson[2]: GeoJSON file "\#(directory.file("pipelines/../places/open.geojson"))": the file's root.coordinates[0] is not closed"#), "\(error.description)")
    }

    /// Two triangles that share a slanted edge, in decimals as a file gives them: its points
    /// (decimal midpoints, and points along it) are on the edge of both, so in both, and points
    /// just either side are in one each: none falls between two places that share a border.
    @Test func aPointOnASlantedEdgeIsInsideAndNeighboursThatShareTheEdgeLeaveNoGap() {
        let below = Polygon(rings: [[-3, 48.83, -3.48, 48.8, -3, 48.8, -3, 48.83]])
        let above = Polygon(rings: [[-3, 48.83, -3.48, 48.83, -3.48, 48.8, -3, 48.83]])
        #expect(below.contains(longitude: -3.24, latitude: 48.815))
        #expect(above.contains(longitude: -3.24, latitude: 48.815))
        for step in 1..<200 {
            let t = Double(step) / 200
            let (x, y) = (-3 - 0.48 * t, 48.83 - 0.03 * t)
            #expect(below.contains(longitude: x, latitude: y) && above.contains(longitude: x, latitude: y), "\(x), \(y)")
            for offset in [1e-7, -1e-7, 1e-5, -1e-5] {
                let inBelow = below.contains(longitude: x, latitude: y + offset)
                let inAbove = above.contains(longitude: x, latitude: y + offset)
                #expect(inBelow != inAbove, "\(x), \(y + offset): below \(inBelow), above \(inAbove)")
                #expect(inAbove == (offset > 0))
            }
        }
        // Further than the tolerance is not on it.
        #expect(!below.contains(longitude: -3.24, latitude: 48.815 + 1e-8))
    }

    /// Taxa as in "all of Aves (3) except Anatidae (6912), but with Anas (6914)".
    @Test(arguments: [
        (7024, "48460/1/2/355675/3/7251/7823", true),       // a songbird
        (6930, "48460/1/2/355675/3/6888/6912", false),       // a duck outside Anas
        (6914, "48460/1/2/355675/3/6888/6912", true),        // Anas itself
        (6937, "48460/1/2/355675/3/6888/6912/6914", true),   // a species of Anas
        (3, "48460/1/2/355675", true),                       // Aves itself
        (6912, "48460/1/2/355675/3/6888", false),            // Anatidae itself
        (41638, "48460/1/2/355675/40151", false),            // a mammal
        (99, "", false),                                     // no lineage
    ])
    func theNearestTaxonOfTheLineageNamedInTheRuleDecides(id: Int, ancestry: String, kept: Bool) {
        let rule = TaxonRule(include: [3, 6914], exclude: [6912])
        let selected = Array(ancestry.utf8).withUnsafeBytes { rule.selects(id: Int64(id), ancestry: $0, rank: nil) }
        #expect(selected == kept)
    }

    @Test func ranksKeepOnlyTaxaOfTheirRanksAndAnExclusionAloneKeepsTheRest() {
        let species = TaxonRule(ranks: ["species", "subspecies"])
        let lineage = Array("48460/1/2".utf8)
        lineage.withUnsafeBytes { ancestry in
            #expect(Array("species".utf8).withUnsafeBytes { species.selects(id: 5, ancestry: ancestry, rank: $0) })
            #expect(!Array("genus".utf8).withUnsafeBytes { species.selects(id: 5, ancestry: ancestry, rank: $0) })
            #expect(!species.selects(id: 5, ancestry: ancestry, rank: nil))
            let notBirds = TaxonRule(exclude: [3])
            #expect(notBirds.selects(id: 5, ancestry: ancestry, rank: nil))
            #expect(!Array("48460/1/2/355675/3".utf8).withUnsafeBytes { notBirds.selects(id: 7, ancestry: $0, rank: nil) })
        }
        #expect(Array("48460/1//x/3".utf8).withUnsafeBytes { TaxonRule.ancestors($0) } == [48460, 1, 3])
    }
}
