import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// What the bundle report shows, read from the bundle's database (its tables and `bundle_info`,
/// where the bundle stage keeps the costs aggregates and the delta's counts) and, when given,
/// the ingest rejects and the wiki report. Every list is in a stated order, never hash order.
struct ReportFacts {
    struct TargetCosts {
        var name: String
        var mode: String
        var box: (Int64, Int64)
        /// Photos per tier, in tier order, then `remote` (a remote photo's own URL).
        var tiers: [(tier: String, photos: Int64)] = []
        var upscaled: Int64 = 0
        var download: [(String, Int64)] = []
        var decoded: [(String, Int64)] = []
        var fitFromTop: Int64 = 0
        var largerThanBudget: Int64 = 0
        var cachedAtEnd: Int64 = 0
        /// (decoded bytes, download bytes, photos) per size class, from `photo_costs`.
        var sizes: [(decoded: Int64, download: Int64, photos: Int64)] = []
    }

    struct FindingGroup {
        var file: String
        var outcome: String
        var part: String
        var count: Int64
        var example: String
    }

    var info: [String: String] = [:]
    var rows: [(table: String, rows: Int64)] = []
    /// Iconic taxon → (taxa, observations).
    var iconic: [(name: String, taxa: Int64, observations: Int64)] = []
    var targets: [TargetCosts] = []
    var shippedLicenses: [(String, Int64)] = []
    var excluded: [(String, Int64)] = []
    /// What the pipeline's `select` kept and removed (`selection` in `bundle_info`), when it
    /// has one.
    var selection: SelectionFacts? = nil

    struct SelectionFacts {
        var observationsConsidered: Int64 = 0, observationsKept: Int64 = 0
        /// Observations removed, per rule, in the order the bundle applies them.
        var removed: [(rule: String, count: Int64)] = []
        var photosKept: Int64 = 0, photosNotSelected: Int64 = 0, photosCapped: Int64 = 0
        var taxaConsidered: Int64 = 0, taxaKept: Int64 = 0
        var usersRemoved: Int64 = 0, articlesRemoved: Int64 = 0
    }
    var blurbLengths: [Int] = []
    var articleLicenses: [(String, Int64)] = []
    var destinations: [(id: String, name: String, article: String?)] = []
    var delta: [(kind: String, added: Int64, changed: Int64, removed: Int64)] = []
    var ingestFindings: [FindingGroup]? = nil
    var wiki: WikiFacts? = nil

    struct WikiFacts {
        var wanted: Int64 = 0
        var found: Int64 = 0
        var missing: [String] = []
        var redirects: [(String, String)] = []
        var disambiguations: [String] = []
        var duplicates: Int64 = 0
        var lines: Int64 = 0
        var skipped: Int64 = 0
        var rejected: Int64 = 0
        /// Files (or archive members) that held no articles, passed over whole.
        var filesSkipped: Int64 = 0
        /// The Wikipedia inputs the stage was given (nil: a report of before 2026-12-08).
        var inputs: Int64? = nil
    }

    static func read(database path: String, ingestRejects: [String], wikiReport: String?, wikiParts: [String] = []) throws -> ReportFacts {
        _ = try ReadableFile(path: path)  // fail here, naming the path, if it cannot be read
        let database = try Database(path: path, mode: .immutable)
        guard try database.int("PRAGMA application_id") == Int64(Migrations.applicationID) else {
            throw FieldpackError(path: path, "not a fieldpack bundle (its application_id is not fieldpack's)")
        }
        var facts = ReportFacts()
        for row in try database.rows("SELECT key, value FROM bundle_info ORDER BY key") {
            if let key = row[0], let value = row[1] { facts.info[key] = value }
        }
        facts.rows = facts.info.keys.sorted().filter { $0.hasPrefix("rows.") }.map {
            (String($0.dropFirst(5)), Int64(facts.info[$0] ?? "") ?? 0)
        }
        // The two long reads side by side, each on a connection of its own, beside the rest on
        // this one: every photo's costs (`targets`) and every blurb's length. On the benchmark's
        // whole build (513k photos, 16k blurbs) each took about half a second, one after the other.
        let info = facts.info
        let parts = Results<ReportFacts>(count: 3)
        // The third task reads the rest into `facts` itself; only it uses `database`.
        let shared = UncheckedBox((database, facts))
        DispatchQueue.concurrentPerform(iterations: 3) { task in
            parts.record(task) {
                var part = ReportFacts()
                switch task {
                case 0: part.targets = try targets(try Database(path: path, mode: .immutable), info: info)
                case 1: part.blurbLengths = try blurbLengths(try Database(path: path, mode: .immutable))
                default:
                    part = shared.value.1
                    try part.readTheRest(shared.value.0, ingestRejects: ingestRejects, wikiReport: wikiReport, wikiParts: wikiParts)
                }
                return part
            }
        }
        let read = try parts.values()
        facts = read[2]
        facts.targets = read[0].targets
        facts.blurbLengths = read[1].blurbLengths
        return facts
    }

    /// Every blurb's visible length, one blurb at a time over SQLite's row bytes: the chart and
    /// the figures need the lengths, not their order (`ORDER BY id` walks the rowid, no sort).
    /// Reading them all as strings at once held every blurb in memory (359 MB peak on the
    /// benchmark's 16k articles).
    private static func blurbLengths(_ database: Database) throws -> [Int] {
        var lengths: [Int] = []
        let blurbs = try database.prepare("SELECT blurb_html FROM articles ORDER BY id")
        while try blurbs.step() {
            lengths.append(visibleLength(blurbs.textBytes(0) ?? UnsafeRawBufferPointer(start: nil, count: 0)))
        }
        return lengths
    }

    /// The facts besides the costs and the blurbs' lengths, from `database`, `info` (read
    /// first) and the other files.
    private mutating func readTheRest(_ database: Database, ingestRejects: [String], wikiReport: String?, wikiParts: [String]) throws {
        iconic = try database.rows("""
            SELECT coalesce(nullif(t.iconic_taxon_name, ''), '(none)') AS iconic, count(*),
                   (SELECT count(*) FROM observations AS o JOIN taxa AS u ON u.id = o.taxon_id
                    WHERE coalesce(nullif(u.iconic_taxon_name, ''), '(none)') = coalesce(nullif(t.iconic_taxon_name, ''), '(none)'))
            FROM taxa AS t GROUP BY 1 ORDER BY 3 DESC, 2 DESC, 1
            """).map { ($0[0] ?? "", Int64($0[1] ?? "") ?? 0, Int64($0[2] ?? "") ?? 0) }
        let unplaced = try database.int("SELECT count(*) FROM observations WHERE taxon_id IS NULL") ?? 0
        if unplaced > 0 { iconic.append(("(no taxon)", 0, unplaced)) }
        shippedLicenses = try Self.pairs(database, "SELECT license, count(*) FROM photos GROUP BY license ORDER BY 2 DESC, 1")
        articleLicenses = try Self.pairs(database, "SELECT license, count(*) FROM articles GROUP BY license ORDER BY 2 DESC, 1")
        destinations = try database.rows("""
            SELECT d.id, d.name, a.title FROM destinations AS d LEFT JOIN articles AS a ON a.id = d.article_id ORDER BY d.id
            """).map { ($0[0] ?? "", $0[1] ?? "", $0[2]) }
        let parser = JSONParser()
        if let excluded = info["photos.excluded"] {
            let buffer = PaddedBuffer(copying: Array(excluded.utf8))
            let root = try parser.parse(buffer)
            self.excluded = root.members.map { ($0.key.string, $0.value.int64 ?? 0) }
                .sorted { ($1.1, $0.0) < ($0.1, $1.0) }
        }
        if let selected = info["selection"] {
            let buffer = PaddedBuffer(copying: Array(selected.utf8))
            let root = try parser.parse(buffer)
            func number(_ value: JSONValue?) -> Int64 { value?.int64 ?? 0 }
            var facts = SelectionFacts()
            facts.observationsConsidered = number(root["observations"]?["considered"])
            facts.observationsKept = number(root["observations"]?["kept"])
            facts.removed = (root["observations"]?["removed"]?.members).map { $0.map { ($0.key.string, $0.value.int64 ?? 0) } } ?? []
            facts.photosKept = number(root["photos"]?["kept"])
            facts.photosNotSelected = number(root["photos"]?["not_selected"])
            facts.photosCapped = number(root["photos"]?["photo_cap"])
            facts.taxaConsidered = number(root["taxa"]?["considered"])
            facts.taxaKept = number(root["taxa"]?["kept"])
            facts.usersRemoved = number(root["users_removed"])
            facts.articlesRemoved = number(root["articles_removed"])
            selection = facts
        }
        for kind in BundleDelta.kinds.map(\.name) {
            guard let added = info["delta.\(kind).added"] else { continue }
            delta.append((kind, Int64(added) ?? 0, Int64(info["delta.\(kind).changed"] ?? "") ?? 0,
                          Int64(info["delta.\(kind).removed"] ?? "") ?? 0))
        }
        if !ingestRejects.isEmpty { ingestFindings = try Self.findingGroups(ingestRejects, parser: parser) }
        if let wikiReport {
            wiki = try Self.wikiFacts(wikiReport, bytes: try ReadableFile.contents(of: wikiReport), parser: parser)
        } else if !wikiParts.isEmpty {
            wiki = try Self.wikiFacts(wikiParts.joined(separator: ", "), bytes: Array(try WikiMerge(parts: wikiParts).reportJSON().utf8), parser: parser)
        }
    }

    private static func pairs(_ database: Database, _ sql: String) throws -> [(String, Int64)] {
        try database.rows(sql).map { ($0[0] ?? "(none)", Int64($0[1] ?? "") ?? 0) }
    }

    /// Each display target's aggregates (`costs.target.<name>` in `bundle_info`) and its size classes.
    private static func targets(_ database: Database, info: [String: String]) throws -> [TargetCosts] {
        let parser = JSONParser()
        // Photos per (decoded, download bytes) of each target, counted in one pass over the
        // photo_costs view: a GROUP BY per target sorted every photo's row again (the three
        // took 2.5 s in the sqlite3 CLI on the benchmark's 513k photos; the report went from
        // 4.4 to about 3.5 s).
        struct Size: Hashable { let decoded: Int64, download: Int64 }
        var sizes: [Int64: [Size: Int64]] = [:]
        let costs = try database.prepare("SELECT target_id, decoded_bytes, download_bytes FROM photo_costs")
        while try costs.step() {
            sizes[costs.int64(0), default: [:]][Size(decoded: costs.int64(1), download: costs.int64(2)), default: 0] += 1
        }
        var targets: [TargetCosts] = []
        for row in try database.rows("SELECT id, name, mode, box_width, box_height FROM display_targets ORDER BY id") {
            let name = row[1] ?? ""
            var target = TargetCosts(name: name, mode: row[2] ?? "", box: (Int64(row[3] ?? "") ?? 0, Int64(row[4] ?? "") ?? 0))
            if let json = info["costs.target.\(name)"] {
                let buffer = PaddedBuffer(copying: Array(json.utf8))
                let root = try parser.parse(buffer)
                target.tiers = (root["tiers"]?.members).map { $0.map { ($0.key.string, $0.value.int64 ?? 0) } } ?? []
                target.upscaled = root["upscaled"]?.int64 ?? 0
                target.download = (root["download_bytes"]?.members).map { $0.map { ($0.key.string, $0.value.int64 ?? 0) } } ?? []
                target.decoded = (root["decoded_bytes"]?.members).map { $0.map { ($0.key.string, $0.value.int64 ?? 0) } } ?? []
                if let budget = root["budget"] {
                    target.fitFromTop = budget["fit_from_top"]?.int64 ?? 0
                    target.largerThanBudget = budget["larger_than_budget"]?.int64 ?? 0
                    target.cachedAtEnd = budget["cached_after_scrolling_to_the_end"]?.int64 ?? 0
                }
            }
            target.sizes = (sizes[Int64(row[0] ?? "") ?? 0] ?? [:])
                .map { (decoded: $0.key.decoded, download: $0.key.download, photos: $0.value) }
                .sorted { ($0.decoded, $0.download) < ($1.decoded, $1.download) }
            targets.append(target)
        }
        return targets
    }

    /// The characters a reader sees: outside tags, an entity counted as one.
    static func visibleLength(_ html: String) -> Int {
        var html = html
        return html.withUTF8 { visibleLength(UnsafeRawBufferPointer($0)) }
    }

    /// The same over a blurb's bytes: a run of text is counted eight bytes at a time up to the
    /// next `<` or `&` (`textRun`), and a tag skipped to its `>` with `memchr` (the report reads
    /// every blurb: 352 MB on the benchmark's whole build). An entity's `&` counts one; nothing
    /// more counts until its `;`, tags inside it skipped as anywhere.
    static func visibleLength(_ html: UnsafeRawBufferPointer) -> Int {
        guard let base = html.baseAddress else { return 0 }
        let end = html.count
        var count = 0
        var index = 0
        var inEntity = false
        while index < end {
            if !inEntity {
                textRun(html, from: &index, count: &count)
                while index < end {
                    let byte = base.load(fromByteOffset: index, as: UInt8.self)
                    if byte == UInt8(ascii: "<") || byte == UInt8(ascii: "&") { break }
                    if byte & 0xC0 != 0x80 { count += 1 }  // not a UTF-8 continuation byte
                    index += 1
                }
                if index == end { break }
            }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            index += 1
            switch byte {
            case UInt8(ascii: "<"):
                guard let close = memchr(base + index, Int32(UInt8(ascii: ">")), end - index) else { return count }
                index = UnsafeRawPointer(close) - base + 1
            case UInt8(ascii: "&"):
                count += 1
                inEntity = true
            case UInt8(ascii: ";"):
                inEntity = false
            default:
                break  // inside an entity
            }
        }
        return count
    }

    /// Counts the characters of a run of text from `index` (the bytes that do not continue a
    /// UTF-8 sequence) a word at a time, and leaves `index` at its first `<` or `&`, or where
    /// fewer than eight bytes are left (the byte loop goes on from there).
    @inline(__always)
    private static func textRun(_ html: UnsafeRawBufferPointer, from index: inout Int, count: inout Int) {
        while index + 8 <= html.count {
            let word = WordBytes.load(html, at: index)
            // A continuation byte is 10xxxxxx: its high bit set and the bit below it clear.
            let continuations = word & ~(word << 1) & WordBytes.highs
            // The lowest flag of the two tests is the first `<` or `&` exactly.
            let stops = WordBytes.equal(to: UInt8(ascii: "<"), word) | WordBytes.equal(to: UInt8(ascii: "&"), word)
            if stops == 0 {
                count += 8 - continuations.nonzeroBitCount
                index += 8
                continue
            }
            let before = stops.trailingZeroBitCount >> 3  // the bytes before the first stop
            let below: UInt64 = before == 0 ? 0 : (1 << UInt64(8 * before)) - 1
            count += before - (continuations & below).nonzeroBitCount
            index += before
            return
        }
    }

    /// The ingest rejects grouped by file, outcome and part (`photos[].id`: indexes dropped).
    static func findingGroups(_ paths: [String], parser: JSONParser) throws -> [FindingGroup] {
        // Keyed and ordered by bytes: Swift's String equality would merge two files whose names
        // are canonically equivalent (a composed and a decomposed "é"), which Linux keeps apart.
        var groups: [[UInt8]: FindingGroup] = [:]
        for path in paths { try addFindingGroups(path, parser: parser, into: &groups) }
        return groups.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    /// Adds the findings of one ingest rejects file to `groups` (see `findingGroups`).
    private static func addFindingGroups(_ path: String, parser: JSONParser, into groups: inout [[UInt8]: FindingGroup]) throws {
        let reader = LineReader(source: try RawFileSource(path: path))
        while let line = try reader.next() {
            if line.bytes.allSatisfy(isJSONBlank) { continue }
            let value: JSONValue
            do { value = try parser.parse(line.bytes) } catch {
                throw FieldpackError(path: path, line: line.number, "not an ingest rejects line: \(error)")
            }
            guard let file = value["file"]?.string, let outcome = value["outcome"]?.string else {
                throw FieldpackError(path: path, line: line.number, "not an ingest rejects line (no file or outcome)")
            }
            let part = withoutIndexes(value["path"]?.string ?? "(record)")
            let key = Array("\(file)\u{0}\(outcome)\u{0}\(part)".utf8)
            if groups[key] == nil {
                groups[key] = FindingGroup(file: file, outcome: outcome, part: part, count: 0, example: value["reason"]?.string ?? "")
            }
            groups[key]!.count += 1
        }
    }

    /// `results[2].photos[0].id` → `results[].photos[].id`.
    static func withoutIndexes(_ path: String) -> String {
        var out: [UInt8] = []
        var inIndex = false
        for byte in path.utf8 {
            if byte == UInt8(ascii: "[") { inIndex = true; out.append(byte); continue }
            if byte == UInt8(ascii: "]") { inIndex = false }
            if inIndex && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { continue }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func wikiFacts(_ path: String, bytes: [UInt8], parser: JSONParser) throws -> WikiFacts {
        let buffer = PaddedBuffer(copying: bytes)
        let root: JSONValue
        do {
            root = try parser.parse(buffer)
        } catch let error as JSONSyntaxError {
            throw FieldpackError(path: path, "not a wiki report: \(error.message)")
        }
        guard root.isObject else { throw FieldpackError(path: path, "not a wiki report (not a JSON object)") }
        guard let wantedValue = root["wanted"] else { throw FieldpackError(path: path, "not a wiki report (no \"wanted\")") }
        // A field of the wrong type is an error naming it, never a count read as 0.
        func count(_ key: StaticString, _ value: JSONValue?) throws -> Int64 {
            guard let value else { return 0 }
            guard let number = value.int64, number >= 0 else {
                throw FieldpackError(path: path, "not a wiki report: \"\(key)\" is \(RecordError.describe(value.kind)), expected a count")
            }
            return number
        }
        func titles(_ key: StaticString) throws -> [String] {
            guard let value = root[key] else { return [] }
            guard value.isArray, value.elements.allSatisfy({ $0.string != nil }) else {
                throw FieldpackError(path: path, "not a wiki report: \"\(key)\" must be an array of titles")
            }
            return value.elements.compactMap(\.string)
        }
        var wiki = WikiFacts()
        wiki.wanted = try count("wanted", wantedValue)
        wiki.found = try count("found", root["found"])
        wiki.missing = try titles("missing")
        if let redirects = root["redirects_followed"] {
            guard redirects.isObject, redirects.members.allSatisfy({ $0.value.string != nil }) else {
                throw FieldpackError(path: path, "not a wiki report: \"redirects_followed\" must be an object of titles")
            }
            wiki.redirects = redirects.members.map { ($0.key.string, $0.value.string ?? "") }
        }
        wiki.disambiguations = try titles("disambiguation_pages_skipped")
        wiki.duplicates = try count("duplicate_pages", root["duplicate_pages"])
        wiki.lines = try count("lines", root["lines"])
        wiki.skipped = try count("lines_skipped", root["lines_skipped"])
        wiki.rejected = try count("lines_rejected", root["lines_rejected"])
        wiki.filesSkipped = try count("files_skipped", root["files_skipped"])
        if let inputs = root["inputs"] { wiki.inputs = try count("inputs", inputs) }
        return wiki
    }
}
