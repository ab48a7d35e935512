/// The bundle's foreign keys, checked while the records load: deduped records arrive by kind
/// (taxa, users, observations, photos), each sorted by id, so every parent but a photo is known
/// before any child that refers to it; references to photos are held back and checked once the
/// photos are in (`PhotoShippingLoad.finish`). A missing parent is reported with the line that
/// refers to it, which `PRAGMA foreign_key_check` after the fact could not do. `fieldpack-verify`
/// still runs `foreign_key_check` on the published bundle.
struct ReferenceCheck {
    /// Every foreign key the schema declares, as (child table, column, parent table); a test
    /// keeps this equal to `PRAGMA foreign_key_list` of the migrated schema.
    static let relations: [(table: String, column: String, parent: String)] = [
        ("taxa", "default_photo_id", "photos"),
        ("observations", "user_id", "users"),
        ("observations", "taxon_id", "taxa"),
        ("observation_photos", "observation_id", "observations"),
        ("observation_photos", "photo_id", "photos"),
        ("taxon_photos", "taxon_id", "taxa"),
        ("taxon_photos", "photo_id", "photos"),
        // Built by the bundle stage from rows already checked (see `BundleBuilder`).
        ("taxa", "hero_photo_id", "photos"),
        ("size_costs", "target_id", "display_targets"),
        ("size_costs", "tier", "photo_tiers"),
        // Articles are loaded before the records (see `ArticleLoader`).
        ("taxa", "article_id", "articles"),
        ("destinations", "article_id", "articles"),
    ]

    /// In the order records arrive.
    enum Parent: Int {
        case taxa, users, observations, photos
    }

    /// The ids of the taxa and users (looked up by `require`); of the photos only the last is
    /// kept (for the order check: references to photos are merged with them as they pass, see
    /// `PhotoShippingLoad`), and of the observations none.
    private var ids: [[Int64]] = [[], [], [], []]
    private var lastPhoto: Int64? = nil
    private var stage = -1
    let places: RecordPlaces

    init(places: RecordPlaces) {
        self.places = places
    }

    /// Records a parent row; kinds must come in order and ids ascending within a kind.
    mutating func add(_ parent: Parent, id: Int64, line: Int) throws {
        if parent.rawValue < stage {
            throw places.error(at: line, "deduped records out of order: taxa, users, observations, then photos")
        }
        stage = parent.rawValue
        if let last = parent == .photos ? lastPhoto : ids[parent.rawValue].last, last >= id {
            throw places.error(at: line, "deduped records out of order: id \(id) after \(last)")
        }
        switch parent {
        case .taxa, .users: ids[parent.rawValue].append(id)
        case .photos: lastPhoto = id
        case .observations: break  // nothing refers to an observation across records
        }
    }

    /// A reference to a row that does not exist, kept until it is thrown (if ever): only then is
    /// its record's place looked up (`RecordPlaces`).
    struct Violation {
        var parent: Parent
        var id: Int64
        var column: String
        var line: Int
    }

    /// The error for a reference to a row of `parent` that does not exist.
    func violation(_ parent: Parent, _ id: Int64, from column: String, line: Int) -> FieldpackError {
        error(Violation(parent: parent, id: id, column: column, line: line))
    }

    func error(_ violation: Violation) -> FieldpackError {
        places.error(
            at: violation.line,
            "foreign key violation: \(violation.column) \(violation.id) has no row in \(Self.tableName(violation.parent))")
    }

    /// Where `id` is among the loaded rows of `parent` (taxa or users, in load order), nil if absent.
    func position(of id: Int64, in parent: Parent) -> Int? {
        precondition(parent == .taxa || parent == .users, "only taxa and users are looked up")
        // Called for every observation's observer and taxon: no closure, no copy of the array.
        return ids[parent.rawValue].withUnsafeBufferPointer { $0.sortedIndex(of: id) }
    }

    static func tableName(_ parent: Parent) -> String {
        ["taxa", "users", "observations", "photos"][parent.rawValue]
    }
}
