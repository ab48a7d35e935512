#if canImport(Glibc)
import Glibc
#endif

/// The `observations.id` of every observation known only from the open-data export: its uuid's
/// hash (`ObservationUUID.exportID`), unless another such uuid has the same hash. Decided by the
/// bundle stage before it loads a record, from every part of the dedupe, so it is the same for
/// one deduped file, the N parts of a sharded dedupe and a dedupe done in spill partitions.
///
/// The collision rule: of the uuids that share a hash, the lowest (as 128 bits, which is the
/// order of their lower-case text) keeps it; each of the others, in uuid order, takes the next
/// lower negative id that no export-only uuid hashes to and none was given before (hash − 1,
/// hash − 2, …). Colliding hashes are settled from the highest down. So the ids depend only on
/// the set of uuids, never on input order or on how dedupe was split, and two observations never
/// share one. With 63 bits of hash a collision is rare (about 1 in 4,000 exports of 70 million
/// export-only observations), but an id so moved is not stable across exports: the app addresses
/// an observation without an `inaturalist_id` by its uuid.
///
/// How: with a taxon rule, a pass over each part's taxon lines for the taxa it keeps (a
/// `IDSet`, which the load's rules read too); then one pass over the observations of every
/// part (each part's lines up to its first photo;
/// an observation whose id is not negative is passed over without parsing it), the export-only
/// ones' (hash, uuid) through an `ExternalSort`, highest hash first, read once. Memory: one sort
/// run (`SortSpace.runBytes`), the moved uuids and, while a collision is settled, the hashes just
/// below it; never the whole set of uuids. Disk: 24 bytes per export-only observation, in the
/// build folder, while the ids are decided.
struct ExportIDs {
    struct UUIDKey: Hashable {
        var high: UInt64
        var low: UInt64
    }

    /// One export-only observation: its uuid's hash and its uuid.
    struct Entry {
        var hash: Int64
        var uuid: UUIDKey

        /// Highest hash first; within one hash, uuid order (unsigned 128-bit: the text's order).
        static func precedes(_ a: Entry, _ b: Entry) -> Bool {
            if a.hash != b.hash { return a.hash > b.hash }
            if a.uuid.high != b.uuid.high { return a.uuid.high < b.uuid.high }
            return a.uuid.low < b.uuid.low
        }
    }

    /// The moved uuids and their ids; empty when no hash collides (the usual case).
    private(set) var moved: [UUIDKey: Int64] = [:]
    /// The `select` lines the pass met (they sit between the observations and the photos), with
    /// their file and line, so the bundle checks dedupe's rules before it loads a record; nil
    /// for a line that is not that record's shape (the main pass reports it).
    private(set) var selectLines: [(path: String, line: Int, record: DedupedSelectionRecord?)] = []
    let hash: @Sendable (ObservationUUID) -> Int64
    /// The parts' taxa that the selection's taxon rule keeps (`keptTaxa(paths:rule:parser:)`),
    /// which the load's rules read too (`LoadSelection`); nil without a taxon rule.
    private(set) var keptTaxa: IDSet? = nil

    /// Ids that are plain hashes (tests, and a records file known to have no export observation).
    init(hash: @escaping @Sendable (ObservationUUID) -> Int64) {
        self.hash = hash
    }

    /// Reads the observations of the deduped `paths` and decides the ids of the uuids that must move.
    ///
    /// - Parameter selection: the pipeline's `select`: an observation its observation rules
    ///   remove (`Selection.removingRule`, the taxon rule read from the parts' taxa as the load
    ///   reads them) is not among the uuids, whether ingest or dedupe removed it or left it to
    ///   the load, so the ids are the same either way.
    init(
        paths: [String], hash: @escaping @Sendable (ObservationUUID) -> Int64, space: SortSpace, selection: Selection? = nil
    ) throws {
        self.hash = hash
        let entries = ExternalSort<Entry>(space: space, by: Entry.precedes)
        let parser = JSONParser()
        var columns = JSONColumns()
        keptTaxa = try selection.flatMap { $0.taxa.isEmpty ? nil : try Self.keptTaxa(paths: paths, rule: $0.taxa, parser: parser) }
        for path in paths {
            let reader = LineReader(source: try RawFileSource(path: path))
            lines: while let line = try reader.next() {
                switch Self.quickLook(line.bytes) {
                case .skip: continue
                case .photos: break lines
                case .parse: break
                }
                // A line the main pass reports if it is broken; here it only may not count.
                guard let value = try? parser.parse(line.bytes), columns.load(value),
                      let tag = columns.text(0), let kind = RecordKind(tag: tag)
                else { continue }
                if kind == .selection {
                    selectLines.append((path, line.number, DedupedSelectionRecord(columns)))
                    continue
                }
                if RecordKey.rank(of: kind) > RecordKey.rank(of: .observation) { break lines }
                guard kind == .observation, let uuid = Self.exportOnlyUUID(columns) else { continue }
                if let selection {
                    let taxon = columns.int64(ObservationRecord.Column.taxon)
                    let values = ObservedValues(columns, taxonSelected: keptTaxa?.contains(taxon) ?? false)
                    if selection.removingRule(values) != nil { continue }
                }
                try entries.append(Entry(hash: hash(uuid), uuid: UUIDKey(high: uuid.high, low: uuid.low)))
            }
        }
        try decide(try entries.sorted())
    }

    /// The taxa of the deduped `paths` that `rule` keeps, from the values their rows get: each
    /// part's taxon lines, which come before its observations (a taxon no line has is not
    /// loaded, so not kept).
    static func keptTaxa(paths: [String], rule: TaxonRule, parser: JSONParser) throws -> IDSet {
        var kept = IDSet()
        var columns = JSONColumns()
        for path in paths {
            let reader = LineReader(source: try RawFileSource(path: path))
            while let line = try reader.next() {
                // Blank lines and inputs come before, anything past the taxa after them.
                guard let kind = RecordKind.of(line.bytes) else { continue }
                if kind == .input { continue }
                guard kind == .taxon else { break }
                // A line the main pass reports if it is broken; here it only may not count.
                guard let value = try? parser.parse(line.bytes), columns.load(value), let id = columns.id, id > 0 else { continue }
                if rule.selects(columns, id: id) { kept.insert(id) }
            }
        }
        return kept
    }

    /// The uuid of a deduped observation known only from the export, nil for any other: its
    /// winner is an export copy (it has an `ExportOrigin`) and no API copy gave it an id (API ids
    /// are positive; dedupe leaves an export-only observation the id ingest gave it, its uuid's
    /// hash, which is negative).
    static func exportOnlyUUID(_ record: JSONColumns) -> ObservationUUID? {
        guard let id = record.id, id < 0, ExportOrigin.of(record) != nil else { return nil }
        return ObservationUUID(record.text(ObservationRecord.Column.uuid))
    }

    /// The id an export-only observation is loaded with.
    func id(of uuid: ObservationUUID) -> Int64 {
        if !moved.isEmpty, let id = moved[UUIDKey(high: uuid.high, low: uuid.low)] { return id }
        return hash(uuid)
    }

    private enum Look {
        case skip, photos, parse
    }

    /// What a deduped line is, from its first bytes as dedupe writes them: an input, taxon or
    /// user, or an observation with an id that is not negative (`skip`); a photo (`photos`: the
    /// part's last kind); anything else is parsed.
    private static func quickLook(_ bytes: UnsafeRawBufferPointer) -> Look {
        func starts(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            return memcmp(bytes.baseAddress!, prefix.utf8Start, count) == 0
        }
        if bytes.isEmpty { return .skip }
        if starts("[\"obs\",") {
            let next = bytes.count > 7 ? bytes[7] : 0
            return next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") ? .skip : .parse
        }
        if starts("[\"photo\",") { return .photos }
        if starts("[\"input\",") || starts("[\"taxon\",") || starts("[\"user\",") { return .skip }
        return .parse
    }

    /// Walks the entries (highest hash first) and gives each uuid that shares its hash with a
    /// lower uuid the next free id below it.
    private mutating func decide(_ cursor: ExternalSort<Entry>.Cursor) throws {
        // Entries read from the cursor ahead of the group being settled (to see which hashes
        // below it are taken), still to be walked.
        var ahead: [Entry] = []
        var aheadStart = 0
        var given: Set<Int64> = []
        func next() throws -> Entry? {
            if aheadStart < ahead.count {
                defer {
                    aheadStart += 1
                    if aheadStart == ahead.count { ahead.removeAll(keepingCapacity: true); aheadStart = 0 }
                }
                return ahead[aheadStart]
            }
            guard let entry = cursor.peek else { return nil }
            try cursor.advance()
            return entry
        }
        func peek() -> Entry? { aheadStart < ahead.count ? ahead[aheadStart] : cursor.peek }
        /// Whether `id` (below every hash walked so far) is an export-only uuid's hash or was given.
        func taken(_ id: Int64) throws -> Bool {
            if given.contains(id) { return true }
            while let entry = cursor.peek, entry.hash >= id {
                ahead.append(entry)
                try cursor.advance()
            }
            return ahead[aheadStart...].contains { $0.hash == id }
        }
        while let first = try next() {
            var members: [UUIDKey] = []
            while let entry = peek(), entry.hash == first.hash {
                members.append(entry.uuid)
                _ = try next()
            }
            // `first` keeps its hash; the others probe downwards.
            var candidate = first.hash
            for member in members {
                repeat { candidate -= 1 } while try taken(candidate)
                given.insert(candidate)
                moved[member] = candidate
            }
        }
    }
}
