import Dispatch
import Synchronization

/// Ingest's share of a pipeline's `select` for the open-data export: a photo row whose
/// observation the selection's dedupe rules remove (`Selection.dedupeRules`: the places, and
/// without a taxon rule the grades and the observed range) is written as its photo record only,
/// without the link record to that observation. A regional guide of an export removes most of
/// its observations, and their links were 40% of ingest's records (a link record per photo row).
///
/// Before the tables are read, the export's observations tables are read once for what the rules
/// keep: the uuids of the rows they keep, by export date (`Kept`). A photo row of date `d` keeps
/// its link when some observations row of date `d` with its uuid is kept.
///
/// The bundle is the same bytes as without pruning, because dedupe takes an export observation's
/// links only from its export's link records, and only when a copy of that export wins
/// (`Winners.exportLinks`): a link is pruned only when every copy of its observation at its
/// export's date is removed by the rules, on the very values its record has, so either such a
/// copy wins and dedupe removes the observation with its links (it applies the same rules, and
/// columns filled from an API copy can only add `obscured`, which removes, never keeps), or a
/// copy of another date or from the API wins, which never takes these links. Photo records are
/// all written: which photos ship, and the count of those not selected, are decided from every
/// photo as before.
///
/// Off (nil) when the pipeline has no such rules, when an input is standard input or an export
/// tar archive (streamed once: its observations would be read twice, decompressed), and when the
/// rules keep more than `maximumKept` observations (a selection that keeps most of a large export
/// prunes little, and its uuids would grow with the input).
///
/// Dedupe is told: the photos tables' `input` records name the rules' digest
/// (`InputRecord.pruned`), and dedupe refuses records pruned under rules other than its own.
public final class ExportLinkPruning: Sendable {
    /// The uuids of the observations one export date's tables keep, sorted, each once.
    struct Kept: Sendable {
        let uuids: [ObservationUUID]

        func contains(_ uuid: ObservationUUID) -> Bool {
            var low = 0
            var high = uuids.count
            while low < high {
                let middle = (low + high) / 2
                let probe = uuids[middle]
                if probe.high == uuid.high && probe.low == uuid.low { return true }
                if probe.high < uuid.high || (probe.high == uuid.high && probe.low < uuid.low) {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            return false
        }
    }

    /// The digest of the rules (`Selection.dedupeFingerprint`).
    public let fingerprint: String
    private let keptByDate: [Int64?: Kept]

    /// Observations kept past which ingest does not prune (32 MB of uuids).
    public static let maximumKept = 2_000_000

    /// What the rules keep of the export dated `date` (nothing when it has no observations table).
    func kept(date: Int64?) -> Kept {
        keptByDate[date] ?? Kept(uuids: [])
    }

    /// The observations the rules keep of every export observations table among `inputs`, or nil
    /// when ingest does not prune (see the type's comment).
    ///
    /// - Parameters:
    ///   - openDataDate: the pipeline's date of loose tables whose names do not carry one.
    ///   - workers: how many threads read the tables.
    /// - Throws: when a table cannot be read (never an early end).
    ///   - maximumKept: the most observations kept with which ingest still prunes.
    public static func plan(
        inputs: [String], selection: Selection, openDataDate: Int64?, workers: Int, maximumKept: Int = maximumKept
    ) throws -> ExportLinkPruning? {
        guard !selection.dedupeRules.isEmpty else { return nil }
        // The observations tables, and their date as ingest dates their rows.
        var tables: [(path: String, header: OpenDataTable.Header, date: Int64?, gzip: Bool)] = []
        for path in inputs {
            if path == StandardInput.argument { return nil }
            let (source, _, gzip) = try openInput(path, hashing: false)
            let reader = LineReader(source: source, chunkSize: 1 << 12)
            let head = try reader.peek(atLeast: 1 << 12)
            if FileIngest.isTar(head) { return nil }
            guard let header = try? FileIngest.openDataHeader(head, path: path), header.table == .observations else { continue }
            tables.append((path, header, OpenDataDate.of(path) ?? openDataDate, gzip))
        }
        // Each plain table in `workers` byte ranges, read side by side; a compressed one whole.
        var jobs: [(table: Int, range: Range<Int>?)] = []
        for (index, table) in tables.enumerated() {
            let size = FileSystem.size(table.path) ?? 0
            if table.gzip || size < 8 << 20 || workers < 2 {
                jobs.append((index, nil))
            } else {
                for range in ByteRangeLines.cuts(size: size, count: workers) { jobs.append((index, range)) }
            }
        }
        let (readTables, readJobs) = (tables, jobs)
        let found = Mutex<(uuids: [[ObservationUUID]], total: Int, failure: (any Error)?)>(
            ([[ObservationUUID]](repeating: [], count: jobs.count), 0, nil))
        DispatchQueue.concurrentPerform(iterations: jobs.count) { job in
            let (index, range) = readJobs[job]
            let table = readTables[index]
            do {
                let reader = try range.map { try ByteRangeLines.reader(path: table.path, range: $0) }
                    ?? LineReader(source: try openInput(table.path, hashing: false).source)
                var row = OpenDataRow(header: table.header, seen: table.date)
                var uuids: [ObservationUUID] = []
                while let line = try reader.next() {
                    if line.number == 1 { continue }  // the header
                    var bytes = line.bytes
                    if bytes.last == 0x0D { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
                    // As ingest reads it: an incomplete row of a damaged stream is rejected.
                    if bytes.isEmpty || (line.unterminated && reader.damage != nil) { continue }
                    if let uuid = row.keptObservation(bytes, by: selection) {
                        uuids.append(uuid)
                        if uuids.count & 0xFFFF == 0, found.withLock({ $0.total + uuids.count > maximumKept }) { break }
                    }
                }
                found.withLock {
                    $0.uuids[job] = uuids
                    $0.total += uuids.count
                }
            } catch {
                found.withLock { $0.failure = $0.failure ?? error }
            }
        }
        let (lists, total, failure) = found.withLock { ($0.uuids, $0.total, $0.failure) }
        if let failure { throw failure }
        if total > maximumKept { return nil }
        var byDate: [Int64?: [ObservationUUID]] = [:]
        for (job, list) in lists.enumerated() { byDate[tables[jobs[job].table].date, default: []] += list }
        var keptByDate: [Int64?: Kept] = [:]
        for (date, list) in byDate {
            var sorted = list.sorted { $0.high != $1.high ? $0.high < $1.high : $0.low < $1.low }
            var unique = 0
            for uuid in sorted where unique == 0 || sorted[unique - 1] != uuid {
                sorted[unique] = uuid
                unique += 1
            }
            sorted.removeSubrange(unique...)
            keptByDate[date] = Kept(uuids: sorted)
        }
        return ExportLinkPruning(fingerprint: selection.dedupeFingerprint, keptByDate: keptByDate)
    }

    private init(fingerprint: String, keptByDate: [Int64?: Kept]) {
        self.fingerprint = fingerprint
        self.keptByDate = keptByDate
    }
}
