/// Schema 3 on: the size the app fetches for each photo and target is the one the shipping rules
/// choose (docs/photos.md). The app reads `photo_costs` and `photo_urls`, built from
/// `photo_tiers`, `display_targets` and `size_costs`: a wrong row there fetches a 2048 px original
/// for a 60 px map pin, or a tier the CDN does not serve, and the checksums cannot tell.
///
/// What is checked is what the rules fix whatever the pipeline's cost assumptions: the tiers are
/// iNaturalist's; a target's box is its points × scale; every shipped photo has one cost row per
/// target; a photo of known size gets the smallest tier that covers the target (or, when none
/// does, one that serves as many pixels as the largest, flagged upscaled), served at that tier's
/// size and shown as the target shows it (no cost setting of the pipeline changes these); a
/// photo of unknown size the same, of the size the pipeline assumed (`costs.model`'s
/// `assumed_original` in `bundle_info`), with the assumed-dimensions flag (a map pin's row that
/// fetched `original` for such a photo verified); a remote photo its own URL (no tier). Byte figures (decoded, download) follow the pipeline's cost settings and measured
/// sizes, and are not recomputed.
struct PhotoSizeChecks {
    let path: String
    let database: Database

    /// At most this many rows are named per rule; the count says how many there were.
    static let named = 3

    /// The original size the pipeline assumed for a photo of unknown size (`costs.model`'s
    /// `assumed_original` in `bundle_info`); nil when the bundle does not say.
    static func assumedOriginal(_ database: Database) throws -> PixelSize? {
        // The parser holds the document the values point into: kept while they are read.
        let parser = JSONParser()
        guard let json = try database.scalar("SELECT value FROM bundle_info WHERE key = 'costs.model'"),
              let root = try? parser.parse(PaddedBuffer(copying: Array(json.utf8))),
              let pair = root["assumed_original"], pair.isArray
        else { return nil }
        let sides = withExtendedLifetime(parser) { pair.elements.compactMap(\.int64) }
        guard sides.count == 2, sides[0] > 0, sides[1] > 0 else { return nil }
        return PixelSize(width: Int(sides[0]), height: Int(sides[1]))
    }

    func problems() throws -> [String] {
        var problems: [String] = []
        func problem(_ message: String) { problems.append("\(path): error: \(message)") }
        problems += try tierProblems()
        let (targets, targetProblems) = try readTargets()
        problems += targetProblems
        guard targetProblems.isEmpty else { return problems }
        // By size class (as `photo_costs` joins them), then the first photo of a class missing:
        // asked photo by photo, 0.84 s on the benchmark's 513k photos, by class 0.23 s.
        let classes = """
            SELECT DISTINCT remote, CASE WHEN width > 0 AND height > 0 THEN width ELSE 0 END AS w,
                   CASE WHEN width > 0 AND height > 0 THEN height ELSE 0 END AS h FROM photos
            """
        let missing = try database.rows("""
            SELECT k.remote, k.w, k.h, t.name FROM (\(classes)) AS k JOIN display_targets AS t
            WHERE NOT EXISTS (
                SELECT 1 FROM size_costs AS c
                WHERE c.remote = k.remote AND c.target_id = t.id AND c.original_width = k.w AND c.original_height = k.h)
            ORDER BY k.remote, k.w, k.h, t.id
            """)
        if let first = missing.first {
            let photo = try database.scalar(
                "SELECT min(id) FROM photos WHERE remote = ? AND CASE WHEN width > 0 AND height > 0 THEN width ELSE 0 END = ? AND CASE WHEN width > 0 AND height > 0 THEN height ELSE 0 END = ?",
                [.integer(Int64(first[0] ?? "") ?? 0), .integer(Int64(first[1] ?? "") ?? 0), .integer(Int64(first[2] ?? "") ?? 0)])
            problem("\(missing.count) size class and display target pair(s) have no size_costs row, so their photos have no URL to fetch (the first: photo \(photo ?? "?") in \(first[3] ?? "?"))")
        }
        var wrong = 0
        var examples: [String] = []
        let rows = try database.prepare("""
            SELECT remote, original_width, original_height, target_id, tier, served_width, served_height,
                   display_width, display_height, upscaled, assumed_dimensions
            FROM size_costs ORDER BY remote, original_width, original_height, target_id
            """)
        var model = CostModel()
        model.assumedOriginal = try Self.assumedOriginal(database) ?? model.assumedOriginal
        while try rows.step() {
            let remote = rows.int64(0) != 0
            let size = PixelSize(width: Int(rows.int64(1)), height: Int(rows.int64(2)))
            let known = size.width > 0 && size.height > 0 ? CostModel.trusted(size) : nil
            guard let target = targets[rows.int64(3)] else { continue }  // the foreign key check names it
            let tierText = rows.text(4)
            let tier = tierText.flatMap(PhotoTier.init(rawValue:))
            let served = PixelSize(width: Int(rows.int64(5)), height: Int(rows.int64(6)))
            let display = PixelSize(width: Int(rows.int64(7)), height: Int(rows.int64(8)))
            let stored = "tier \(tierText ?? "NULL"), served \(served.width) × \(served.height), shown \(display.width) × \(display.height)"
            var expected: String? = nil
            if tierText != nil && tier == nil {
                expected = "a tier of photo_tiers"
            } else if remote {
                // A remote photo is fetched as the one URL it came with, at its own size.
                if tier != nil {
                    expected = "no tier (its own URL)"
                } else if let known, served != known {
                    expected = "served at its own \(known.width) × \(known.height)"
                }
            } else {
                // A photo of unknown size is costed as one of the assumed size (`CostModel`).
                let unknown = known == nil
                let known = known ?? model.assumedOriginal
                // The smallest tier that covers the target; when none does, one that serves as
                // many pixels as the largest (`CostModel` chooses the smallest such since
                // 2026-12-06, `original` before: a bundle of either rule verifies).
                let covering = PhotoTier.allCases.first { target.isCovered(by: $0.servedSize(original: known), tier: $0) }
                let largest = PhotoTier.original.servedSize(original: known)
                let chosen = covering ?? model.estimate(original: known, target: target).tier ?? .original
                // (`square` for a fill box within 75 × 75 that is not square: the rule until
                // 2026-12-08, another crop of the same photo, not another size.)
                let fits = covering.map { tier == $0 || (tier == .square && DisplayTarget.squareServes(mode: target.mode, box: target.box)) }
                    ?? (tier.map { $0 != .square && $0.servedSize(original: known) == largest } ?? false)
                let tierServed = tier?.servedSize(original: known)
                if !fits || served != tierServed || display != target.displaySize(of: served)
                    || (rows.int64(9) != 0) != (covering == nil) || rows.int64(10) != (unknown ? 1 : 0)
                {
                    let size = chosen.servedSize(original: known)
                    let shown = target.displaySize(of: size)
                    expected = "tier \(chosen.rawValue), served \(size.width) × \(size.height), "
                        + "shown \(shown.width) × \(shown.height)\(covering == nil ? ", upscaled" : "")"
                        + (unknown ? ", assumed_dimensions 1 (its size unknown, \(known.width) × \(known.height) assumed)" : "")
                }
            }
            guard let expected else { continue }
            wrong += 1
            if examples.count < Self.named {
                let kind = remote ? "remote" : "iNaturalist"
                examples.append(
                    "\(kind) photos of \(known.map { "\($0.width) × \($0.height)" } ?? "unknown size") in \(target.name): \(stored), the shipping rules give \(expected)")
            }
        }
        if wrong > 0 {
            problem("\(wrong) size_costs row(s) do not choose the size the shipping rules choose; \(examples.joined(separator: "; "))")
        }
        return problems
    }

    /// `photo_tiers` holds iNaturalist's tiers as migration 3 wrote them, and nothing else.
    private func tierProblems() throws -> [String] {
        let rows = try database.rows("SELECT name, ordinal, bound, cropped FROM photo_tiers ORDER BY ordinal, name")
        let expected = PhotoTier.allCases.map { ["\($0.rawValue)", "\($0.ordinal)", "\($0.bound)", $0 == .square ? "1" : "0"] }
        guard rows != expected else { return [] }
        func list(_ rows: [[String?]]) -> String { rows.map { "(\($0.map { $0 ?? "NULL" }.joined(separator: ", ")))" }.joined(separator: " ") }
        return ["\(path): error: photo_tiers is \(list(rows)), not iNaturalist's sizes \(list(expected))"]
    }

    /// The display targets by id, and what is wrong with them: a mode other than fill or fit, a
    /// box that is not the points × scale, rounded (the size every cost row is chosen for).
    private func readTargets() throws -> ([Int64: DisplayTarget], [String]) {
        var targets: [Int64: DisplayTarget] = [:]
        var problems: [String] = []
        let rows = try database.prepare(
            "SELECT id, name, width_points, height_points, scale, mode, box_width, box_height FROM display_targets ORDER BY id")
        while try rows.step() {
            let id = rows.int64(0)
            let name = rows.text(1) ?? "?"
            guard let mode = rows.text(5).flatMap(DisplayTarget.Mode.init(rawValue:)) else {
                problems.append("\(path): error: display target \(id) (\(name)) has mode \(rows.text(5) ?? "NULL"), not fill or fit")
                continue
            }
            let target = DisplayTarget(name: name, width: rows.double(2), height: rows.double(3), scale: rows.double(4), mode: mode)
            let box = PixelSize(width: Int(rows.int64(6)), height: Int(rows.int64(7)))
            guard target.width > 0, target.height > 0, target.scale > 0, box == target.box else {
                problems.append(
                    "\(path): error: display target \(id) (\(name)) has a box of \(box.width) × \(box.height) px for \(target.width) × \(target.height) points at scale \(target.scale), which make \(target.box.width) × \(target.box.height)")
                continue
            }
            targets[id] = target
        }
        return (targets, problems)
    }
}
