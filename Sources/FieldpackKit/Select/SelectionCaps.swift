/// At most so many observations and photos per taxon, so that a guide of 2,000 species ships a
/// predictable bundle.
///
/// ```json
/// "caps": {"observations_per_taxon": 20, "photos_per_taxon": 10, "license_preference": ["cc0", "cc-by"]}
/// ```
/// The rank that decides what is kept, the same for both caps:
/// 1. research grade first;
/// 2. then the licence preference: the observation's own licence for the observation cap, the
///    photo's for the photo cap; licences in `license_preference` order, then those not listed
///    in `License`'s order (most open first);
/// 3. then the newest: the later `observed_on` date (an observation without one comes last);
/// 4. then the lower id (the observation's primary key; for the photo cap, the photo's id).
///
/// The photo cap counts the distinct photos of a taxon's kept observations (a photo linked twice
/// counts once, at its better rank); the taxon's own photos (`taxon_photos`, which iNaturalist
/// already bounds) are not capped. The observation cap applies first, then the photo cap, to the
/// photos of the observations it kept. With `min_photos` above one, the photo cap fills whole
/// observations (`BundleSelection.capPhotos`).
public struct SelectionCaps: Sendable, Equatable {
    public var observationsPerTaxon: Int? = nil
    public var photosPerTaxon: Int? = nil
    public var licensePreference: [License] = []

    public init() {}

    public var isEmpty: Bool { observationsPerTaxon == nil && photosPerTaxon == nil }

    /// The licence's place in the preference (0 first): listed ones in their order, then the
    /// others in `License`'s order; an unknown code last.
    public func rank(of license: License?) -> Int {
        guard let license else { return License.allCases.count * 2 }
        if let index = licensePreference.firstIndex(of: license) { return index }
        return licensePreference.count + License.allCases.firstIndex(of: license)!
    }

    static let maximum: Int64 = 1_000_000

    static func read(_ value: JSONValue, path: String) throws -> SelectionCaps {
        guard value.isObject else { throw FieldpackError(path: path, "select.caps must be an object") }
        var caps = SelectionCaps()
        try PipelineKeys.refuseUnknown(
            in: value, known: ["observations_per_taxon", "photos_per_taxon", "license_preference"], place: "select.caps", kind: "a cap", path: path)
        for member in value.members where !PipelineKeys.isComment(member.key.string) {
            let key = member.key.string
            let place = "select.caps.\(key)"
            switch key {
            case "observations_per_taxon": caps.observationsPerTaxon = try count(member.value, place, path, from: 1)
            case "photos_per_taxon": caps.photosPerTaxon = try count(member.value, place, path, from: 1)
            case "license_preference":
                guard member.value.isArray else { throw FieldpackError(path: path, "\(place) must be an array of licence codes") }
                for element in member.value.elements {
                    guard let code = element.string, let license = License.parse(code) else {
                        throw FieldpackError(path: path, "\(place) holds \(element.string.map { "an unknown licence code \"\($0)\"" } ?? "a value that is not a licence code (a string such as \"cc-by\")")")
                    }
                    if !caps.licensePreference.contains(license) { caps.licensePreference.append(license) }
                }
            default:
                break  // refused above
            }
        }
        // `{}` (or only comments) caps nothing: refused as the other empty rules are.
        if caps.isEmpty && caps.licensePreference.isEmpty {
            throw FieldpackError(
                path: path, "select.caps gives no cap: give observations_per_taxon or photos_per_taxon, or leave the rule out")
        }
        // The preference orders what a cap keeps: with no cap it would change nothing.
        if !caps.licensePreference.isEmpty && caps.isEmpty {
            throw FieldpackError(
                path: path,
                "select.caps.license_preference orders what the caps keep, and no cap is given: give observations_per_taxon or photos_per_taxon, or leave it out")
        }
        return caps
    }

    /// An integer from `minimum` to `maximum`, or an error naming the key and the value.
    static func count(_ value: JSONValue, _ place: String, _ path: String, from minimum: Int64) throws -> Int {
        guard let number = value.int64, number >= minimum, number <= maximum else {
            let shown = value.int64.map(String.init) ?? value.double.map { "\($0)" } ?? value.string.map { "\"\($0)\"" } ?? "not a number"
            throw FieldpackError(path: path, "\(place) must be an integer from \(minimum) to \(maximum) (is \(shown))")
        }
        return Int(number)
    }
}
