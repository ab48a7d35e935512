/// What the pipeline file says about shipping photos: which licences may ship, the app's display
/// targets, its thumbnail memory budget and the cost model's figures.
///
/// ```json
/// "licenses": ["cc0", "pd", "cc-by", "cc-by-sa"],
/// "targets": [{"name": "list-cell", "width": 60, "height": 60, "scale": 3, "mode": "fill"}],
/// "memory_budget_bytes": 52428800,
/// "costs": {"bytes_per_pixel": 4, "row_alignment": 64, "assumed_original": [2048, 1536],
///           "download_bytes_per_pixel": {"small": 0.3}, "measured_sizes": "sizes.csv"}
/// ```
public struct ShippingPolicy: Sendable, Equatable {
    public var licenses: Set<License> = License.commercialDefault
    public var targets: [DisplayTarget] = []
    /// The app's LRU `costLimit` for decoded thumbnails, in bytes.
    public var memoryBudget: Int = 50 << 20
    public var model = CostModel()
    /// A CSV of measured tier file sizes (`MeasuredSizes`) to fit the download figures to.
    public var measuredSizes: String? = nil

    public init() {}

    /// Reads the policy from a parsed pipeline file; absent keys keep the defaults.
    static func read(_ root: JSONValue, path: String) throws -> ShippingPolicy {
        var policy = ShippingPolicy()
        if let list = root["licenses"], !list.isNull {
            guard list.isArray else { throw FieldpackError(path: path, "\"licenses\" must be an array of licence codes") }
            // Read as given, an empty list would ship no photo at all, without a word.
            guard list.elements.contains(where: { _ in true }) else {
                throw FieldpackError(path: path, "\"licenses\" is empty, so no photo could ship: list the licences to ship, or leave it out for the default")
            }
            var licenses = Set<License>()
            for element in list.elements {
                // An empty code is all rights reserved in photo data (no licence), never here: a
                // generated list's trailing comma (`"cc-by", ""`) shipped every unlicensed photo.
                if element.string?.isEmpty == true {
                    throw FieldpackError(
                        path: path, "\"licenses\" holds an empty code: write \"all-rights-reserved\" to ship photos without a licence")
                }
                guard let code = element.string, let license = License.parse(code) else {
                    throw FieldpackError(path: path, "\"licenses\" holds \(element.string.map { "an unknown licence code \"\($0)\"" } ?? "a value that is not a licence code (a string such as \"cc-by\")")")
                }
                licenses.insert(license)
            }
            policy.licenses = licenses
        }
        if let list = root["targets"], !list.isNull {
            guard list.isArray else { throw FieldpackError(path: path, "\"targets\" must be an array") }
            for (index, element) in list.elements.enumerated() {
                let place = "targets[\(index)]"
                if element.isObject {
                    try PipelineKeys.refuseUnknown(in: element, known: DisplayTarget.keys, place: place, kind: "a display target's key", path: path)
                }
                guard let name = element["name"]?.string, !name.isEmpty,
                      let width = element["width"]?.double, let height = element["height"]?.double,
                      width > 0, height > 0
                else { throw FieldpackError(path: path, "\(place) needs a name and a positive width and height in points") }
                try Self.check(width, "\(place).width", atMost: Self.maximumPoints, path: path)
                try Self.check(height, "\(place).height", atMost: Self.maximumPoints, path: path)
                // A key given with the wrong type is refused, never taken for an absent one (a
                // "scale": "3" was a scale of 1, and the app fetched the 75-px square).
                let givenScale = element["scale"].flatMap { $0.isNull ? nil : $0 }
                guard let scale = givenScale.map({ $0.double }) ?? 1 else {
                    throw FieldpackError(path: path, RecordError.wrongType("\(place).scale", givenScale!, expected: "a positive number").reason)
                }
                guard scale > 0 else { throw FieldpackError(path: path, "\(place).scale must be positive") }
                try Self.check(scale, "\(place).scale", atMost: Self.maximumScale, path: path)
                let givenMode = element["mode"].flatMap { $0.isNull ? nil : $0 }
                guard let mode = DisplayTarget.Mode(rawValue: givenMode.map { $0.string ?? "" } ?? "fill") else {
                    throw FieldpackError(path: path, "\(place).mode must be \"fill\" or \"fit\"")
                }
                if policy.targets.contains(where: { $0.name == name }) {
                    throw FieldpackError(path: path, "\(place): target \"\(name)\" is defined twice")
                }
                let target = DisplayTarget(name: name, width: width, height: height, scale: scale, mode: mode)
                // The box is points × scale, rounded: under half a pixel it is 0, and every cost 0.
                guard target.box.width >= 1, target.box.height >= 1 else {
                    throw FieldpackError(
                        path: path,
                        "\(place): \(width) × \(height) points at scale \(scale) is a box of \(target.box.width) × \(target.box.height) pixels: each side needs at least 1 pixel")
                }
                policy.targets.append(target)
            }
        }
        if let budget = root["memory_budget_bytes"], !budget.isNull {
            guard let bytes = budget.int64, bytes > 0 else {
                throw FieldpackError(path: path, "\"memory_budget_bytes\" must be a positive integer")
            }
            try Self.check(bytes, "\"memory_budget_bytes\"", atMost: Self.maximumMemoryBudget, path: path)
            policy.memoryBudget = Int(bytes)
        }
        if let costs = root["costs"], !costs.isNull {
            guard costs.isObject else { throw FieldpackError(path: path, "\"costs\" must be an object") }
            let keys = ["bytes_per_pixel", "row_alignment", "assumed_original", "download_bytes_per_pixel", "measured_sizes"]
            try PipelineKeys.refuseUnknown(in: costs, known: keys, place: "costs", kind: "a costs setting", path: path)
            if let value = try Self.integer(costs["bytes_per_pixel"], "costs.bytes_per_pixel", path: path) {
                guard value > 0 else { throw FieldpackError(path: path, "costs.bytes_per_pixel must be positive") }
                try Self.check(value, "costs.bytes_per_pixel", atMost: 16, path: path)
                policy.model.bytesPerPixel = Int(value)
            }
            if let value = try Self.integer(costs["row_alignment"], "costs.row_alignment", path: path) {
                guard value > 0 else { throw FieldpackError(path: path, "costs.row_alignment must be positive") }
                try Self.check(value, "costs.row_alignment", atMost: 4096, path: path)
                policy.model.rowAlignment = Int(value)
            }
            if let size = costs["assumed_original"], !size.isNull {
                let elements = size.isArray ? Array(size.elements) : []
                let values = elements.compactMap(\.int64)
                guard values.count == 2, elements.count == 2, values.allSatisfy({ $0 > 0 }) else {
                    throw FieldpackError(path: path, "costs.assumed_original must be [width, height]")
                }
                for value in values { try Self.check(value, "costs.assumed_original", atMost: Self.maximumPixels, path: path) }
                policy.model.assumedOriginal = PixelSize(width: Int(values[0]), height: Int(values[1]))
            }
            if let rates = costs["download_bytes_per_pixel"], !rates.isNull {
                guard rates.isObject else {
                    throw FieldpackError(
                        path: path,
                        RecordError.wrongType("costs.download_bytes_per_pixel", rates, expected: "an object of tiers and bytes per pixel ({\"small\": 0.3})").reason)
                }
                try PipelineKeys.refuseUnknown(
                    in: rates, known: PhotoTier.allCases.map(\.rawValue), place: "costs.download_bytes_per_pixel", kind: "a tier", path: path)
                for member in rates.members where !PipelineKeys.isComment(member.key.string) {
                    guard let tier = PhotoTier(rawValue: member.key.string), let rate = member.value.double, rate > 0 else {
                        throw FieldpackError(path: path, "costs.download_bytes_per_pixel.\(member.key.string) must be a tier and a positive number")
                    }
                    try Self.check(rate, "costs.download_bytes_per_pixel.\(member.key.string)", atMost: 16, path: path)
                    policy.model.downloadBytesPerPixel[tier.ordinal] = rate
                }
            }
            if let value = costs["measured_sizes"], !value.isNull {
                guard let file = value.string, !file.isEmpty else {
                    throw FieldpackError(path: path, "costs.measured_sizes must be the path of a CSV file")
                }
                // Named here, with the setting, not later by the stage that opens it.
                guard FileSystem.isRegularFile(file) else {
                    throw FieldpackError(path: path, "costs.measured_sizes \"\(file)\" is not a file (a path from where make runs, as the inputs' are)")
                }
                policy.measuredSizes = file
            }
        }
        return policy
    }

    /// A setting that is a whole number, nil when absent or null.
    ///
    /// - Throws: when it is given with another type (`"8"`), which was taken for an absent one.
    private static func integer(_ value: JSONValue?, _ place: String, path: String) throws -> Int64? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.int64 else {
            throw FieldpackError(path: path, RecordError.wrongType(place, value, expected: "a whole number").reason)
        }
        return number
    }

    /// The largest values the pipeline's numbers may take: far past any screen or photo, and
    /// small enough that pixel counts and byte costs stay exact integers.
    static let maximumPoints = 10_000.0
    static let maximumScale = 10.0
    static let maximumPixels: Int64 = 100_000
    static let maximumMemoryBudget: Int64 = 1 << 40

    /// Refuses a number past `maximum` (or not finite), naming the key and the value.
    private static func check(_ value: Double, _ key: String, atMost maximum: Double, path: String) throws {
        guard value.isFinite, value <= maximum else {
            let shown = value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
            throw FieldpackError(path: path, "\(key) must be at most \(Int64(maximum)) (is \(shown))")
        }
    }

    private static func check(_ value: Int64, _ key: String, atMost maximum: Int64, path: String) throws {
        guard value <= maximum else { throw FieldpackError(path: path, "\(key) must be at most \(maximum) (is \(value))") }
    }
}
