/// What shipping the photos costs, per display target, and what was excluded: the
/// `costs-report.json` published beside the bundle.
public struct CostReport: Sendable {
    public var photos = 0
    public var shipped = 0
    public var remote = 0
    public var assumedDimensions = 0
    public var excluded: [String: Int] = [:]
    public var targets: [TargetTotals]
    public let budget: Int

    public struct TargetTotals: Sendable {
        public var target: DisplayTarget
        /// Photos per tier, in `PhotoTier.allCases` order.
        public var tiers = [Int](repeating: 0, count: PhotoTier.allCases.count)
        public var upscaled = 0
        public var download: [Int] = []
        public var decoded: [Int] = []
    }

    public init(policy: ShippingPolicy) {
        targets = policy.targets.map { TargetTotals(target: $0) }
        budget = policy.memoryBudget
    }

    /// Counts one photo (photos arrive in bundle order: by id).
    public mutating func add(_ photo: PhotoShipping) {
        photos += 1
        guard photo.ships else {
            excluded[photo.exclusion!.key, default: 0] += 1
            return
        }
        shipped += 1
        if case .remote = photo.source { remote += 1 }
        if photo.costs.first?.assumedDimensions ?? (photo.original == nil) { assumedDimensions += 1 }
        for (index, cost) in photo.costs.enumerated() {
            targets[index].tiers[cost.tier.ordinal] += 1
            if cost.upscaled { targets[index].upscaled += 1 }
            targets[index].download.append(cost.downloadBytes)
            targets[index].decoded.append(cost.decodedBytes)
        }
    }

    /// The value at `fraction` of the sorted values (nearest rank).
    static func percentile(_ sorted: [Int], _ fraction: Double) -> Int {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }

    /// An LRU of `budget` bytes, filled by scrolling the list in bundle order: how many thumbnails
    /// it holds at once from the top, which items are larger than the whole budget (never cached),
    /// and, scrolling back up from the bottom, how many are still cached (hits) versus decoded again.
    static func lru(_ costs: [Int], budget: Int) -> (fitFromTop: Int, tooLarge: Int, hitsScrollingBack: Int) {
        var used = 0
        var fit = 0
        for cost in costs {
            if used + cost > budget { break }
            used += cost
            fit += 1
        }
        let tooLarge = costs.filter { $0 > budget }.count
        // After scrolling to the bottom, the cache holds the most recent items that fit.
        var held = 0
        used = 0
        for cost in costs.reversed() where cost <= budget {
            if used + cost > budget { break }
            used += cost
            held += 1
        }
        return (fit, tooLarge, held)
    }

    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("photos"); writer.int(photos)
        writer.key("shipped"); writer.int(shipped)
        writer.key("remote"); writer.int(remote)
        writer.key("assumed_dimensions"); writer.int(assumedDimensions)
        writer.key("excluded")
        writer.beginObject()
        for key in excluded.keys.sorted() { writer.key(dynamic: key); writer.int(excluded[key]!) }
        writer.endObject()
        writer.key("memory_budget_bytes"); writer.int(budget)
        writer.key("targets")
        writer.beginArray()
        for totals in targets {
            let box = totals.target.box
            writer.beginObject()
            writer.key("name"); writer.string(totals.target.name)
            writer.key("mode"); writer.string(totals.target.mode.rawValue)
            writer.key("box")
            writer.beginArray(); writer.int(box.width); writer.int(box.height); writer.endArray()
            writer.key("tiers")
            writer.beginObject()
            for tier in PhotoTier.allCases { writer.key(dynamic: tier.rawValue); writer.int(totals.tiers[tier.ordinal]) }
            writer.endObject()
            writer.key("upscaled"); writer.int(totals.upscaled)
            for (name, values) in [("download_bytes", totals.download), ("decoded_bytes", totals.decoded)] {
                let sorted = values.sorted()
                writer.key(dynamic: name)
                writer.beginObject()
                writer.key("total"); writer.int(Int64(values.reduce(0, +)))
                writer.key("p50"); writer.int(Self.percentile(sorted, 0.5))
                writer.key("p90"); writer.int(Self.percentile(sorted, 0.9))
                writer.key("p99"); writer.int(Self.percentile(sorted, 0.99))
                writer.key("max"); writer.int(sorted.last ?? 0)
                writer.endObject()
            }
            let lru = Self.lru(totals.decoded, budget: budget)
            writer.key("budget")
            writer.beginObject()
            writer.key("fit_from_top"); writer.int(lru.fitFromTop)
            writer.key("larger_than_budget"); writer.int(lru.tooLarge)
            writer.key("cached_after_scrolling_to_the_end"); writer.int(lru.hitsScrollingBack)
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }
}
