import Synchronization

/// What the pruning plan (`ExportLinkPruning.plan`) found of each row of the export's plain
/// observations and photos tables, for ingest's own reading of the same rows: whether the row
/// must be read whole there, or may be left out on its key alone (`ExportLinkPruning.Singles`),
/// without splitting and parsing it a second time.
///
/// The plan parses every row whole anyway (its checks, and the rules' values), so it knows the
/// rows whose reading finds nothing to say (no part dropped, no NUL, nothing rejected) and whose
/// record ingest writes only when another row has the same key: an observation the rules remove
/// (and by which rule, for its count) and a photo that links no kept observation and has no
/// measured size. Which keys repeat is known only once every row is in, so the plan cannot leave
/// them out itself; ingest's reading asks `Singles` of such a row's key, read from its key
/// column alone, and counts the row as its full reading would have (the same records, counts
/// and findings: a row with anything to say is read whole).
///
/// One byte a row (`Fate`), run-length coded, per unit of ingest's reading (`IngestUnit`: the
/// plan reads the plain tables in the very units ingest does, so a unit's rows come in the same
/// order in both), kept in one scratch file of the build folder (`SpillFile`: unnamed, gone with
/// this object): a run of one fate takes two to four bytes, and a run ends where the fate
/// changes, so the file follows the rows written, not the export. Memory holds each unit's place
/// in it and its first row (a few dozen bytes a unit of 4 MiB), the byte range and line count of
/// each run of units the plan read, and the units being read. A table that changed
/// between the plan and the reading is an error, never a row judged by another's fate, as far
/// as the table's identity tells (`FileIdentity`: the same file, size and times as when the plan
/// began to read it; a write in the very tick of the one before leaves the times as they were)
/// and, whatever the times, when a unit's rows and its fates do not end together.
final class ExportRowFates: Sendable {
    /// One row's fate. 0: ingest reads it whole. For an observations row, `1 + i`: removed by the
    /// rule `ruleNames[i]`, with nothing to say. For a photos row, 1: links no kept observation,
    /// has no measured size, nothing to say.
    typealias Fate = UInt8

    /// A unit of ingest's reading: the input's index and its byte range (nil: the whole file).
    struct Unit: Hashable, Sendable {
        let file: Int
        let range: Range<Int>?
    }

    /// The rules' names, by the fate that says them (`ExportRules.rules`).
    let ruleNames: [String]
    private let store: Mutex<Store>

    private struct Store {
        var file: SpillFile
        var units: [Unit: (location: SpillFile.Location, rows: Int, first: FirstRow?)] = [:]
        /// The byte ranges the plan read each table in, by its input's index, and how many lines
        /// start in each (`noteRun`).
        var runs: [Int: [(range: Range<Int>, lines: Int)]] = [:]
        /// Each table's identity before the plan read it, by its input's index.
        var identities: [Int: FileIdentity] = [:]
    }

    init(in folder: String, ruleNames: [String]) throws {
        precondition(ruleNames.count < Int(Fate.max), "a rule's fate is one byte")
        self.ruleNames = ruleNames
        store = Mutex(Store(file: try SpillFile(in: folder, bufferSize: 1 << 16)))
    }

    /// The fate of an observations row removed by `rule` with nothing to say; 0 if the rule is
    /// not one of `ruleNames`.
    func fate(removedBy rule: String) -> Fate {
        ruleNames.firstIndex(of: rule).map { Fate($0 + 1) } ?? 0
    }

    /// A unit's first row: where its line starts, and its number as the plan's reader of the run
    /// of units numbered it (counted from the table's header, line 1, in the run at the table's
    /// start; from 2 for the first line of a run past it).
    struct FirstRow {
        let offset: Int
        let lineInRun: Int
    }

    /// The fates of a run of units, in row order, as one reader of the plan finds them: each
    /// row's fate goes to the unit its line starts in (a unit holds the lines that start in its
    /// byte range, `ByteRangeLines`), kept (`ExportRowFates.keep`) once a row starts past it. A
    /// unit's fates are run-length coded: a run is its fate and its length as a LEB128 number.
    /// Not thread-safe: one per reader; `finish` it when the reader is done. A class, its state
    /// unchecked for exclusivity: it is used for every row, from a closure.
    final class Recorder {
        private let fates: ExportRowFates
        /// In order; each but a whole file's a byte range.
        private let units: [Unit]
        @exclusivity(unchecked) private var unit = 0
        @exclusivity(unchecked) private var bytes: [UInt8] = []
        @exclusivity(unchecked) private var rows = 0
        @exclusivity(unchecked) private var fate: Fate = 0
        @exclusivity(unchecked) private var run = 0
        @exclusivity(unchecked) private var first: FirstRow? = nil
        /// The rule last named, and its fate: most removed rows are removed by the rule of the
        /// row before.
        @exclusivity(unchecked) private var lastRule: (name: String, fate: Fate) = ("", 0)

        init(_ fates: ExportRowFates, units: [Unit]) {
            precondition(!units.isEmpty)
            self.fates = fates
            self.units = units
        }

        /// The fate of an observations row removed by `rule` with nothing to say.
        @inline(__always)
        func fate(removedBy rule: String) -> Fate {
            if rule != lastRule.name { lastRule = (rule, fates.fate(removedBy: rule)) }
            return lastRule.fate
        }

        /// Adds the fate of the row whose line starts at `offset`, numbered `line` by the run's
        /// reader.
        @inline(__always)
        func add(_ fate: Fate, offset: Int, line: Int) throws {
            while unit + 1 < units.count, let next = units[unit + 1].range, offset >= next.lowerBound { try nextUnit() }
            if rows == 0 { first = FirstRow(offset: offset, lineInRun: line) }
            rows += 1
            if fate == self.fate || run == 0 {
                self.fate = fate
                run += 1
                return
            }
            close()
            self.fate = fate
            run = 1
        }

        /// Keeps the fates of every unit not yet kept.
        func finish() throws {
            while unit + 1 < units.count { try nextUnit() }
            try keepUnit()
        }

        private func nextUnit() throws {
            try keepUnit()
            unit += 1
        }

        private func keepUnit() throws {
            close()
            try fates.keep(units[unit], bytes: bytes, rows: rows, first: first)
            bytes.removeAll(keepingCapacity: true)
            rows = 0
            first = nil
        }

        private func close() {
            guard run > 0 else { return }
            bytes.append(fate)
            var length = run
            while length >= 0x80 {
                bytes.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            bytes.append(UInt8(length))
            run = 0
        }
    }

    /// Keeps a unit's fates, coded, once all its rows are in.
    private func keep(_ unit: Unit, bytes: [UInt8], rows: Int, first: FirstRow?) throws {
        try store.withLock { store in
            let location = try bytes.withUnsafeBytes { try store.file.append($0) }
            store.units[unit] = (location, rows, first)
        }
    }

    /// Notes that the plan read the lines starting in `range` of input `file`, `lines` of them,
    /// with one reader (a run of units).
    func noteRun(of file: Int, range: Range<Int>, lines: Int) {
        store.withLock { $0.runs[file, default: []].append((range, lines)) }
    }

    /// Where ingest's reading of `unit` of the table at `path` may start, past the lines before
    /// its first row (which are empty, or it would start there), and how many lines come before
    /// that: from the lines the plan counted in the runs before it, so that the reading counts
    /// none of the table up to the unit again (`ByteRangeLines.lineStart`, a pass over it). Nil
    /// when the plan's runs do not cover the table from its start one after another, or the
    /// unit has no row (then the reading counts from the nearest line start it counted to
    /// before: at worst the one pass over the table up to the unit that every unit took before
    /// the plan kept its counts), or it is the table's first (whose reading starts at the
    /// header, counting nothing).
    ///
    /// - Throws: when the table is not the one the plan read (`FileIdentity`), or no line starts
    ///   where the unit's first row did (the file changed while ingest ran, as the same size and
    ///   times can hide): never a reading that starts inside a line.
    func start(of unit: Unit, path: String) throws -> (offset: Int, lines: Int)? {
        guard let range = unit.range, range.lowerBound > 0 else { return nil }
        let found = try store.withLock { store throws -> (offset: Int, lines: Int)? in
            guard let first = store.units[unit]?.first, var runs = store.runs[unit.file] else { return nil }
            try Self.checkIdentity(store, of: unit.file, path: path)
            runs.sort { $0.range.lowerBound < $1.range.lowerBound }
            var before = 0
            var end = 0
            for run in runs {
                guard run.range.lowerBound == end else { return nil }
                if run.range.contains(range.lowerBound) {
                    guard run.range.upperBound >= range.upperBound else { return nil }
                    // The run's reader numbers its first line 1 at the table's start, else 2.
                    let line = before + first.lineInRun - (run.range.lowerBound > 0 ? 1 : 0)
                    return (first.offset, line - 1)
                }
                before += run.lines
                end = run.range.upperBound
            }
            return nil
        }
        guard let found else { return nil }
        var byte: UInt8 = 0
        let got = try withUnsafeMutableBytes(of: &byte) { try ReadableFile(path: path).read(at: found.offset - 1, count: 1, into: $0) }
        guard got == 1, byte == 0x0A else {
            throw FieldpackError(
                path: path,
                "no line starts at byte \(found.offset), where the pruning plan read one moments before: the file changed while "
                    + "ingest ran; run it again on files that do not change")
        }
        return found
    }

    /// Throws when the table at `path`, input `file`, is not the one the plan read.
    private static func checkIdentity(_ store: Store, of file: Int, path: String) throws {
        if let planned = store.identities[file], FileIdentity(path: path) != planned {
            throw FieldpackError(
                path: path,
                "the table is not the one the pruning plan read moments before (its size or times changed): the file changed "
                    + "while ingest ran; run it again on files that do not change")
        }
    }

    /// Notes the identity of the table at `path`, input `file`, before the plan reads it.
    func noteIdentity(of file: Int, path: String) {
        let identity = FileIdentity(path: path)
        store.withLock { $0.identities[file] = identity }
    }

    /// The fates of `unit`'s rows, read in order (`Cursor.next`); nil when the plan kept none
    /// (the unit is read whole, row by row).
    ///
    /// - Throws: when the table at `path` is not the one the plan read (`FileIdentity`).
    func cursor(for unit: Unit, path: String) throws -> Cursor? {
        try store.withLock { store in
            guard let (location, rows, _) = store.units[unit] else { return nil }
            try Self.checkIdentity(store, of: unit.file, path: path)
            let bytes = try store.file.withBytes(at: location) { Array($0) }
            return Cursor(bytes: bytes, rows: rows, path: path)
        }
    }

    /// One unit's fates, row by row. Not thread-safe: one per unit being read.
    final class Cursor {
        private let bytes: [UInt8]
        /// How many rows the plan found in the unit.
        let rows: Int
        private let path: String
        private var position = 0
        private var fate: Fate = 0
        private var left = 0
        private var read = 0

        fileprivate init(bytes: [UInt8], rows: Int, path: String) {
            self.bytes = bytes
            self.rows = rows
            self.path = path
        }

        /// The next row's fate.
        ///
        /// - Throws: when the unit has more rows than the plan found (the table changed).
        @inline(__always)
        func next(line: Int) throws -> Fate {
            if left == 0 { try nextRun(line: line) }
            left -= 1
            read += 1
            return fate
        }

        private func nextRun(line: Int) throws {
            guard position < bytes.count else { throw changed(line: line) }
            fate = bytes[position]
            position += 1
            var length = 0
            var shift = 0
            while position < bytes.count {
                let byte = bytes[position]
                position += 1
                length |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 { break }
            }
            guard length > 0 else { throw changed(line: line) }
            left = length
        }

        /// Checks that the unit's rows ended where the plan's did.
        ///
        /// - Throws: when the plan found more rows than were read (the table changed).
        func finish(line: Int) throws {
            if read != rows || left != 0 || position != bytes.count { throw changed(line: line) }
        }

        private func changed(line: Int) -> FieldpackError {
            FieldpackError(
                path: path, line: line,
                "the table's rows are not the ones the pruning plan read moments before (\(rows) rows planned for this part, "
                    + "\(read) read): the file changed while ingest ran; run it again on files that do not change")
        }
    }
}
