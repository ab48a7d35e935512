/// What a pipeline's `select` removed, for `costs-report.json` and `bundle_info`: each rule's
/// count of observations (an observation is counted under the first rule, in `rules` order, that
/// removes it), and what went with them.
public struct SelectionCounts: Sendable, Equatable {
    /// The rules in the order they apply.
    /// `obscured`: an obscured observation whose public point is in the places, left out by
    /// `"obscured": "drop"` (one outside them counts under `places`).
    public static let rules = ["places", "obscured", "taxa", "quality_grades", "observed", "min_photos", "observation_cap", "photo_cap"]

    public var observationsConsidered = 0
    public var observationsKept = 0
    /// Observations removed, by rule; only the rules the selection has.
    public var removed: [String: Int] = [:]
    public var taxaConsidered = 0
    public var taxaKept = 0
    /// Photos that went with the observations and taxa not kept.
    public var photosNotSelected = 0
    /// Photos of kept observations that the photo cap left out.
    public var photosCapped = 0
    public var photosKept = 0
    public var usersRemoved = 0
    public var articlesRemoved = 0

    public init() {}

    func write(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("observations")
        writer.beginObject()
        writer.key("considered"); writer.int(observationsConsidered)
        writer.key("kept"); writer.int(observationsKept)
        writer.key("removed")
        writer.beginObject()
        for rule in Self.rules { if let count = removed[rule] { writer.key(dynamic: rule); writer.int(count) } }
        writer.endObject()
        writer.endObject()
        writer.key("photos")
        writer.beginObject()
        writer.key("kept"); writer.int(photosKept)
        writer.key("not_selected"); writer.int(photosNotSelected)
        writer.key("photo_cap"); writer.int(photosCapped)
        writer.endObject()
        writer.key("taxa")
        writer.beginObject()
        writer.key("considered"); writer.int(taxaConsidered)
        writer.key("kept"); writer.int(taxaKept)
        writer.endObject()
        writer.key("users_removed"); writer.int(usersRemoved)
        writer.key("articles_removed"); writer.int(articlesRemoved)
        writer.endObject()
    }
}
