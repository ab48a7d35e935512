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
/// Per unit of ingest's reading (`IngestUnit`: the plan reads the plain tables in the very units
/// ingest does, so a unit's rows come in the same order in both), kept in one scratch file of the
/// build folder (`SpillFile`: unnamed, gone with this object):
/// - a unit that is a byte range of a plain table (`Coding.rows`): each row's fate, where its line
///   starts and its number (as steps from the row before), a quiet row's key (`Singles`, 8
///   bytes) and the bytes of every other row, which ingest writes. About 11 bytes a quiet row
///   and the row itself for the others, so that ingest's reading of the unit needs nothing of
///   the table but the quiet rows whose key turns out to repeat, read again by their place
///   (`FileIngest.ingestOpenDataRows`): the tables are read once, not twice. A unit whose rows to
///   write come to more than a quarter of its bytes (a guide that keeps much of the export), or
///   one with a row over 1 MiB, keeps their places and keys but not their bytes, and is read from
///   the table as before (with the keys, no row is split for its key);
/// - a whole file (a gzip-compressed table, read as one unit; `Coding.runs`): its fates,
///   run-length coded (a run of one fate takes two to four bytes), since its rows cannot be read
///   again by place.
/// Memory holds each unit's place in the file and its first row (a few dozen bytes a unit of
/// 4 MiB), the byte range and line count of each run of units the plan read, and the units being
/// read or recorded (at most about 1.4 MiB each). A table that changed between the plan and the
/// reading is an error, never a row judged by another's fate, as far as the table's identity
/// tells (`FileIdentity`: the same file, size and times as when the plan began to read it; a write
/// in the very tick of the one before leaves the times as they were) and, whatever the times,
/// when a unit's rows and its fates do not end together, or a row read again by its place is not
/// the row of its key.
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
        var units: [Unit: (location: SpillFile.Location, rows: Int, first: FirstRow?, coding: Coding)] = [:]
        /// The byte ranges the plan read each table in, by its input's index, and how many lines
        /// start in each (`noteRun`).
        var runs: [Int: [(range: Range<Int>, lines: Int)]] = [:]
        /// Each table's identity before the plan read it, by its input's index.
        var identities: [Int: FileIdentity] = [:]
    }

    /// How a unit's rows are kept (the type's comment).
    enum Coding: Equatable, Sendable {
        /// Fates, run-length coded: a whole file's.
        case runs
        /// A byte range's rows, with their places and keys in the first `places` bytes, then
        /// (`bytes`) each row to write's length and bytes.
        case rows(places: Int, bytes: Bool)
    }

    /// The most of a unit's bytes its rows to write may take and be kept (a quarter), and the
    /// longest such row kept.
    static func keptRowBytes(ofUnit bytes: Int) -> Int { bytes / 4 }
    static let longestKeptRow = 1 << 20

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
    /// whole file's fates are run-length coded: a run is its fate and its length as a LEB128
    /// number; a byte range's rows are coded one by one (`add`). Not thread-safe: one per reader;
    /// `finish` it when the reader is done. A class, its state unchecked for exclusivity: it is
    /// used for every row, from a closure.
    final class Recorder {
        private let fates: ExportRowFates
        /// In order; each but a whole file's a byte range.
        private let units: [Unit]
        @exclusivity(unchecked) private var unit = 0
        @exclusivity(unchecked) private var rows = 0
        @exclusivity(unchecked) private var fate: Fate = 0
        @exclusivity(unchecked) private var run = 0
        @exclusivity(unchecked) private var first: FirstRow? = nil
        /// The unit's rows, coded (`add`; a whole file's fates, run-length), and a byte range's
        /// rows to write (each its length, then its bytes) while they are kept.
        private let places = PaddedBuffer(capacity: 1 << 16)
        private let written = PaddedBuffer(capacity: 1 << 16)
        @exclusivity(unchecked) private var keepsWritten = true
        /// Where the row before started, and its number.
        @exclusivity(unchecked) private var last = (offset: 0, line: 0)
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
        /// reader: with a quiet row (`fate` not 0) its key (`ExportLinkPruning.Singles`), with
        /// another its bytes (as ingest reads them, `OpenDataRow.rowBytes`).
        @inline(__always)
        func add(_ fate: Fate, offset: Int, line: Int, key: UInt64 = 0, row: UnsafeRawBufferPointer? = nil) throws {
            while unit + 1 < units.count, let next = units[unit + 1].range, offset >= next.lowerBound { try nextUnit() }
            if rows == 0 {
                first = FirstRow(offset: offset, lineInRun: line)
                last = (offset, line)
            }
            rows += 1
            guard let range = units[unit].range else { return addToRun(fate) }
            // The fate; the steps from the row before (its line's start, doubled, plus one when
            // the line number steps by other than one, then that step); the key or the row.
            places.reserve(places.count + 1 + 3 * 10 + 8)
            var at = places.storage + places.count
            at.storeBytes(of: fate, as: UInt8.self)
            at += 1
            let step = line - last.line
            at = Self.put((offset - last.offset) << 1 | (step == 1 ? 0 : 1), at: at)
            if step != 1 { at = Self.put(step, at: at) }
            last = (offset, line)
            if fate != 0 {
                at.storeBytes(of: key.littleEndian, as: UInt64.self)
                at += 8
            } else if keepsWritten {
                if let row, row.count <= ExportRowFates.longestKeptRow, written.count + row.count <= ExportRowFates.keptRowBytes(ofUnit: range.count) {
                    written.reserve(written.count + 10 + row.count)
                    let end = Self.put(row.count, at: written.storage + written.count)
                    if let base = row.baseAddress { end.copyMemory(from: base, byteCount: row.count) }
                    written.count = end + row.count - written.storage
                } else {
                    keepsWritten = false
                }
            }
            places.count = at - places.storage
        }

        /// Stores `number` (not negative) at `at` as a LEB128 number; returns where it ends.
        @inline(__always)
        private static func put(_ number: Int, at: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
            var (number, at) = (number, at)
            while number >= 0x80 {
                at.storeBytes(of: UInt8(number & 0x7F) | 0x80, as: UInt8.self)
                at += 1
                number >>= 7
            }
            at.storeBytes(of: UInt8(number), as: UInt8.self)
            return at + 1
        }

        @inline(__always)
        private func addToRun(_ fate: Fate) {
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
            if units[unit].range == nil {
                close()
                try fates.keep(units[unit], places.bytes, rows: rows, first: first, coding: .runs)
            } else {
                try fates.keep(
                    units[unit], places.bytes, keepsWritten ? written.bytes : UnsafeRawBufferPointer(start: nil, count: 0), rows: rows,
                    first: first, coding: .rows(places: places.count, bytes: keepsWritten))
            }
            places.count = 0
            written.count = 0
            keepsWritten = true
            rows = 0
            first = nil
        }

        /// Codes the run of fates being counted: its fate, then its length.
        private func close() {
            guard run > 0 else { return }
            places.reserve(places.count + 1 + 10)
            let at = places.storage + places.count
            at.storeBytes(of: fate, as: UInt8.self)
            places.count = Self.put(run, at: at + 1) - places.storage
            run = 0
        }
    }

    /// Keeps a unit's fates, coded, once all its rows are in: `bytes`, then `more`, as one.
    private func keep(
        _ unit: Unit, _ bytes: UnsafeRawBufferPointer, _ more: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        rows: Int, first: FirstRow?, coding: Coding
    ) throws {
        // Read only inside the lock, on this thread, while the caller holds them.
        let parts = [bytes, more].map(Borrowed.init)
        try store.withLock { store in
            let offset = store.file.count
            for part in parts where !part.bytes.isEmpty { try store.file.append(part.bytes) }
            store.units[unit] = (SpillFile.Location(offset: offset, count: parts[0].bytes.count + parts[1].bytes.count), rows, first, coding)
        }
    }

    /// Bytes a caller lends for as long as its call.
    private struct Borrowed: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
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

    /// The number of the first row of `unit` (a byte range) in its table, for a reading of the
    /// rows the plan kept (`Cursor.holdsRows`): as the plan's reader numbered it in the run at the
    /// table's start, else from the plan's counts (`start(of:path:)`); nil when they do not say.
    ///
    /// - Throws: as `start(of:path:)`.
    func firstLine(of unit: Unit, path: String) throws -> Int? {
        guard let range = unit.range else { return nil }
        if range.lowerBound == 0 { return store.withLock { $0.units[unit]?.first?.lineInRun } }
        return try start(of: unit, path: path).map { $0.lines + 1 }
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
            guard let (location, rows, first, coding) = store.units[unit] else { return nil }
            try Self.checkIdentity(store, of: unit.file, path: path)
            let cursor = Cursor(count: location.count, rows: rows, first: first, coding: coding, path: path)
            try store.file.read(at: location, into: cursor.bytes)
            return cursor
        }
    }

    /// One unit's fates, row by row; for a byte range's rows, each row's place and its key or
    /// bytes too. Not thread-safe: one per unit being read.
    ///
    /// Its state is read and written for every row: unchecked for exclusivity at run time.
    final class Cursor {
        /// The unit's coded rows, read in by `ExportRowFates.cursor(for:path:)` (the allocation
        /// may hold one byte more).
        fileprivate let bytes: UnsafeMutableRawBufferPointer
        private let count: Int
        /// How many rows the plan found in the unit.
        let rows: Int
        /// How the rows are kept.
        let coding: Coding
        private let path: String
        @exclusivity(unchecked) private var position = 0
        /// Where the rows to write are (`Coding.rows` with their bytes).
        @exclusivity(unchecked) private var writtenPosition = 0
        private let placesEnd: Int
        @exclusivity(unchecked) private var fate: Fate = 0
        @exclusivity(unchecked) private var left = 0
        @exclusivity(unchecked) private var read = 0
        /// The row last read (`next`), with `Coding.rows`: where its line starts in the table,
        /// how many lines after the unit's first row's it is, its key (a quiet row's), and its
        /// bytes (another's, when they were kept).
        @exclusivity(unchecked) private(set) var offset = 0
        @exclusivity(unchecked) private(set) var linesAfterFirst = 0
        @exclusivity(unchecked) private(set) var key: UInt64 = 0
        @exclusivity(unchecked) private(set) var row: UnsafeRawBufferPointer? = nil

        fileprivate init(count: Int, rows: Int, first: FirstRow?, coding: Coding, path: String) {
            bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 8)
            self.count = count
            self.rows = rows
            self.coding = coding
            self.path = path
            offset = first?.offset ?? 0
            switch coding {
            case .runs: (placesEnd, writtenPosition) = (count, count)
            case .rows(let places, let kept): (placesEnd, writtenPosition) = (places, kept ? places : count)
            }
        }

        deinit { bytes.deallocate() }

        /// Whether each row comes with its place and key (`Coding.rows`).
        var placesRows: Bool { coding != .runs }

        /// Whether each row to write comes with its bytes: the unit needs nothing of the table
        /// but its quiet rows whose key repeats.
        var holdsRows: Bool {
            if case .rows(_, true) = coding { return true }
            return false
        }

        /// The next row's fate (and with `Coding.rows`, its place, key or bytes).
        ///
        /// - Throws: when the unit has more rows than the plan found (the table changed).
        @inline(__always)
        func next(line: Int) throws -> Fate {
            if case .runs = coding {
                if left == 0 { try nextRun(line: line) }
                left -= 1
                read += 1
                return fate
            }
            guard read < rows, position < placesEnd else { throw changed(line: line) }
            read += 1
            fate = bytes[position]
            position += 1
            // The first row's steps are 0 (`Recorder.add`).
            let steps = try number(line: line)
            offset += steps >> 1
            linesAfterFirst += steps & 1 == 0 ? 1 : try number(line: line)
            row = nil
            if fate != 0 {
                guard position + 8 <= placesEnd else { throw changed(line: line) }
                key = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                position += 8
            } else if writtenPosition < count {
                let length = try number(at: &writtenPosition, end: count, line: line)
                guard writtenPosition + length <= count else { throw changed(line: line) }
                row = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[writtenPosition..<(writtenPosition + length)])
                writtenPosition += length
            }
            return fate
        }

        @inline(__always)
        private func number(line: Int) throws -> Int { try number(at: &position, end: placesEnd, line: line) }

        /// The LEB128 number at `position` (moved past it).
        @inline(__always)
        private func number(at position: inout Int, end: Int, line: Int) throws -> Int {
            var value = 0
            var shift = 0
            while position < end {
                let byte = bytes[position]
                position += 1
                value |= Int(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
                if shift > 56 { break }
            }
            throw changed(line: line)
        }

        private func nextRun(line: Int) throws {
            guard position < placesEnd else { throw changed(line: line) }
            fate = bytes[position]
            position += 1
            left = try number(line: line)
            guard left > 0 else { throw changed(line: line) }
        }

        /// Checks that the unit's rows ended where the plan's did.
        ///
        /// - Throws: when the plan found more rows than were read (the table changed).
        func finish(line: Int) throws {
            if read != rows || left != 0 || position != placesEnd { throw changed(line: line) }
        }

        /// The error for a table whose rows are not the plan's (at `line`).
        func changed(line: Int) -> FieldpackError {
            FieldpackError(
                path: path, line: line,
                "the table's rows are not the ones the pruning plan read moments before (\(rows) rows planned for this part, "
                    + "\(read) read): the file changed while ingest ran; run it again on files that do not change")
        }
    }
}
