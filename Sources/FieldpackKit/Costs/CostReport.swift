/// What shipping the photos costs, per display target, and what was excluded: the
/// `costs-report.json` published beside the bundle, and the aggregates in its `bundle_info`.
///
/// Photos are counted by size class (a photo's costs depend only on it), and walk through each
/// target's LRU as they are counted (`LRUWalk`): nothing is kept per photo.
public struct CostReport: Sendable {
    public var photos = 0
    public var shipped = 0
    public var remote = 0
    public var assumedDimensions = 0
    /// Photos excluded, by reason (`PhotoShipping.Exclusion.key`).
    public var excluded: [String: Int] {
        var all = excludedOtherwise
        for license in License.allCases where excludedByLicense[license.ordinal] > 0 {
            all[PhotoShipping.Exclusion.license(license).key, default: 0] += excludedByLicense[license.ordinal]
        }
        return all
    }
    /// The exclusions by licence, the most common reason, counted per licence (`License.ordinal`)
    /// rather than under a key spelt for each photo; the others by key.
    private var excludedByLicense = [Int](repeating: 0, count: License.allCases.count)
    private var excludedOtherwise: [String: Int] = [:]
    public let targets: [DisplayTarget]
    public let budget: Int
    /// The model the costs use: the pipeline's, with any fitted download figures applied.
    public private(set) var model: CostModel
    public private(set) var fits: [DownloadSizeFit.TierFit] = []
    /// What the pipeline's `select` removed (nil: no selection; the report then has no
    /// `selection` part).
    public var selection: SelectionCounts? = nil

    /// The distinct size classes of shipped photos, in order of first appearance.
    public private(set) var classes: [SizeClass] = []
    private var classIndex: [SizeClass: Int32] = [:]
    private var classCounts: [Int] = []
    /// Each class's decoded bytes in each target (a fitted download figure does not change
    /// them), and each target's LRU walk over the shipped photos in bundle order (by id).
    private var classDecoded: [[Int]] = []
    private var walks: [LRUWalk]

    public init(policy: ShippingPolicy) {
        targets = policy.targets
        budget = policy.memoryBudget
        model = policy.model
        walks = policy.targets.map { _ in LRUWalk(budget: policy.memoryBudget) }
    }

    /// Counts one photo (photos arrive in bundle order: by id).
    public mutating func add(_ photo: PhotoShipping) {
        photos += 1
        guard let exclusion = photo.exclusion else {
            countShipped(photo.sizeClass)
            return
        }
        if case .license(let license) = exclusion {
            excludedByLicense[license.ordinal] += 1
        } else {
            excludedOtherwise[exclusion.key, default: 0] += 1
        }
    }

    /// Counts one photo the selection leaves out without deciding it; `keepShipped` adds all of
    /// them to `excluded` as `selection:not-selected`.
    public mutating func addNotSelected(_ count: Int = 1) {
        photos += count
    }

    /// Counts one photo that nothing in the bundle reaches, without a selection: excluded as
    /// `unlinked` (`PhotoShippingLoad.unlinked`).
    public mutating func addUnlinked() {
        photos += 1
        excludedOtherwise[Self.unlinkedKey, default: 0] += 1
    }

    public static let unlinkedKey = "unlinked"

    private mutating func countShipped(_ size: SizeClass) {
        shipped += 1
        if size.remote { remote += 1 }
        if size.original == nil { assumedDimensions += 1 }
        let index: Int32
        if let known = classIndex[size] {
            index = known
        } else {
            index = Int32(classes.count)
            classIndex[size] = index
            classes.append(size)
            classCounts.append(0)
            classDecoded.append(targets.map { model.estimate(size, target: $0).decodedBytes })
        }
        classCounts[Int(index)] += 1
        for slot in walks.indices { walks[slot].add(classDecoded[Int(index)][slot]) }
    }

    /// After a selection: the photos still shipped are the ones `kept` gives (their size
    /// classes, in bundle order, one at a time); the ones it removed are counted as excluded by
    /// `selection:not-selected` and `selection:photo-cap`. The download fit stays the one made
    /// over every photo that passed the licence rules (a calibration of the model, not a count).
    public mutating func keepShipped(
        notSelected: Int, capped: Int, _ kept: (_ count: (SizeClass) -> Void) throws -> Void
    ) rethrows {
        shipped = 0
        remote = 0
        assumedDimensions = 0
        classes = []
        classIndex = [:]
        classCounts = []
        classDecoded = []
        walks = targets.map { _ in LRUWalk(budget: budget) }
        try kept { countShipped($0) }
        if notSelected > 0 { excludedOtherwise["selection:not-selected", default: 0] += notSelected }
        if capped > 0 { excludedOtherwise["selection:photo-cap", default: 0] += capped }
    }

    /// Replaces the download figures of the tiers that measured sizes were fitted for.
    public mutating func apply(_ fits: [DownloadSizeFit.TierFit]) {
        self.fits = fits
        model = DownloadSizeFit.apply(fits, to: model)
    }

    /// The cost of each size class (outer, in `classes` order) in each target (inner).
    public func classCosts() -> [[PhotoCost]] {
        classes.map { size in targets.map { model.estimate(size, target: $0) } }
    }

    /// Aggregates for one target.
    public struct TargetTotals: Sendable {
        public var target: DisplayTarget
        /// Photos per tier, in `PhotoTier.allCases` order, then remote photos (their own URL).
        public var tiers: [Int]
        public var upscaled = 0
        public var download: Distribution
        public var decoded: Distribution
        /// Scrolling the list in bundle order through an LRU of `budget` bytes: how many
        /// thumbnails fit from the top, how many are larger than the whole budget (never
        /// cached), and how many are still cached once the end is reached.
        public var fitFromTop = 0
        public var largerThanBudget = 0
        public var cachedAtTheEnd = 0
    }

    /// Total, percentiles (nearest rank) and maximum of a cost over the shipped photos.
    public struct Distribution: Sendable, Equatable {
        public var total: Int64 = 0
        public var p50 = 0
        public var p90 = 0
        public var p99 = 0
        public var max = 0

        /// From (value, how many photos have it) pairs.
        init(_ weighted: [(value: Int, count: Int)]) {
            let sorted = weighted.filter { $0.count > 0 }.sorted { $0.value < $1.value }
            let count = sorted.reduce(0) { $0 + $1.count }
            guard count > 0 else { return }
            total = sorted.reduce(Int64(0)) { $0 + Int64($1.value) * Int64($1.count) }
            max = sorted.last!.value
            func percentile(_ fraction: Double) -> Int {
                let rank = Swift.max(1, Int((fraction * Double(count)).rounded(.up)))
                var seen = 0
                for entry in sorted {
                    seen += entry.count
                    if seen >= rank { return entry.value }
                }
                return sorted.last!.value
            }
            p50 = percentile(0.5)
            p90 = percentile(0.9)
            p99 = percentile(0.99)
        }
    }

    public func totals() -> [TargetTotals] {
        let costs = classCosts()
        return targets.enumerated().map { slot, target in
            var tiers = [Int](repeating: 0, count: PhotoTier.allCases.count + 1)
            var upscaled = 0
            for (index, count) in classCounts.enumerated() {
                let cost = costs[index][slot]
                tiers[cost.tier?.ordinal ?? PhotoTier.allCases.count] += count
                if cost.upscaled { upscaled += count }
            }
            let decodedByClass = costs.map { $0[slot].decodedBytes }
            var totals = TargetTotals(
                target: target, tiers: tiers, upscaled: upscaled,
                download: Distribution(zip(costs, classCounts).map { ($0[slot].downloadBytes, $1) }),
                decoded: Distribution(zip(decodedByClass, classCounts).map { ($0, $1) }))
            precondition(decodedByClass == classDecoded.map { $0[slot] }, "a fitted model changed decoded sizes")
            totals.fitFromTop = walks[slot].fitFromTop
            totals.cachedAtTheEnd = walks[slot].cachedAtTheEnd
            for (index, count) in classCounts.enumerated() where decodedByClass[index] > budget { totals.largerThanBudget += count }
            return totals
        }
    }

    /// `costs-report.json`, pretty-printed.
    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("photos"); writer.int(photos)
        writer.key("shipped"); writer.int(shipped)
        writer.key("remote"); writer.int(remote)
        writer.key("assumed_dimensions"); writer.int(assumedDimensions)
        writer.key("excluded")
        writeExcluded(into: &writer)
        if let selection {
            writer.key("selection")
            selection.write(into: &writer)
        }
        writer.key("memory_budget_bytes"); writer.int(budget)
        writer.key("model")
        writeModel(into: &writer)
        writer.key("targets")
        writer.beginArray()
        for totals in totals() { Self.write(totals, into: &writer) }
        writer.endArray()
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }

    func writeExcluded(into writer: inout JSONWriter) {
        writer.beginObject()
        let excluded = self.excluded
        for key in excluded.keys.sorted() { writer.key(dynamic: key); writer.int(excluded[key]!) }
        writer.endObject()
    }

    /// The figures used, and how well measured sizes fit them (if any were supplied).
    func writeModel(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("bytes_per_pixel"); writer.int(model.bytesPerPixel)
        writer.key("row_alignment"); writer.int(model.rowAlignment)
        writer.key("assumed_original")
        writer.beginArray(); writer.int(model.assumedOriginal.width); writer.int(model.assumedOriginal.height); writer.endArray()
        writer.key("download_bytes_per_pixel")
        writer.beginObject()
        for tier in PhotoTier.allCases {
            writer.key(dynamic: tier.rawValue)
            writer.double(Self.rounded(model.downloadBytesPerPixel[tier.ordinal]))
        }
        writer.endObject()
        writer.key("measured_fit")
        writer.beginArray()
        for fit in fits {
            writer.beginObject()
            writer.key("tier"); writer.string(fit.tier.rawValue)
            writer.key("samples"); writer.int(fit.samples)
            writer.key("bytes_per_pixel"); writer.double(Self.rounded(fit.bytesPerPixel))
            writer.key("mean_absolute_percentage_error"); writer.double(Self.rounded(fit.meanAbsolutePercentageError))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    /// Four decimals: enough for a bytes-per-pixel figure, and the same text on every machine.
    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    static func write(_ totals: TargetTotals, into writer: inout JSONWriter) {
        let box = totals.target.box
        writer.beginObject()
        writer.key("name"); writer.string(totals.target.name)
        writer.key("mode"); writer.string(totals.target.mode.rawValue)
        writer.key("box")
        writer.beginArray(); writer.int(box.width); writer.int(box.height); writer.endArray()
        writer.key("tiers")
        writer.beginObject()
        for tier in PhotoTier.allCases { writer.key(dynamic: tier.rawValue); writer.int(totals.tiers[tier.ordinal]) }
        writer.key("remote"); writer.int(totals.tiers[PhotoTier.allCases.count])
        writer.endObject()
        writer.key("upscaled"); writer.int(totals.upscaled)
        for (name, values) in [("download_bytes", totals.download), ("decoded_bytes", totals.decoded)] {
            writer.key(dynamic: name)
            writer.beginObject()
            writer.key("total"); writer.int(values.total)
            writer.key("p50"); writer.int(values.p50)
            writer.key("p90"); writer.int(values.p90)
            writer.key("p99"); writer.int(values.p99)
            writer.key("max"); writer.int(values.max)
            writer.endObject()
        }
        writer.key("budget")
        writer.beginObject()
        writer.key("fit_from_top"); writer.int(totals.fitFromTop)
        writer.key("larger_than_budget"); writer.int(totals.largerThanBudget)
        writer.key("cached_after_scrolling_to_the_end"); writer.int(totals.cachedAtTheEnd)
        writer.endObject()
        writer.endObject()
    }

    /// The `bundle_info` rows: what was shipped and excluded, the model, and one compact JSON
    /// object per target (the same as in `costs-report.json`).
    public func bundleInfo() -> [(key: String, value: String)] {
        func compact(_ body: (inout JSONWriter) -> Void) -> String {
            var writer = JSONWriter()
            body(&writer)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
        var rows: [(key: String, value: String)] = [
            ("photos.considered", String(photos)),
            ("photos.shipped", String(shipped)),
            ("photos.remote", String(remote)),
            ("photos.assumed_dimensions", String(assumedDimensions)),
            ("photos.excluded", compact { writeExcluded(into: &$0) }),
            ("costs.memory_budget_bytes", String(budget)),
            ("costs.model", compact { writeModel(into: &$0) }),
        ]
        if let selection { rows.append(("selection", compact { selection.write(into: &$0) })) }
        for totals in totals() {
            rows.append(("costs.target.\(totals.target.name)", compact { Self.write(totals, into: &$0) }))
        }
        return rows
    }
}
