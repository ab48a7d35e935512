/// Applies the pipeline's `select` to the loaded scratch database, inside the load's transaction,
/// before the search index and the counts are made.
///
/// It runs on what the load decided: only photos that may ship are in `photos`, so "the photos
/// an observation ships" is its `observation_photos` rows; and the load has already applied the
/// observation rules that read one observation (places, taxa, quality grades, the observed
/// range: `Selection.removingRule`, in `RecordParser`), so only observations they keep, and the
/// photos those link or taxa refer to, were inserted. SQL does the rest, with two Swift
/// functions for what SQLite has no expression for (`fp_select_taxon`, `fp_select_license_rank`);
/// the sets it builds are temporary tables, so memory stays SQLite's cache whatever the size.
/// Each set is filled in key order (`ORDER BY`), as is each list of ids a `NOT IN` reads: a
/// temporary B-tree filled at random places outgrows its small cache and goes to disk page by
/// page (at iNaturalist's whole export, a guide of 1.26M observations, the photos' set took 3.7 s
/// and the users' 2.2 s of the selection's 8.0 s). In order:
/// 1. `min_photos` marks the observations it removes (an observation is counted under the first
///    rule that removes it, the load's first), then the observation cap, then the photo cap (see
///    `SelectionCaps`); an observation the photo cap leaves below `min_photos` goes too;
/// 2. the removed observations and their photo links go;
/// 3. taxa kept: the taxa of the kept observations and of the species counts lists (those the
///    taxon rule keeps), and all their ancestors; the other taxa and their taxon photos go;
/// 4. photos no longer linked by a kept observation, a kept taxon's photos or its default photo
///    go; each taxon's hero is chosen again among what is left (`HeroChoice`, as in the load);
/// 5. users no kept observation has, articles no kept taxon or destination has, and the size
///    classes no kept photo has go; the cost report is recounted.
struct BundleSelection {
    let selection: Selection
    let database: Database

    /// The photo cap, taxon by taxon: the distinct photos of its kept observations (`links`: a
    /// row per link, each photo's links together at its best rank, in rank order) are taken
    /// while the cap allows; the others go to `select_photo_cut`. With a `minimum` of photos per
    /// observation (`min_photos`) of one or none, in the plain rank.
    ///
    /// With a minimum above one, the cap fills whole observations, in two rounds. First each
    /// observation, in the rank of its best photo, is admitted when the places its minimum still
    /// needs are left: the photos it shares with one admitted before count for it, and its best
    /// others in rank take the places. Then the places left go to the other photos of the
    /// admitted observations, in rank. So every observation the cap admits ships at least
    /// `minimum` photos, and the others none: taken one at a time in rank, the photos could leave
    /// every observation of a taxon one short and the taxon with none (two observations of two
    /// photos, a cap of two, a minimum of two). A photo in two observations counts once, for
    /// both (a cap of three ships both of two observations of two photos that share one, in any
    /// rank). Until 2026-12-07 the photos were taken one at a time in rank, each holding its
    /// observation's minimum when it was the first: a photo cut before a shared one that ranks
    /// lower left its observation short, and the places it then held were never used.
    private func capPhotos(_ links: Statement, cap: Int, minimum: Int) throws {
        let cut = try database.prepare("INSERT OR IGNORE INTO select_photo_cut (taxon, photo) VALUES (?, ?)")
        func cutting(_ taxon: Int64, _ photo: Int64) throws {
            try cut.bind(taxon, at: 1)
            try cut.bind(photo, at: 2)
            try cut.run()
        }
        // One taxon's photos in rank, each with its observations (the first its best link's).
        var taxon: Int64? = nil
        var photos: [(id: Int64, observations: [String])] = []
        func decide() throws {
            guard let taxon else { return }
            var left = cap
            var chosen = [Bool](repeating: false, count: photos.count)
            if minimum <= 1 {
                for index in photos.indices.prefix(cap) { chosen[index] = true }
            } else {
                // Each observation's photos in rank (by index), and the observations in the rank
                // of their best photo.
                var order: [String] = []
                var theirs: [String: [Int]] = [:]
                for (index, photo) in photos.enumerated() {
                    for key in photo.observations {
                        if theirs[key] == nil { order.append(key) }
                        theirs[key, default: []].append(index)
                    }
                }
                var admitted = Set<String>()
                for key in order {
                    let own = theirs[key]!
                    let need = max(0, minimum - own.count { chosen[$0] })
                    let others = own.filter { !chosen[$0] }
                    guard need <= left, need <= others.count else { continue }
                    for index in others.prefix(need) { chosen[index] = true }
                    left -= need
                    admitted.insert(key)
                }
                for index in photos.indices where left > 0 && !chosen[index] && photos[index].observations.contains(where: admitted.contains) {
                    chosen[index] = true
                    left -= 1
                }
            }
            for (index, photo) in photos.enumerated() where !chosen[index] { try cutting(taxon, photo.id) }
        }
        while try links.step() {
            let (rowTaxon, rowPhoto, key) = (links.int64(0), links.int64(1), links.text(2) ?? "")
            if rowTaxon == taxon, let last = photos.last, last.id == rowPhoto {
                photos[photos.count - 1].observations.append(key)
                continue
            }
            if rowTaxon != taxon {
                try decide()
                (taxon, photos) = (rowTaxon, [])
            }
            photos.append((rowPhoto, [key]))
        }
        try decide()
    }

    /// Applies the selection (the type's comment says in what order).
    ///
    /// - Parameter loaded: what the load's observation rules removed (`LoadSelection`): the
    ///   observations considered and each rule's count, the photos not selected, and the
    ///   export's taxa and users ingest did not write (in `taxaConsidered`, `usersRemoved`).
    /// - Returns: what each rule removed.
    func apply(to report: inout CostReport?, loaded: SelectionCounts) throws -> SelectionCounts {
        let trace = PhaseTrace(stage: "bundle")
        let key = try ObservationKey.read(database)
        let (o, link) = ("o.\"\(key.column)\"", "\"\(key.link)\"")
        try defineFunctions()
        var counts = SelectionCounts()
        counts.observationsConsidered = loaded.observationsConsidered
        // With the taxa ingest did not write (`ExportParents`).
        counts.taxaConsidered = loaded.taxaConsidered + Int(try database.int("SELECT count(*) FROM taxa") ?? 0)
        try database.execute("""
            CREATE TEMP TABLE select_removed (key PRIMARY KEY, rule TEXT NOT NULL) WITHOUT ROWID;
            CREATE TEMP TABLE select_photo_cut (taxon INTEGER NOT NULL, photo INTEGER NOT NULL, PRIMARY KEY (taxon, photo)) WITHOUT ROWID;
            CREATE TEMP TABLE select_taxa (id INTEGER PRIMARY KEY);
            CREATE TEMP TABLE select_photos (id INTEGER PRIMARY KEY);
            """)
        defer { try? database.execute("DROP TABLE temp.select_removed; DROP TABLE temp.select_photo_cut; DROP TABLE temp.select_taxa; DROP TABLE temp.select_photos") }

        func remove(_ rule: String, where condition: String, _ arguments: [SQLValue] = []) throws {
            let statement = try database.prepare(
                "INSERT OR IGNORE INTO select_removed SELECT \(o), '\(rule)' FROM observations AS o WHERE \(condition)")
            try statement.bind(arguments)
            try statement.run()
        }
        let kept = "\(o) NOT IN (SELECT key FROM select_removed)"
        let photoCount = "(SELECT count(*) FROM observation_photos AS op WHERE op.\(link) = \(o))"
        // 1. The rules, in `SelectionCounts.rules` order: the load applied the first four.
        if selection.minimumPhotos > 0 {
            try remove("min_photos", where: "\(photoCount) < ?", [.integer(Int64(selection.minimumPhotos))])
        }
        // The caps' rank (see `SelectionCaps`).
        let research = "coalesce(o.quality_grade = 'research', 0) DESC"
        let newest = "substr(o.observed_on, 1, 10) DESC NULLS LAST"
        if let cap = selection.caps.observationsPerTaxon {
            try database.execute("""
                INSERT OR IGNORE INTO select_removed
                SELECT key, 'observation_cap' FROM (
                    SELECT \(o) AS key, row_number() OVER (
                        PARTITION BY o.taxon_id
                        ORDER BY \(research), fp_select_license_rank(o.license_code), \(newest), \(o)) AS n
                    FROM observations AS o WHERE \(kept))
                WHERE n > \(cap)
                """)
        }
        if let cap = selection.caps.photosPerTaxon {
            // Every link of a kept observation, by taxon, its photo at its best link's rank, and
            // the photo's links in rank order (the first is its best observation's).
            let links = try database.prepare("""
                WITH links AS (
                    SELECT coalesce(o.taxon_id, 0) AS taxon, op.photo_id AS photo, \(o) AS key, row_number() OVER (
                        PARTITION BY coalesce(o.taxon_id, 0)
                        ORDER BY \(research), fp_select_license_rank(p.license), \(newest), op.photo_id, \(o)) AS n
                    FROM observation_photos AS op
                    JOIN observations AS o ON \(o) = op.\(link)
                    JOIN photos AS p ON p.id = op.photo_id
                    WHERE \(kept)),
                best AS (SELECT taxon, photo, min(n) AS first FROM links GROUP BY taxon, photo)
                SELECT l.taxon, l.photo, l.key FROM links AS l JOIN best AS b ON b.taxon = l.taxon AND b.photo = l.photo
                ORDER BY l.taxon, b.first, l.n
                """)
            try capPhotos(links, cap: cap, minimum: selection.minimumPhotos)
            try database.execute("""
                DELETE FROM observation_photos WHERE EXISTS (
                    SELECT 1 FROM select_photo_cut AS c JOIN observations AS o ON coalesce(o.taxon_id, 0) = c.taxon
                    WHERE \(o) = observation_photos.\(link) AND c.photo = observation_photos.photo_id);
                """)
            if selection.minimumPhotos > 0 {
                try remove("photo_cap", where: "\(kept) AND \(photoCount) < ?", [.integer(Int64(selection.minimumPhotos))])
            }
        }
        counts.removed = loaded.removed
        for row in try database.rows("SELECT rule, count(*) FROM select_removed GROUP BY rule ORDER BY rule") {
            counts.removed[row[0]!, default: 0] += Int(row[1]!)!
        }
        for rule in activeRules where counts.removed[rule] == nil { counts.removed[rule] = 0 }
        // 2. The observations.
        try database.execute("""
            DELETE FROM observation_photos WHERE \(link) IN (SELECT key FROM select_removed);
            DELETE FROM observations WHERE "\(key.column)" IN (SELECT key FROM select_removed);
            """)
        counts.observationsKept = Int(try database.int("SELECT count(*) FROM observations") ?? 0)
        trace.mark("select: the rules and caps")
        // 3. The taxa and their ancestors.
        try database.execute("""
            INSERT OR IGNORE INTO select_taxa SELECT taxon_id FROM observations WHERE taxon_id IS NOT NULL ORDER BY taxon_id;
            INSERT OR IGNORE INTO select_taxa SELECT id FROM taxa
            WHERE species_count IS NOT NULL\(selection.taxa.isEmpty ? "" : " AND fp_select_taxon(id, ancestry, rank)");
            """)
        // Every ancestor, to the root: an ancestor's own lineage may name taxa the kept taxon's
        // does not (taxa records of different dates, after iNaturalist moved a taxon), so the
        // lineages of the taxa added are read in turn, until a round adds none.
        let lineages = try database.prepare(
            "SELECT t.id, t.ancestry FROM taxa AS t JOIN select_taxa AS s ON s.id = t.id WHERE t.ancestry IS NOT NULL ORDER BY t.id")
        let insertTaxon = try database.prepare("INSERT OR IGNORE INTO select_taxa (id) VALUES (?)")
        var read = Set<Int64>()
        while true {
            var ancestors: [Int64] = []
            while try lineages.step() {
                guard read.insert(lineages.int64(0)).inserted else { continue }
                ancestors += Array(lineages.text(1)!.utf8).withUnsafeBytes { TaxonRule.ancestors($0) }
            }
            lineages.reset()
            let before = try database.int("SELECT count(*) FROM select_taxa") ?? 0
            // In order, each once: the kept taxa share most of their ancestors.
            ancestors.sortAndRemoveDuplicates()
            for id in ancestors {
                try insertTaxon.bind(id, at: 1)
                try insertTaxon.run()
            }
            if try database.int("SELECT count(*) FROM select_taxa") ?? 0 == before { break }
        }
        try database.execute("""
            DELETE FROM taxon_photos WHERE taxon_id NOT IN (SELECT id FROM select_taxa);
            DELETE FROM taxa WHERE id NOT IN (SELECT id FROM select_taxa);
            """)
        counts.taxaKept = Int(try database.int("SELECT count(*) FROM taxa") ?? 0)
        trace.mark("select: the taxa and their ancestors")
        // 4. The photos, and the heroes.
        try database.execute("""
            INSERT OR IGNORE INTO select_photos SELECT photo_id FROM observation_photos ORDER BY photo_id;
            INSERT OR IGNORE INTO select_photos SELECT photo_id FROM taxon_photos ORDER BY photo_id;
            INSERT OR IGNORE INTO select_photos SELECT default_photo_id FROM taxa WHERE default_photo_id IS NOT NULL ORDER BY default_photo_id;
            """)
        let photosBefore = Int(try database.int("SELECT count(*) FROM photos") ?? 0)
        counts.photosCapped = Int(try database.int(
            "SELECT count(DISTINCT photo) FROM select_photo_cut WHERE photo NOT IN (SELECT id FROM select_photos)") ?? 0)
        try database.execute("DELETE FROM photos WHERE id NOT IN (SELECT id FROM select_photos)")
        counts.photosKept = Int(try database.int("SELECT count(*) FROM photos") ?? 0)
        counts.photosNotSelected = loaded.photosNotSelected + photosBefore - counts.photosKept - counts.photosCapped
        trace.mark("select: the photos")
        try chooseHeroes(key: key)
        trace.mark("select: the heroes")
        // 5. What nothing refers to any more, and the costs.
        counts.usersRemoved = try loaded.usersRemoved + deleteCounting(
            "DELETE FROM users WHERE id NOT IN (SELECT user_id FROM observations WHERE user_id IS NOT NULL ORDER BY user_id)")
        counts.articlesRemoved = try deleteCounting("""
            DELETE FROM articles WHERE id NOT IN (
                SELECT article_id FROM taxa WHERE article_id IS NOT NULL
                UNION SELECT article_id FROM destinations WHERE article_id IS NOT NULL)
            """)
        trace.mark("select: the users and articles")
        try recount(&report, counts: counts)
        trace.mark("select: the costs recounted")
        return counts
    }

    /// The rules this selection has, in `SelectionCounts.rules` order.
    var activeRules: [String] {
        var rules: [String] = []
        if !selection.places.isEmpty { rules.append("places") }
        if selection.dropsObscured { rules.append("obscured") }
        if !selection.taxa.isEmpty { rules.append("taxa") }
        if !selection.qualityGrades.isEmpty { rules.append("quality_grades") }
        if selection.observedFrom != nil || selection.observedTo != nil { rules.append("observed") }
        if selection.minimumPhotos > 0 { rules.append("min_photos") }
        if selection.caps.observationsPerTaxon != nil { rules.append("observation_cap") }
        if selection.caps.photosPerTaxon != nil && selection.minimumPhotos > 0 { rules.append("photo_cap") }
        return rules
    }

    private func defineFunctions() throws {
        let taxa = selection.taxa
        try database.define(function: "fp_select_taxon", arity: 3) { arguments in
            guard let id = arguments.int64(0) else { return .integer(0) }
            return .integer(taxa.selects(id: id, ancestry: arguments.bytes(1), rank: arguments.bytes(2)) ? 1 : 0)
        }
        let caps = selection.caps
        try database.define(function: "fp_select_license_rank", arity: 1) { arguments in
            let code = arguments.bytes(0).map { String(decoding: $0, as: UTF8.self) }
            return .integer(Int64(caps.rank(of: License.parse(code))))
        }
    }

    /// Chooses every kept taxon's hero again by the load's rule (`HeroChoice`), from the kept
    /// rows: its default photo, its first taxon photo, its newest research-grade observation's photo.
    private func chooseHeroes(key: ObservationKey) throws {
        var heroes = HeroChoice()
        let defaults = try database.prepare("SELECT id, default_photo_id FROM taxa WHERE default_photo_id IS NOT NULL ORDER BY id")
        while try defaults.step() { heroes.defaultPhoto(taxon: defaults.int64(0), photo: defaults.int64(1)) }
        let taxonPhotos = try database.prepare("SELECT taxon_id, photo_id FROM taxon_photos ORDER BY taxon_id, position")
        while try taxonPhotos.step() { heroes.taxonPhoto(taxon: taxonPhotos.int64(0), photo: taxonPhotos.int64(1)) }
        let observed = try database.prepare("""
            SELECT o.taxon_id, o.updated_at, o."\(key.column)", op.position, op.photo_id
            FROM observations AS o JOIN observation_photos AS op ON op."\(key.link)" = o."\(key.column)"
            WHERE o.quality_grade = 'research' AND o.taxon_id IS NOT NULL
            ORDER BY o.taxon_id, op.photo_id
            """)
        while try observed.step() {
            let updated = observed.text(1).flatMap { Timestamp.parse($0) } ?? Int64.min
            heroes.offer(
                taxon: observed.int64(0),
                .init(updated: updated, observation: observed.int64(2), position: observed.int64(3), photo: observed.int64(4)))
        }
        try database.execute("UPDATE taxa SET hero_photo_id = NULL")
        let update = try database.prepare("UPDATE taxa SET hero_photo_id = ? WHERE id = ?")
        for choice in heroes.choices() {
            try update.bind([.integer(choice.hero), .integer(choice.taxon)])
            try update.run()
        }
    }

    private func deleteCounting(_ sql: String) throws -> Int {
        try database.execute(sql)
        return Int(try database.int("SELECT changes()") ?? 0)
    }

    /// Recounts the shipped photos from the kept rows, and drops the size classes (`size_costs`)
    /// no kept photo has.
    private func recount(_ report: inout CostReport?, counts: SelectionCounts) throws {
        // The kept photos' size classes, one photo at a time (never a list of them all).
        var keptClasses = Set<SizeClass>()
        func eachKept(_ body: (SizeClass) -> Void) throws {
            let photos = try database.prepare("SELECT remote, width, height FROM photos ORDER BY id")
            while try photos.step() {
                let original = photos.isNull(1) || photos.isNull(2)
                    ? nil : PixelSize(width: Int(photos.int64(1)), height: Int(photos.int64(2)))
                body(SizeClass(remote: photos.int64(0) != 0, original: original))
            }
        }
        try eachKept { keptClasses.insert($0) }
        let stored = try database.prepare("SELECT DISTINCT remote, original_width, original_height FROM size_costs ORDER BY 1, 2, 3")
        var unused: [SizeClass] = []
        while try stored.step() {
            let size = SizeClass(
                remote: stored.int64(0) != 0, original: PixelSize(width: Int(stored.int64(1)), height: Int(stored.int64(2))))
            if !keptClasses.contains(size) { unused.append(size) }
        }
        let delete = try database.prepare("DELETE FROM size_costs WHERE remote = ? AND original_width = ? AND original_height = ?")
        for size in unused {
            try delete.bind([.integer(size.remote ? 1 : 0), .integer(Int64(size.width)), .integer(Int64(size.height))])
            try delete.run()
        }
        try report?.keepShipped(notSelected: counts.photosNotSelected, capped: counts.photosCapped) { try eachKept($0) }
        report?.selection = counts
    }
}
