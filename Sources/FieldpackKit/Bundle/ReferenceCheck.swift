/// The bundle's foreign keys, checked while the records load: deduped records arrive by kind
/// (photos, taxa, users, observations), each sorted by id, so every parent is known before any
/// child that refers to it. A missing parent is reported with the line that refers to it, which
/// `PRAGMA foreign_key_check` after the fact could not do. `fieldpack-verify` still runs
/// `foreign_key_check` on the published bundle.
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
    ]

    enum Parent: Int {
        case photos, taxa, users, observations
    }

    private var ids: [[Int64]] = [[], [], [], []]
    private var stage = -1
    let path: String

    init(path: String) {
        self.path = path
    }

    /// Records a parent row; kinds must come in order and ids ascending within a kind.
    mutating func add(_ parent: Parent, id: Int64, line: Int) throws {
        if parent.rawValue < stage {
            throw FieldpackError(path: path, line: line, "deduped records out of order: photos, taxa, users, then observations")
        }
        stage = parent.rawValue
        if let last = ids[parent.rawValue].last, last >= id {
            throw FieldpackError(path: path, line: line, "deduped records out of order: id \(id) after \(last)")
        }
        // Observations are the last kind; nothing refers to them across records.
        if parent != .observations { ids[parent.rawValue].append(id) }
    }

    /// Throws unless `id` (if any) names a row of `parent` already loaded.
    func require(_ parent: Parent, _ id: Int64?, from column: String, line: Int) throws {
        guard let id else { return }
        let sorted = ids[parent.rawValue]
        let low = sorted.partitionPoint { $0 < id }
        if low == sorted.count || sorted[low] != id {
            throw FieldpackError(
                path: path, line: line, "foreign key violation: \(column) \(id) has no row in \(Self.tableName(parent))")
        }
    }

    static func tableName(_ parent: Parent) -> String {
        ["photos", "taxa", "users", "observations"][parent.rawValue]
    }
}
