import FieldpackKit
import Synchronization
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// A deterministic synthetic iNaturalist dump: API v1 observation pages, for benchmarks and
/// scale tests.
///
/// Writes `page-000001.json`, `page-000002.json`, … into the output folder, each
/// `{"total_results":N,"page":k,"per_page":200,"results":[…]}` on one line, then `synth.txt`
/// (which ingest skips): a first line naming the parameters (`markerText`), a second with what
/// was written (`pages=… records=… older_copies=… bytes=…`). The same options give the same
/// bytes, whatever the number of workers: every page is a pure function of the seed and its
/// page number.
///
/// What the pipeline has to cope with, at about the rates of real dumps:
/// - Zipf-like popularity over the taxa (~20k) and users (~50k); taxon default photos repeat
///   across observations and identifications;
/// - ~1% of observations appear twice, the older copy (earlier `updated_at`, sometimes an older
///   photo licence) in another page, before or after the newer one;
/// - ~0.1% of photo ids are shared by two observations;
/// - null licences, old Flickr photos without dimensions, non-ASCII names and places, escapes.
public struct SyntheticDump {
    public struct Options: Sendable {
        /// Distinct observations (`total_results`); the pages also hold ~1% older copies.
        public var observations: Int
        public var seed: UInt64
        public var output: String
        public var perPage = 200
        /// Threads writing pages; the output does not depend on it.
        public var workers = 2
        /// Taxa and users to draw from; nil scales with `observations` (at most 20k and 50k).
        public var taxa: Int? = nil
        public var users: Int? = nil
        /// Realistic damage (`SyntheticDamage`): malformed records, a truncated page, repeated
        /// photos under changed licences, hard unicode. Off gives pages the API would serve.
        public var damage = false

        public init(observations: Int, seed: UInt64, output: String) {
            self.observations = observations
            self.seed = seed
            self.output = output
        }

        var taxonCount: Int { taxa ?? min(20_000, max(50, observations / 50)) }
        var userCount: Int { users ?? min(50_000, max(20, observations / 20)) }
    }

    public struct Summary: Sendable {
        public var pages = 0
        /// Observation records written, older copies included.
        public var records = 0
        public var olderCopies = 0
        public var bytes = 0
        public var taxa = 0
        public var users = 0
        /// What `damage` did; nil for a clean dump.
        public var damage: DamageSummary? = nil
    }

    /// The file beside the pages that says a dump is complete and what it holds.
    public static let markerName = "synth.txt"

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The marker's first line for these options; a folder whose marker starts with it holds
    /// this dump.
    public var markerText: String {
        "fieldpack-synth observations=\(options.observations) seed=\(options.seed) per_page=\(options.perPage) "
            + "taxa=\(options.taxonCount) users=\(options.userCount) format=\(Self.formatVersion)"
            + (options.damage ? " damage=1\n" : "\n")
    }

    /// True if the output folder already holds this dump: its marker's first line matches and
    /// the last page it names exists.
    public var isComplete: Bool {
        guard let bytes = try? ReadableFile.contents(of: "\(options.output)/\(Self.markerName)") else { return false }
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(markerText) else { return false }
        let stats = text.dropFirst(markerText.count).split(separator: " ")
        guard let pages = stats.first(where: { $0.hasPrefix("pages=") }).flatMap({ Int($0.dropFirst(6)) }) else { return false }
        return FileSystem.exists("\(options.output)/\(Self.pageName(pages))")
    }

    /// Bumped whenever the generator's output changes, so old dumps are not mistaken for new ones.
    public static let formatVersion = 1

    /// Writes the dump.
    ///
    /// - Throws: `UsageError` for impossible options, `FieldpackError` when a file cannot be
    ///   written. The marker is removed first and written last, so a folder with a matching
    ///   marker holds a complete dump. Pages are renamed into place but not fsynced (they are
    ///   scratch data); the marker is.
    @discardableResult
    public func run() throws -> Summary {
        guard options.observations > 0 else { throw UsageError("--observations must be at least 1") }
        guard options.perPage > 0 else { throw UsageError("--per-page must be at least 1") }
        try FileSystem.makeDirectories(options.output)
        let marker = "\(options.output)/\(Self.markerName)"
        FileSystem.remove(marker)

        let world = SyntheticWorld(seed: options.seed, taxa: options.taxonCount, users: options.userCount, damage: options.damage)
        let slots = Self.layout(observations: options.observations, perPage: options.perPage, seed: options.seed)
        let pageCount = (slots.count + options.perPage - 1) / options.perPage
        let truncated = options.damage ? SyntheticDamage.truncatedPage(seed: options.seed, pageCount: pageCount) : nil
        let damageFolder = "\(options.output)/\(Self.damageFolder)"
        if FileSystem.exists(damageFolder) { for name in try FileSystem.list(damageFolder) { FileSystem.remove("\(damageFolder)/\(name)") } }
        if options.damage { try FileSystem.makeDirectories(damageFolder) }
        let queue = PageQueue(count: pageCount)
        let workers = max(1, min(options.workers, pageCount))
        let options = self.options
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var observations = ObservationWriter(world: world, total: options.observations, damage: options.damage)
            var writer = JSONWriter(capacity: options.perPage * 4096 + 4096)
            while let page = queue.claim() {
                writer.reset()
                writer.beginObject()
                writer.key("total_results"); writer.int(options.observations)
                writer.key("page"); writer.int(page + 1)
                writer.key("per_page"); writer.int(options.perPage)
                writer.key("results")
                writer.beginArray()
                let start = page * options.perPage
                var ends: [Int] = [writer.count]
                for slot in slots[start..<min(start + options.perPage, slots.count)] {
                    observations.write(slot >= 0 ? slot : -slot - 1, olderCopy: slot < 0, into: &writer)
                    if page == truncated { ends.append(writer.count) }
                }
                writer.endArray()
                writer.endObject()
                writer.newline()
                do {
                    var bytes = writer.bytes
                    if page == truncated {
                        bytes = try Self.truncate(bytes, ends: ends, seed: options.seed,
                                                  salvage: "\(options.output)/\(Self.salvageName(page + 1))")
                    }
                    let output = try AtomicOutput(path: "\(options.output)/\(Self.pageName(page + 1))")
                    try bytes.withUnsafeBytes { try output.write($0) }
                    try output.commit(durable: false)
                    queue.finish(bytes: bytes.count, error: nil)
                } catch {
                    queue.finish(bytes: 0, error: error)
                }
            }
        }
        if let error = queue.error { throw error }
        try removeStalePages(after: pageCount)
        try FileSystem.fsyncDirectory(options.output)
        var summary = Summary()
        summary.pages = pageCount
        summary.records = slots.count
        summary.olderCopies = slots.count - options.observations
        summary.bytes = queue.bytes
        summary.taxa = world.taxa.count
        summary.users = world.users.count
        var damageLine = ""
        if options.damage {
            let damage = Self.damageSummary(slots: slots, perPage: options.perPage, seed: options.seed, truncated: truncated)
            summary.records -= damage.lost
            summary.damage = damage
            damageLine = "damage " + damage.text + "\n"
        }
        try AtomicOutput.write(
            markerText + "pages=\(pageCount) records=\(summary.records) older_copies=\(summary.olderCopies) bytes=\(summary.bytes)\n"
                + damageLine,
            to: marker)
        return summary
    }

    /// `page-000001.json` (six digits, more past a million pages).
    public static func pageName(_ page: Int) -> String {
        let digits = String(page)
        return "page-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".json"
    }

    /// Removes pages numbered past `count` and temp files a killed run left behind.
    private func removeStalePages(after count: Int) throws {
        for name in try FileSystem.list(options.output) {
            if name.hasPrefix(".page-") && name.contains(".json.tmp-") {
                FileSystem.remove("\(options.output)/\(name)")
            } else if name.hasPrefix("page-") && name.hasSuffix(".json"),
                      let number = Int(name.dropFirst(5).dropLast(5)), number > count
            {
                FileSystem.remove("\(options.output)/\(name)")
            }
        }
    }

    /// The order of records over all pages: observation `i` as `i`, an older copy of `i` as
    /// `-i - 1`.
    ///
    /// Observations come in index (and so id and creation) order. About 1 in 100 also gets an
    /// older copy, put at least a page away: half of them later in the dump (the observation
    /// changed while an earlier page was being fetched), half earlier (it was fetched before it
    /// changed and again after). No observation gets more than one copy.
    static func layout(observations: Int, perPage: Int, seed: UInt64) -> [Int] {
        var rng = SplitMix64(seed: seed, stream: SyntheticWorld.Stream.layout, index: 0)
        var slots: [Int] = []
        slots.reserveCapacity(observations + observations / 64 + 16)
        var hasCopy = [Bool](repeating: false, count: observations)
        var pending: [(at: Int, observation: Int, page: Int)] = []
        for index in 0..<observations {
            if !pending.isEmpty {
                var waiting: [(at: Int, observation: Int, page: Int)] = []
                for entry in pending {
                    if entry.at <= slots.count { slots.append(-entry.observation - 1) } else { waiting.append(entry) }
                }
                pending = waiting
            }
            slots.append(index)
            guard rng.chance(1, in: 100) else { continue }
            if rng.chance(1, in: 2) {
                // The older copy comes one to three pages later.
                guard !hasCopy[index] else { continue }
                hasCopy[index] = true
                pending.append((slots.count + perPage + rng.below(2 * perPage), index, (slots.count - 1) / perPage))
            } else {
                // An older copy of an observation one to three pages ahead comes now.
                let later = index + perPage + rng.below(2 * perPage)
                guard later < observations, !hasCopy[later] else { continue }
                hasCopy[later] = true
                slots.append(-later - 1)
            }
        }
        for entry in pending where slots.count / perPage != entry.page {
            slots.append(-entry.observation - 1)
        }
        return slots
    }
}

/// Hands out page numbers to writer threads and collects byte counts and the first error.
final class PageQueue: @unchecked Sendable {
    private struct State {
        var next = 0
        var bytes = 0
        var error: Error? = nil
    }

    private let count: Int
    private let state = Mutex(State())

    init(count: Int) {
        self.count = count
    }

    var bytes: Int { state.withLock { $0.bytes } }
    var error: Error? { state.withLock { $0.error } }

    /// The next page to write, or nil when all are taken or a writer failed.
    func claim() -> Int? {
        state.withLock { state in
            guard state.next < count, state.error == nil else { return nil }
            state.next += 1
            return state.next - 1
        }
    }

    func finish(bytes: Int, error: Error?) {
        state.withLock { state in
            state.bytes += bytes
            if state.error == nil, let error { state.error = error }
        }
    }
}
