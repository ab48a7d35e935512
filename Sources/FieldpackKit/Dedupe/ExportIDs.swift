/// The `observations.id` of every observation known only from the open-data export, decided
/// once dedupe has every observation sorted by uuid: its uuid's hash (`ObservationUUID.exportID`),
/// unless another such uuid has the same hash.
///
/// The collision rule: of the uuids that share a hash, the lowest (as 128 bits, which is the
/// order of their lower-case text) keeps it; each of the others, in uuid order, takes the next
/// lower negative id that no export-only uuid hashes to and none was given before (hash − 1,
/// hash − 2, …). Colliding hashes are settled from the highest down. So the ids depend only on
/// the set of uuids, never on input order, and two observations never share one (nor merge).
/// With 63 bits of hash a collision is rare (about 1 in 4,000 exports of 70 million export-only
/// observations), but an id so moved is not stable across exports: the app addresses an
/// observation without an `inaturalist_id` by its uuid.
///
/// Memory: 8 bytes per export-only observation while the observations are written.
struct ExportIDs: Sendable {
    /// The moved uuids (high, low) and their ids; empty when no hash collides (the usual case).
    private(set) var moved: [UUIDKey: Int64] = [:]
    let hash: @Sendable (ObservationUUID) -> Int64

    struct UUIDKey: Hashable, Sendable {
        var high: UInt64
        var low: UInt64
    }

    init(hash: @escaping @Sendable (ObservationUUID) -> Int64) {
        self.hash = hash
    }

    /// Whether the group (one uuid's occurrences, sorted: the winner first) is written with an
    /// export id: its winner is a whole observation and no copy comes from the API (an API copy
    /// gives the observation its id).
    static func isExportOnly(_ group: UnsafeBufferPointer<RecordOccurrence>) -> Bool {
        !group[0].isLinks && !group.contains { $0.fromAPI && !$0.isLinks }
    }

    /// The uuid of an observation group's key (see `Dedupe`: the high word, and the low word, never 0).
    static func uuid(of occurrence: RecordOccurrence) -> ObservationUUID {
        ObservationUUID(high: UInt64(bitPattern: occurrence.id), low: occurrence.low)
    }

    /// Finds the colliding hashes among the export-only groups of `sorted` (observation
    /// occurrences sorted by key) and decides the ids of the uuids that must move.
    mutating func decide(_ sorted: UnsafeBufferPointer<RecordOccurrence>) {
        var groups: [(hash: Int64, uuid: UUIDKey)] = []
        var hashes: [Int64] = []
        forEachGroup(sorted) { group in
            guard Self.isExportOnly(group) else { return }
            hashes.append(hash(Self.uuid(of: group[0])))
        }
        hashes.sort()
        var colliding: Set<Int64> = []
        if hashes.count > 1 {
            for index in 1..<hashes.count where hashes[index] == hashes[index - 1] { colliding.insert(hashes[index]) }
        }
        guard !colliding.isEmpty else { return }
        forEachGroup(sorted) { group in
            guard Self.isExportOnly(group) else { return }
            let uuid = Self.uuid(of: group[0])
            let value = hash(uuid)
            if colliding.contains(value) { groups.append((value, UUIDKey(high: uuid.high, low: uuid.low))) }
        }
        // Highest hash first; within one hash, uuid order (unsigned 128-bit: the text's order).
        groups.sort {
            $0.hash != $1.hash ? $0.hash > $1.hash : $0.uuid.high != $1.uuid.high ? $0.uuid.high < $1.uuid.high : $0.uuid.low < $1.uuid.low
        }
        var given: Set<Int64> = []
        func taken(_ id: Int64) -> Bool {
            if given.contains(id) { return true }
            let at = hashes.partitionPoint { $0 < id }
            return at < hashes.count && hashes[at] == id
        }
        var index = 0
        while index < groups.count {
            var next = index + 1
            while next < groups.count && groups[next].hash == groups[index].hash { next += 1 }
            // groups[index] keeps its hash; the others probe downwards.
            var candidate = groups[index].hash
            for member in groups[(index + 1)..<next] {
                repeat { candidate -= 1 } while taken(candidate)
                given.insert(candidate)
                moved[member.uuid] = candidate
            }
            index = next
        }
    }

    /// The id an export-only group is written with.
    func id(of occurrence: RecordOccurrence) -> Int64 {
        let uuid = Self.uuid(of: occurrence)
        if !moved.isEmpty, let id = moved[UUIDKey(high: uuid.high, low: uuid.low)] { return id }
        return hash(uuid)
    }

    private func forEachGroup(_ sorted: UnsafeBufferPointer<RecordOccurrence>, _ body: (UnsafeBufferPointer<RecordOccurrence>) -> Void) {
        var start = 0
        while start < sorted.count {
            var next = start + 1
            while next < sorted.count && sorted[next].sameKey(as: sorted[start]) { next += 1 }
            body(UnsafeBufferPointer(rebasing: sorted[start..<next]))
            start = next
        }
    }
}
