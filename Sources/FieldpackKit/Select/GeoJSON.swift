/// Reads the polygons of a GeoJSON object (RFC 7946): a Polygon, a MultiPolygon, a Feature with
/// one of them as its geometry, or a FeatureCollection of such features. Anything else (points,
/// lines, a ring that is not closed or has fewer than four positions, a position out of range)
/// is an error naming where it is, so a wrong file is never taken as "no place".
enum GeoJSON {
    /// - Parameters:
    ///   - place: how the error messages name `value` (`select.geojson`, or the file's name).
    ///   - path: the file the errors are reported against.
    static func polygons(_ value: JSONValue, place: String, path: String) throws -> [Polygon] {
        guard value.isObject, let type = value["type"]?.string else {
            throw FieldpackError(path: path, "\(place) must be a GeoJSON object with a \"type\"")
        }
        switch type {
        case "Polygon":
            return [try polygon(value["coordinates"], place: "\(place).coordinates", path: path)]
        case "MultiPolygon":
            guard let list = value["coordinates"], list.isArray else {
                throw FieldpackError(path: path, "\(place).coordinates must be an array of polygons")
            }
            return try list.elements.enumerated().map {
                try polygon($0.element, place: "\(place).coordinates[\($0.offset)]", path: path)
            }
        case "Feature":
            guard let geometry = value["geometry"], !geometry.isNull else {
                throw FieldpackError(path: path, "\(place).geometry must be a Polygon or a MultiPolygon")
            }
            return try polygons(geometry, place: "\(place).geometry", path: path)
        case "FeatureCollection":
            guard let features = value["features"], features.isArray else {
                throw FieldpackError(path: path, "\(place).features must be an array")
            }
            var all: [Polygon] = []
            for (index, feature) in features.elements.enumerated() {
                all += try polygons(feature, place: "\(place).features[\(index)]", path: path)
            }
            return all
        default:
            throw FieldpackError(
                path: path, "\(place) is a GeoJSON \(type); a place must be a Polygon, a MultiPolygon, a Feature or a FeatureCollection of them")
        }
    }

    /// Whether the edge from position `edge` to the next of a closed `ring` (longitude, latitude
    /// pairs) is one from -180 to 180 that a place may have: along a pole, or between two runs of
    /// the ring along the antimeridian (it comes to the edge along -180 or 180 and leaves along
    /// the other), as a polar cap's or a band around the world's. A ring crossing the antimeridian
    /// cut at ±180 but not split in two comes to its edges from ±180 along a parallel
    /// (`[[170, -20], [180, -20], [-180, -20], [-170, -20], …]`): on the plane it is the rest of
    /// the world.
    static func spansTheWorld(_ ring: [Double], edge: Int) -> Bool {
        let positions = ring.count / 2 - 1  // the last repeats the first
        func position(_ index: Int) -> (longitude: Double, latitude: Double) {
            let wrapped = (index % positions + positions) % positions
            return (ring[2 * wrapped], ring[2 * wrapped + 1])
        }
        let (from, to) = (position(edge), position(edge + 1))
        guard abs(from.longitude) == 180, abs(to.longitude) == 180, from.longitude != to.longitude else { return false }
        if from.latitude == to.latitude && abs(from.latitude) == 90 { return true }
        // The nearest other positions before and after the edge, on the same meridian as its ends.
        func neighbour(of end: (longitude: Double, latitude: Double), from index: Int, step: Int) -> (longitude: Double, latitude: Double)? {
            var index = index
            for _ in 0..<positions {
                let other = position(index)
                if other != end { return other }
                index += step
            }
            return nil
        }
        guard let before = neighbour(of: from, from: edge - 1, step: -1), let after = neighbour(of: to, from: edge + 2, step: 1) else { return false }
        return before.longitude == from.longitude && after.longitude == to.longitude
    }

    private static func polygon(_ value: JSONValue?, place: String, path: String) throws -> Polygon {
        guard let value, value.isArray else { throw FieldpackError(path: path, "\(place) must be an array of rings") }
        var rings: [[Double]] = []
        for (index, ring) in value.elements.enumerated() {
            let where_ = "\(place)[\(index)]"
            guard ring.isArray else { throw FieldpackError(path: path, "\(where_) must be an array of positions") }
            var coordinates: [Double] = []
            for (number, position) in ring.elements.enumerated() {
                var parts = position.elements.makeIterator()
                guard position.isArray, let longitude = parts.next()?.double, let latitude = parts.next()?.double,
                      (-180...180).contains(longitude), (-90...90).contains(latitude)
                else {
                    throw FieldpackError(
                        path: path, "\(where_)[\(number)] must be a position [longitude, latitude] within -180…180, -90…90")
                }
                coordinates += [longitude, latitude]
            }
            guard coordinates.count >= 8 else {
                throw FieldpackError(path: path, "\(where_) has \(coordinates.count / 2) positions; a ring needs at least 4")
            }
            guard coordinates[0] == coordinates[coordinates.count - 2], coordinates[1] == coordinates[coordinates.count - 1] else {
                throw FieldpackError(path: path, "\(where_) is not closed: its last position must repeat its first")
            }
            // Read on the plane, as GeoJSON is, an edge from 170 to -170 runs 340° the long way
            // round: a ring drawn across the antimeridian would select the rest of the world.
            // An edge from -180 to 180 is right on the plane only as the edge of a polar cap or
            // of a band around the world (`spansTheWorld`); a ring cut at ±180 but not split in
            // two has one too, and selects the rest of the world as well.
            for start in stride(from: 0, to: coordinates.count - 2, by: 2)
            where abs(coordinates[start + 2] - coordinates[start]) > 180 && !Self.spansTheWorld(coordinates, edge: start / 2) {
                throw FieldpackError(
                    path: path,
                    "\(where_)[\(start / 2)] to [\(start / 2 + 1)] spans \(abs(coordinates[start + 2] - coordinates[start]))° of longitude: a ring "
                        + "crossing the antimeridian must be cut in two at ±180 (RFC 7946 §3.1.9), or give a bbox with west > east")
            }
            rings.append(coordinates)
        }
        guard !rings.isEmpty else { throw FieldpackError(path: path, "\(place) has no rings") }
        return Polygon(rings: rings)
    }
}
