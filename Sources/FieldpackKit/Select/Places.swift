/// A bounding box in GeoJSON's order: west, south, east, north (degrees of longitude and
/// latitude, WGS 84).
///
/// A box whose west is greater than its east crosses the antimeridian (RFC 7946 §5.2): it holds
/// the longitudes from west to 180 and from -180 to east. Its edges belong to it.
public struct BoundingBox: Sendable, Equatable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    public var crossesAntimeridian: Bool { west > east }

    public func contains(longitude: Double, latitude: Double) -> Bool {
        guard latitude >= south, latitude <= north else { return false }
        if crossesAntimeridian { return longitude >= west || longitude <= east }
        return longitude >= west && longitude <= east
    }
}

/// A GeoJSON polygon: an exterior ring and any holes, each a closed list of (longitude,
/// latitude) positions, taken as straight lines in the longitude/latitude plane.
///
/// Inside is decided by the even-odd rule over all its rings, so a point inside a hole is
/// outside the polygon whatever the rings' winding (RFC 7946 asks for counterclockwise exteriors,
/// but older files do not follow it). A point on an edge of any ring, a hole's included, is
/// inside: a place's boundary belongs to it, as a box's edges do. "On" is within
/// `edgeTolerance` (about a tenth of a millimetre): a decimal point on a slanted edge, such as
/// the midpoint of two decimal vertices, is rarely exactly on it in binary. Each edge's crossing
/// is computed from its southern end whichever way its ring runs along it, so two places that
/// share an edge (adjacent parks, a MultiPolygon of municipalities) split the points near it
/// between them, none left in neither. A polygon that crosses the antimeridian must be split
/// there, as RFC 7946 §3.1.9 says.
public struct Polygon: Sendable, Equatable {
    /// Each ring's positions as [lon0, lat0, lon1, lat1, …], first position repeated last.
    public var rings: [[Double]]
    /// The polygon's extent, to pass most points by without walking the edges.
    public let bounds: BoundingBox

    /// How far from an edge (in degrees, about 0.1 mm) a point is on it.
    public static let edgeTolerance = 1e-9

    public init(rings: [[Double]]) {
        self.rings = rings
        var box = BoundingBox(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
        for ring in rings {
            for index in stride(from: 0, to: ring.count - 1, by: 2) {
                box.west = min(box.west, ring[index])
                box.east = max(box.east, ring[index])
                box.south = min(box.south, ring[index + 1])
                box.north = max(box.north, ring[index + 1])
            }
        }
        bounds = box
    }

    public func contains(longitude x: Double, latitude y: Double) -> Bool {
        let tolerance = Self.edgeTolerance
        guard x >= bounds.west - tolerance, x <= bounds.east + tolerance, y >= bounds.south - tolerance, y <= bounds.north + tolerance
        else { return false }
        var inside = false
        for ring in rings {
            var index = 0
            while index + 3 < ring.count {
                var (x1, y1, x2, y2) = (ring[index], ring[index + 1], ring[index + 2], ring[index + 3])
                index += 2
                if Self.isOnEdge(x, y, x1, y1, x2, y2) { return true }
                // A ray towards +x crosses the edge: the edge straddles y (half-open, so a
                // vertex on the ray counts once) and the crossing lies right of the point. The
                // crossing is taken from the edge's southern end, the same for both rings that
                // share the edge.
                if y1 > y2 { (x1, y1, x2, y2) = (x2, y2, x1, y1) }
                if y1 <= y && y < y2 {
                    let crossing = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
                    if x < crossing { inside.toggle() }
                }
            }
        }
        return inside
    }

    /// Whether (x, y) is within `edgeTolerance` of the edge from (x1, y1) to (x2, y2).
    @inline(__always)
    private static func isOnEdge(_ x: Double, _ y: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Bool {
        let tolerance = edgeTolerance
        guard x >= min(x1, x2) - tolerance, x <= max(x1, x2) + tolerance, y >= min(y1, y2) - tolerance, y <= max(y1, y2) + tolerance
        else { return false }
        let (dx, dy) = (x2 - x1, y2 - y1)
        // The cross product is the distance from the edge's line times the edge's length.
        return abs(dx * (y - y1) - dy * (x - x1)) <= tolerance * (dx * dx + dy * dy).squareRoot()
    }
}

/// Where kept observations must be: inside any of the boxes or polygons (a MultiPolygon gives
/// one polygon per member).
public struct Places: Sendable, Equatable {
    public var boxes: [BoundingBox] = []
    public var polygons: [Polygon] = []

    public init(boxes: [BoundingBox] = [], polygons: [Polygon] = []) {
        self.boxes = boxes
        self.polygons = polygons
    }

    public var isEmpty: Bool { boxes.isEmpty && polygons.isEmpty }

    /// Whether a place holds the point. Longitude 180 and -180 are one meridian: a point on it is
    /// in a place that holds it written either way (a box or ring that ends at -180, the east
    /// half of a place cut at the antimeridian, holds a point written at 180).
    public func contains(longitude: Double, latitude: Double) -> Bool {
        if abs(longitude) == 180 { return holds(longitude: 180, latitude: latitude) || holds(longitude: -180, latitude: latitude) }
        return holds(longitude: longitude, latitude: latitude)
    }

    private func holds(longitude: Double, latitude: Double) -> Bool {
        boxes.contains { $0.contains(longitude: longitude, latitude: latitude) }
            || polygons.contains { $0.contains(longitude: longitude, latitude: latitude) }
    }
}
