/// What a field guide ships of its inputs: the pipeline file's `select`, whatever the input
/// format. The bundle stage applies it (`BundleSelection`).
///
/// ```json
/// "select": {
///   "bbox": [[-10, 35, 5, 44], [170, -50, -170, -30]],
///   "geojson": "places/park.geojson",
///   "obscured": "point",
///   "taxa": {"include": [3], "exclude": [6912], "ranks": ["species"]},
///   "quality_grades": ["research", "needs_id"],
///   "observed": {"from": "2015-01-01", "to": "2024-12-31"},
///   "min_photos": 1,
///   "caps": {"observations_per_taxon": 20, "photos_per_taxon": 10, "license_preference": ["cc0", "cc-by"]}
/// }
/// ```
/// Every key is optional; an unknown key or value is an error naming it. Places are the union of
/// the boxes and the polygons (inline GeoJSON, or a GeoJSON file's path relative to the pipeline
/// file; a list of either).
public struct Selection: Sendable, Equatable {
    /// What happens to an observation with obscured coordinates when places are selected. Its
    /// point is public and random within a cell of about 0.2 degrees around the true place, so it
    /// may fall outside a park it is inside, or inside one it is not.
    public enum ObscuredRule: String, Sendable, Equatable {
        /// Its public point is tested like any other (the default: what the app will show).
        case point
        /// It is dropped: a guide of a small place ships only observations known to be there.
        case drop
    }

    public var places = Places()
    public var obscured = ObscuredRule.point
    public var taxa = TaxonRule()
    /// Empty: every grade.
    public var qualityGrades: [String] = []
    /// `YYYY-MM-DD`, inclusive; an observation without a date is outside any range.
    public var observedFrom: String? = nil
    public var observedTo: String? = nil
    /// The fewest photos (that ship) an observation needs; 0: no minimum.
    public var minimumPhotos = 0
    public var caps = SelectionCaps()
    /// The GeoJSON files the places were read from (resolved paths), for the bundle's depfile.
    public var files: [String] = []

    public init() {}

    /// The grades, as iNaturalist writes them (lower case): the one list.
    static let qualityGrades: [StaticString] = ["research", "needs_id", "casual"]
    public static let qualityGradeNames = qualityGrades.map { "\($0)" }

    /// Whether `text` is one of the grades: ingest drops any other value with a finding, which a
    /// `quality_grades` rule would otherwise have removed without a word (`RESEARCH`, `unknown`).
    static func isQualityGrade(_ text: JSONText) -> Bool {
        qualityGrades.contains { text.equals($0) }
    }
    static let keys = ["bbox", "geojson", "obscured", "taxa", "quality_grades", "observed", "min_photos", "caps"]

    /// Reads `select` from a parsed pipeline file.
    ///
    /// - Throws: `FieldpackError` naming the key (`select.bbox[1]`) and what is wrong with it.
    static func read(_ value: JSONValue, pipelinePath path: String) throws -> Selection {
        guard value.isObject else { throw FieldpackError(path: path, "\"select\" must be an object of selection rules") }
        var selection = Selection()
        try PipelineKeys.refuseUnknown(in: value, known: keys, place: "select", kind: "a selection rule", path: path)
        if let bbox = value["bbox"], !bbox.isNull {
            // (An object's `elements` are its values: `{"x": [1, 2, 3, 4]}` was read as a list.)
            let list = bbox.isArray ? bbox.elements.map { $0 } : []
            if list.first?.isArray ?? false {
                for (index, box) in list.enumerated() { selection.places.boxes.append(try Self.box(box, "select.bbox[\(index)]", path)) }
            } else {
                selection.places.boxes.append(try Self.box(bbox, "select.bbox", path))
            }
        }
        if let geojson = value["geojson"], !geojson.isNull {
            let list = geojson.isArray ? geojson.elements.map { $0 } : [geojson]
            // An empty place would select nothing, or, taken as no rule, every place: neither is
            // what a file of no outline meant (a drawing tool's empty export, a filter that
            // matched no feature), so it is an error, as an empty box list is.
            if list.isEmpty { throw FieldpackError(path: path, "select.geojson is an empty list: give a place's outline, or leave geojson out") }
            for (index, entry) in list.enumerated() {
                let place = geojson.isArray ? "select.geojson[\(index)]" : "select.geojson"
                if let file = entry.string {
                    let resolved = file.hasPrefix("/") ? file : "\(directory(of: path))/\(file)"
                    let found = try Self.polygons(file: resolved, place: place, pipelinePath: path)
                    guard !found.isEmpty else {
                        throw FieldpackError(path: resolved, "\(place): the file holds no polygon (no Polygon or MultiPolygon in it): give the place's outline")
                    }
                    selection.places.polygons += found
                    selection.files.append(resolved)
                } else {
                    let found = try GeoJSON.polygons(entry, place: place, path: path)
                    guard !found.isEmpty else {
                        throw FieldpackError(path: path, "\(place) holds no polygon (no Polygon or MultiPolygon in it): give the place's outline")
                    }
                    selection.places.polygons += found
                }
            }
        }
        if let obscured = value["obscured"], !obscured.isNull {
            guard let rule = obscured.string.flatMap(ObscuredRule.init(rawValue:)) else {
                throw FieldpackError(path: path, "select.obscured must be \"point\" or \"drop\"")
            }
            selection.obscured = rule
            // The rule says how obscured points meet a place: with no place it would do nothing.
            if selection.places.boxes.isEmpty && selection.places.polygons.isEmpty {
                throw FieldpackError(
                    path: path,
                    "select.obscured applies to observations tested against a place, and no select.bbox or select.geojson is given: give a place, or leave it out")
            }
        }
        if let taxa = value["taxa"], !taxa.isNull { selection.taxa = try Self.taxa(taxa, path) }
        if let grades = value["quality_grades"], !grades.isNull {
            guard grades.isArray else { throw FieldpackError(path: path, "select.quality_grades must be an array") }
            // Read as no rule, an empty list would keep every grade: say which, or leave it out.
            guard grades.elements.contains(where: { _ in true }) else {
                throw FieldpackError(path: path, "select.quality_grades is empty: list the grades to keep, or leave it out to keep every grade")
            }
            for grade in grades.elements {
                guard let name = grade.string, qualityGradeNames.contains(name) else {
                    throw FieldpackError(
                        path: path, "select.quality_grades holds \(grade.string.map { "\"\($0)\"" } ?? "a non-string"); the grades are research, needs_id and casual")
                }
                if !selection.qualityGrades.contains(name) { selection.qualityGrades.append(name) }
            }
            selection.qualityGrades.sort()
        }
        if let observed = value["observed"], !observed.isNull {
            guard observed.isObject else { throw FieldpackError(path: path, "select.observed must be {\"from\": date, \"to\": date}") }
            try PipelineKeys.refuseUnknown(in: observed, known: ["from", "to"], place: "select.observed", kind: "a bound of the range", path: path)
            selection.observedFrom = try observed["from"].flatMap { try Self.date($0, "select.observed.from", path) }
            selection.observedTo = try observed["to"].flatMap { try Self.date($0, "select.observed.to", path) }
            // `{}` (or only comments) selects nothing: refused as the other empty rules are.
            if selection.observedFrom == nil && selection.observedTo == nil {
                throw FieldpackError(path: path, "select.observed gives neither \"from\" nor \"to\": give one or both dates, or leave the rule out")
            }
            if let from = selection.observedFrom, let to = selection.observedTo, from > to {
                throw FieldpackError(path: path, "select.observed.from (\(from)) is after select.observed.to (\(to))")
            }
        }
        if let minimum = value["min_photos"], !minimum.isNull {
            selection.minimumPhotos = try SelectionCaps.count(minimum, "select.min_photos", path, from: 0)
        }
        if let caps = value["caps"], !caps.isNull { selection.caps = try SelectionCaps.read(caps, path: path) }
        return selection
    }

    private static func box(_ value: JSONValue, _ place: String, _ path: String) throws -> BoundingBox {
        let numbers = value.elements.compactMap(\.double)
        guard value.isArray, numbers.count == 4, value.elements.map({ $0 }).count == 4 else {
            throw FieldpackError(path: path, "\(place) must be [west, south, east, north] in degrees")
        }
        let box = BoundingBox(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
        guard (-180...180).contains(box.west), (-180...180).contains(box.east) else {
            throw FieldpackError(path: path, "\(place): longitudes must be within -180…180 (west \(box.west), east \(box.east))")
        }
        guard (-90...90).contains(box.south), (-90...90).contains(box.north), box.south <= box.north else {
            throw FieldpackError(
                path: path, "\(place): latitudes must be within -90…90, south no more than north (south \(box.south), north \(box.north))")
        }
        return box
    }

    private static func polygons(file resolved: String, place: String, pipelinePath: String) throws -> [Polygon] {
        guard FileSystem.isRegularFile(resolved) else {
            let problem = FileSystem.isDirectory(resolved) ? "is a folder, expected a file" : "does not exist"
            throw FieldpackError(path: pipelinePath, "\(place): GeoJSON file \"\(resolved)\" \(problem)")
        }
        // A byte order mark is passed over, as in the pipeline file.
        Depfile.noteReading(resolved)
        let buffer = try ReadableFile.contents(of: resolved).withUnsafeBytes { PaddedBuffer(copying: Array(withoutByteOrderMark($0))) }
        let parser = JSONParser()
        let root: JSONValue
        do {
            root = try parser.parse(buffer)
        } catch {
            throw FieldpackError.notJSON(resolved, buffer.bytes, "not valid JSON", error)
        }
        // A shape the file gets wrong is told as the pipeline's key (which of a list of places),
        // then the file and where in it, as an inline one is.
        do {
            return try withExtendedLifetime(parser) { try GeoJSON.polygons(root, place: "the file's root", path: resolved) }
        } catch let error as FieldpackError {
            throw FieldpackError(path: pipelinePath, "\(place): GeoJSON file \"\(resolved)\": \(error.message)")
        }
    }

    private static func taxa(_ value: JSONValue, _ path: String) throws -> TaxonRule {
        guard value.isObject else { throw FieldpackError(path: path, "select.taxa must be {\"include\", \"exclude\", \"ranks\"}") }
        var rule = TaxonRule()
        try PipelineKeys.refuseUnknown(in: value, known: ["include", "exclude", "ranks"], place: "select.taxa", kind: "a taxon rule", path: path)
        for member in value.members where !PipelineKeys.isComment(member.key.string) {
            let key = member.key.string
            let place = "select.taxa.\(key)"
            guard member.value.isArray else { throw FieldpackError(path: path, "\(place) must be an array") }
            switch key {
            case "include", "exclude":
                for element in member.value.elements {
                    guard let id = element.int64, id > 0 else {
                        throw FieldpackError(path: path, "\(place) must hold positive taxon ids")
                    }
                    if key == "include" { rule.include.insert(id) } else { rule.exclude.insert(id) }
                }
            case "ranks":
                for element in member.value.elements {
                    guard let rank = element.string, TaxonRule.knownRanks.contains(rank) else {
                        throw FieldpackError(
                            path: path, "\(place) holds \(element.string.map { "\"\($0)\"" } ?? "a non-string"), not an iNaturalist rank (species, genus, family, …)")
                    }
                    rule.ranks.insert(rank)
                }
            default:
                break  // refused above
            }
        }
        // Read as no rule, a rule of empty lists would keep every taxon (a generated list that
        // came out empty): say which, or leave it out.
        if rule.isEmpty {
            throw FieldpackError(path: path, "select.taxa names no taxon and no rank: give include, exclude or ranks, or leave taxa out")
        }
        if let both = rule.include.intersection(rule.exclude).min() {
            throw FieldpackError(path: path, "select.taxa: taxon \(both) is both included and excluded")
        }
        return rule
    }

    /// A `YYYY-MM-DD` date with a real month and day.
    private static func date(_ value: JSONValue, _ place: String, _ path: String) throws -> String? {
        // A value inside a rule is not left out by `null` (docs/pipeline.md): a bound left out
        // is not given.
        if value.isNull { throw FieldpackError(path: path, "\(place) is null: give a date YYYY-MM-DD, or leave the bound out") }
        guard let text = value.string else { throw FieldpackError(path: path, "\(place) must be a date YYYY-MM-DD") }
        guard Timestamp.day(text) != nil else { throw FieldpackError(path: path, "\(place) \(Timestamp.dayProblem(text))") }
        return text
    }
}
