@testable import FieldpackKit
import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

/// The plan's fate of each export row (`ExportRowFates`): ingest leaves out a quiet row by its
/// key alone, and writes the same records and findings as when it reads every row whole.
@Suite struct ExportRowFatesTests {
    typealias Tables = ExportLinkPruningTests

    /// Tables whose removed rows are quiet or not in every way: an observation outside the box
    /// with no other row (quiet: left out), one repeated in another export (quiet, but written
    /// marked), one whose quality grade and one whose accuracy only a whole reading finds wrong,
    /// one inside the box that the second rule (the grades) removes;
    /// photos linked to a kept observation, quiet and single, repeated, with a bad width, with
    /// measured sizes, rejected for its extension, and with a NUL byte in its licence. Empty
    /// lines (some ended `\r\n`) between rows, enough of them that a range of ingest's reading
    /// holds none but them, or starts among them: its rows' numbers are the same whoever counts
    /// the lines before them.
    static func tables(in directory: TemporaryDirectory) throws -> (inputs: [String], selection: Selection) {
        let u = Tables.uuids
        let (inside, outside) = (Tables.inside, Tables.outside)
        var observations = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        for (uuid, point, accuracy, grade) in [
            (u[0], inside, "", "research"), (u[1], outside, "", "research"), (u[2], outside, "", "research"),
            (u[3], outside, "", "great"), (u[4], outside, "-5", "research"), (u[5], outside, "12", "casual"),
            (Self.seventh, inside, "", "casual"),
        ] {
            observations += "\(uuid)\t7\t\(point.latitude)\t\(point.longitude)\t\(accuracy)\t48662\t\(grade)\t2024-04-30\n"
            if uuid == u[2] { observations += String(repeating: "\n", count: 170) + "\r\n" }
            if uuid == u[4] { observations += "\n\r\n" }
        }
        var photos = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        for (position, (photo, uuid, fileExtension, license, width)) in [
            (601, u[0], "jpg", "CC-BY", "100"), (602, u[1], "jpg", "CC-BY", "100"), (603, u[1], "jpg", "CC-BY", "100"),
            (603, u[0], "jpg", "CC-BY", "100"), (605, u[4], "jpg", "CC-BY", "wide"), (606, u[1], "jpg", "CC-BY", "100"),
            (607, u[3], "", "CC-BY", "100"), (608, u[5], "JPG", "CC-BY\u{0}", "100"),
        ].enumerated() {
            photos += "0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e\(String(format: "%02d", position))\t\(photo)\t\(uuid)\t7\t\(fileExtension)\t\(license)\t\(width)\t100\t\(position)\n"
            if position == 3 { photos += String(repeating: "\r\n", count: 90) }
        }
        let folder = "inaturalist-open-data-20241127"
        var inputs = [try directory.write("\(folder)/observations.csv", observations), try directory.write("\(folder)/photos.csv", photos)]
        inputs += try Tables.writeTables("second/inaturalist-open-data-20250301", rows: [(u[2], outside)], links: [], in: directory)
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 0, south: 45, east: 10, north: 55)]
        selection.qualityGrades = ["research", "needs_id"]
        return (inputs, selection)
    }

    /// An observation inside the box that the quality grades remove (the second rule).
    static let seventh = "00000000-0000-4000-8000-000000000007"

    @Test(arguments: [IngestUnits.tableRangeBytes, 150])
    func aQuietRowIsLeftOutByItsKeyWithTheRecordsAndFindingsOfAWholeReading(tableRangeBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let (inputs, selection) = try Self.tables(in: directory)
        func ingest(fates: Bool) throws -> (records: Data, rejects: Data, summary: INatIngest.Summary) {
            let out = try TemporaryDirectory()
            var options = INatIngest.Options(inputs: inputs, output: out.file("records.jsonl"), rejects: out.file("rejects.jsonl"))
            options.selection = selection
            options.measuredPhotos = [606]
            options.tableRangeBytes = tableRangeBytes
            options.maxRejectRate = 1
            options.readsRowFates = fates
            // Three runs of units a table in the plan: the third's lines numbered from the
            // counts of two before it.
            options.workers = 3
            let summary = try INatIngest(options: options).run()
            if fates { try FileManager.default.copyItem(atPath: out.file("records.jsonl"), toPath: directory.file("quick-records.jsonl")) }
            return (try Data(contentsOf: URL(fileURLWithPath: out.file("records.jsonl"))),
                    try Data(contentsOf: URL(fileURLWithPath: out.file("rejects.jsonl"))), summary)
        }
        let (quick, whole) = (try ingest(fates: true), try ingest(fates: false))
        #expect(quick.records == whole.records)
        #expect(quick.rejects == whole.rejects)
        #expect(quick.summary.leftOutRows == whole.summary.leftOutRows)
        #expect(quick.summary.prunedLinks == whole.summary.prunedLinks)
        #expect(quick.summary.counts == whole.summary.counts)
        // Left out: the observations u[1], u[3], u[4], u[5] and the seventh (single), the photos
        // 602, 605 and 608; counted by the rule that removes each.
        #expect(whole.summary.leftOutRows == 8)
        let counted = try recordLines(directory.file("quick-records.jsonl")).filter { $0["k"] as? String == "select" }
        #expect(counted.reduce(into: [String: Int]()) { sum, line in
            for (rule, count) in line["removed"] as! [String: Int] { sum[rule, default: 0] += count }
        } == ["places": 4, "quality_grades": 1])
        // Findings of rows left out: the grade, the accuracy, the NUL, the width, the extension.
        let rejects = String(decoding: quick.rejects, as: UTF8.self)
        for said in ["quality_grade", "positional_accuracy", "U+FFFD", "width", "extension"] {
            #expect(rejects.contains(said), "\(said)")
        }

        // The plan found the quiet rows: the observations u[1], u[2] and u[5] by the places rule
        // and the seventh by the grades, the photos rows of 602 and 603 (to u[1]); every other
        // row is read whole.
        let units = try IngestUnits.plan(
            inputs: inputs, shards: 1, sharded: false, rangeBytes: 256 << 20, tableRangeBytes: tableRangeBytes)
        let planned = try #require(try ExportLinkPruning.plan(
            inputs: inputs, selection: selection, openDataDate: nil, measuredPhotos: [606], scratch: directory.path, workers: 3,
            units: units))
        let fates = try #require(planned.fates)
        var found: [Int: [ExportRowFates.Fate]] = [:]
        for unit in units {
            let cursor = try #require(try fates.cursor(for: ExportRowFates.Unit(file: unit.file, range: unit.range), path: inputs[unit.file]))
            for row in 0..<cursor.rows { found[unit.file, default: []].append(try cursor.next(line: row)) }
            try cursor.finish(line: cursor.rows)
        }
        #expect(fates.ruleNames == ["places", "quality_grades"])
        #expect(found[0] == [0, 1, 1, 0, 0, 1, 2])
        #expect(found[1] == [0, 1, 1, 0, 0, 0, 0, 0])
        #expect(found[2] == [1])

        // Each unit past a table's start starts at its first row, its lines before it counted
        // by the plan: where a count of the file's own bytes says, past the empty lines.
        var started = 0
        for unit in units {
            guard let range = unit.range, range.lowerBound > 0 else { continue }
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: inputs[unit.file])))
            var at = range.lowerBound
            while at < bytes.count && bytes[at - 1] != 0x0A { at += 1 }
            var lines = bytes[..<at].filter { $0 == 0x0A }.count
            while at < range.upperBound && at < bytes.count && (bytes[at] == 0x0A || bytes[at] == 0x0D && bytes[at + 1] == 0x0A) {
                at += bytes[at] == 0x0A ? 1 : 2
                lines += 1
            }
            let expected = at < range.upperBound && at < bytes.count ? [at, lines] : nil
            let known = try fates.start(of: ExportRowFates.Unit(file: unit.file, range: range), path: inputs[unit.file])
            #expect(known.map { [$0.offset, $0.lines] } == expected, "\(unit.file) \(range)")
            if known != nil { started += 1 }
        }
        #expect(tableRangeBytes != 150 || started >= 5, "\(started) units started from the counts")
    }

    /// A synthetic export (repeated photos, names with quotes, `None`, missing sizes, and rows
    /// with something to say) cut into small ranges, and a selection that keeps a few of its
    /// rows, ingested with the plan's fates or reading every row whole.
    static func ingestInSmallRanges(
        in directory: TemporaryDirectory, workers: Int, fates: Bool, cut: Int? = nil
    ) throws -> (records: Data, rejects: Data, summary: INatIngest.Summary) {
        let folder = directory.file("inaturalist-open-data-20241127")
        if !FileManager.default.fileExists(atPath: folder) {
            _ = try SyntheticOpenData(options: .init(observations: 3000, seed: 11, output: folder)).run()
            // Rows with something to say, read whole wherever they are: a negative accuracy in
            // every 89th observations row, a width that is no number in every 97th photos row.
            for (table, column, value, every) in [("observations", "positional_accuracy", "-5", 89), ("photos", "width", "wide", 97)] {
                let path = "\(folder)/\(table).csv"
                var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                let index = try #require(lines[0].split(separator: "\t").firstIndex { $0 == column })
                for number in stride(from: every, to: lines.count - 1, by: every) {
                    var fields = lines[number].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                    fields[index] = value
                    lines[number] = fields.joined(separator: "\t")
                }
                try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            }
            // A table cut mid-row: its last line has no line end.
            if let cut {
                let path = "\(folder)/photos.csv"
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                try bytes.dropLast(cut).write(to: URL(fileURLWithPath: path))
            }
        }
        let out = try TemporaryDirectory()
        var options = INatIngest.Options(
            inputs: ["observations", "photos", "taxa", "observers"].map { "\(folder)/\($0).csv" }, output: out.file("records.jsonl"),
            rejects: out.file("rejects.jsonl"))
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: -20, south: 30, east: 40, north: 70)]
        selection.qualityGrades = ["research"]
        options.selection = selection
        options.tableRangeBytes = 16 << 10
        options.maxRejectRate = 1
        options.readsRowFates = fates
        options.workers = workers
        let summary = try INatIngest(options: options).run()
        return (try Data(contentsOf: URL(fileURLWithPath: out.file("records.jsonl"))),
                try Data(contentsOf: URL(fileURLWithPath: out.file("rejects.jsonl"))), summary)
    }

    @Test(arguments: [2, 3])
    func aSyntheticExportInSmallRangesGivesTheRecordsAndFindingsOfAWholeReading(workers: Int) throws {
        let directory = try TemporaryDirectory()
        let quick = try Self.ingestInSmallRanges(in: directory, workers: workers, fates: true)
        let whole = try Self.ingestInSmallRanges(in: directory, workers: workers, fates: false)
        #expect(quick.records == whole.records)
        #expect(quick.rejects == whole.rejects)
        #expect(quick.summary.leftOutRows == whole.summary.leftOutRows)
        #expect(quick.summary.prunedLinks == whole.summary.prunedLinks)
        #expect(quick.summary.counts == whole.summary.counts)
        #expect(quick.summary.accepted == whole.summary.accepted)
        // The selection keeps a few rows, the export repeats photos, and has rows with findings.
        #expect(whole.summary.leftOutRows > 1000 && whole.summary.findingCount > 50, "\(whole.summary.findingCount)")
        #expect(quick.records.count > 10000)
        // The observations and photos tables (more than 16 KiB each) read in ranges.
        #expect(quick.summary.files.count { $0.range != nil } > 30)
    }

    /// A plain table in ranges cut mid-row is refused naming its last line, with the plan's fates
    /// as when every row is read whole.
    @Test func aTableInRangesCutMidRowIsRefusedTheSameWithThePlansFates() throws {
        let directory = try TemporaryDirectory()
        func refusal(fates: Bool) throws -> FieldpackError {
            do {
                _ = try Self.ingestInSmallRanges(in: directory, workers: 2, fates: fates, cut: 30)
            } catch let error as FieldpackError {
                return error
            }
            Issue.record("the cut table was read")
            return FieldpackError("")
        }
        let (quick, whole) = (try refusal(fates: true), try refusal(fates: false))
        #expect(quick.message.hasPrefix("cut short: the table's last line has no line end"), "\(quick)")
        #expect(quick.path == whole.path && quick.line == whole.line && quick.message == whole.message, "\(quick) against \(whole)")
        #expect(quick.path?.hasSuffix("photos.csv") == true && (quick.line ?? 0) > 5000, "\(quick)")
    }

    /// A table edited in place after the plan read it (one grade for another of the same length:
    /// the same rows) would have its rows judged by the fates of rows that are no longer there.
    @Test func aTableEditedAfterThePlanReadItIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let (inputs, selection) = try Self.tables(in: directory)
        let units = try IngestUnits.plan(inputs: inputs, shards: 1, sharded: false, rangeBytes: 256 << 20, tableRangeBytes: 4 << 20)
        let planned = try #require(try ExportLinkPruning.plan(
            inputs: inputs, selection: selection, openDataDate: nil, scratch: directory.path, workers: 2, units: units))
        func read() throws {
            let ingest = FileIngest(maxDocumentBytes: 1 << 20)
            ingest.linkPruning = planned
            _ = try ingest.run(path: inputs[0], index: 0, output: PartBuffer(spillPath: directory.file("part")))
        }
        try read()
        // Past the file system's clock tick, so that the edit moves the file's times.
        Thread.sleep(forTimeInterval: 0.25)
        let table = try String(contentsOfFile: inputs[0], encoding: .utf8)
        try table.replacingOccurrences(of: "\tgreat\t", with: "\tcasua\t").write(toFile: inputs[0], atomically: false, encoding: .utf8)
        #expect { try read() } throws: { "\($0)".contains(inputs[0]) && "\($0)".contains("changed while ingest ran") }
    }

    @Test func aTableThatChangedAfterThePlanIsAnErrorNotARowJudgedByAnothersFate() throws {
        let directory = try TemporaryDirectory()
        let fates = try ExportRowFates(in: directory.path, ruleNames: ["places", "taxa"])
        let units = [ExportRowFates.Unit(file: 0, range: 0..<100), ExportRowFates.Unit(file: 0, range: 100..<200)]
        // Long runs (a length past one byte of LEB128) and short ones, across the two units.
        let planned: [(fate: ExportRowFates.Fate, offset: Int)] = (0..<300).map { (1, $0 / 10) } + [(0, 40), (2, 60), (2, 99)]
            + (0..<200).map { (1, 100 + $0 / 10) }
        let recorder = ExportRowFates.Recorder(fates, units: units)
        for (line, row) in planned.enumerated() { try recorder.add(row.fate, offset: row.offset, line: line + 2) }
        try recorder.finish()
        let first = try #require(try fates.cursor(for: units[0], path: "observations.csv"))
        #expect(first.rows == 303)
        #expect(try (0..<303).map { try first.next(line: $0) } == planned.prefix(303).map(\.fate))
        try first.finish(line: 303)
        let second = try #require(try fates.cursor(for: units[1], path: "observations.csv"))
        #expect(try (0..<200).map { try second.next(line: $0) } == Array(repeating: 1, count: 200))
        #expect { try second.next(line: 201) } throws: { "\($0)".contains("not the ones the pruning plan read") }
        let short = try #require(try fates.cursor(for: units[1], path: "observations.csv"))
        _ = try short.next(line: 1)
        #expect { try short.finish(line: 1) } throws: { "\($0)".contains("observations.csv:1") && "\($0)".contains("changed") }
        #expect(try fates.cursor(for: ExportRowFates.Unit(file: 1, range: nil), path: "other.csv") == nil)
    }

    /// Ingest's reading of a unit starts at its first row, numbered from the lines the plan's
    /// readers counted in the runs of units before it, not from a pass over the table up to it.
    @Test func aUnitsReadingStartsAtItsFirstRowNumberedFromThePlansLineCounts() throws {
        let directory = try TemporaryDirectory()
        let fates = try ExportRowFates(in: directory.path, ruleNames: ["places"])
        let units = [0..<100, 100..<200, 200..<300, 300..<400].map { ExportRowFates.Unit(file: 0, range: $0) }
        // The table: its lines end where the rows below say one starts.
        var table = [UInt8](repeating: 0x78, count: 400)
        for end in [39, 129, 204] { table[end] = 0x0A }
        let path = directory.file("observations.csv")
        try Data(table).write(to: URL(fileURLWithPath: path))
        // Two runs: the first from the table's start (its header line 1, a row on line 2, empty
        // lines, a row on line 15 starting at 130, lines up to 25); the second numbered from 2
        // as the plan's readers number a range past the start (an empty line, then a row on
        // its second line, numbered 3, at 205, and 10 lines in all); the last unit has no row.
        let first = ExportRowFates.Recorder(fates, units: Array(units[0...1]))
        try first.add(0, offset: 40, line: 2)
        try first.add(1, offset: 130, line: 15)
        try first.add(1, offset: 150, line: 16)
        try first.finish()
        fates.noteRun(of: 0, range: 0..<200, lines: 25)
        #expect(try fates.start(of: units[1], path: path).map { [$0.offset, $0.lines] } == [130, 14])
        #expect(try fates.start(of: units[2], path: path) == nil, "no run read it yet")
        let second = ExportRowFates.Recorder(fates, units: Array(units[2...3]))
        try second.add(1, offset: 205, line: 3)
        try second.finish()
        fates.noteRun(of: 0, range: 200..<400, lines: 10)
        func start(_ unit: ExportRowFates.Unit) throws -> [Int]? { try fates.start(of: unit, path: path).map { [$0.offset, $0.lines] } }
        #expect(try start(units[1]) == [130, 14])
        #expect(try start(units[2]) == [205, 26])
        #expect(try start(units[0]) == nil, "the first unit starts at the header")
        #expect(try start(units[3]) == nil, "a unit with no row")
        #expect(try start(ExportRowFates.Unit(file: 1, range: 100..<200)) == nil)
        // A table whose line no longer starts there (written over with the same size): an
        // error, never a reading that starts inside a line.
        table[129] = 0x78
        table[130] = 0x0A
        try Data(table).write(to: URL(fileURLWithPath: path))
        #expect { try start(units[1]) } throws: { "\($0)".contains(path) && "\($0)".contains("no line starts at byte 130") }
    }

    /// The plan's runs of one table may be noted in any order; a table whose runs leave a gap, or
    /// a unit that runs past the run that read it, gets no start (its reading counts the lines).
    @Test func runsNotedInAnyOrderCountTheSameAndAGapGivesNoStart() throws {
        let directory = try TemporaryDirectory()
        let fates = try ExportRowFates(in: directory.path, ruleNames: ["places"])
        var table = [UInt8](repeating: 0x78, count: 300)
        for end in [109, 219] { table[end] = 0x0A }
        let path = directory.file("observations.csv")
        try Data(table).write(to: URL(fileURLWithPath: path))
        func record(file: Int, _ ranges: [Range<Int>], rows: [(offset: Int, line: Int)], lines: Int, run: Range<Int>? = nil) throws {
            let recorder = ExportRowFates.Recorder(fates, units: ranges.map { ExportRowFates.Unit(file: file, range: $0) })
            for row in rows { try recorder.add(1, offset: row.offset, line: row.line) }
            try recorder.finish()
            fates.noteRun(of: file, range: run ?? ranges.first!.lowerBound..<ranges.last!.upperBound, lines: lines)
        }
        func start(file: Int, _ range: Range<Int>) throws -> [Int]? {
            try fates.start(of: ExportRowFates.Unit(file: file, range: range), path: path).map { [$0.offset, $0.lines] }
        }
        // Table 0: the later run noted first (its row on its third line, numbered 4), then the
        // run from the start (7 lines).
        try record(file: 0, [200..<300], rows: [(220, 4)], lines: 5)
        try record(file: 0, [0..<100, 100..<200], rows: [(20, 2), (110, 6)], lines: 7)
        #expect(try start(file: 0, 100..<200) == [110, 5])
        #expect(try start(file: 0, 200..<300) == [220, 9])
        // Table 1: nothing read from 100 to 150.
        try record(file: 1, [0..<100], rows: [(20, 2)], lines: 7)
        try record(file: 1, [150..<300], rows: [(220, 3)], lines: 5)
        #expect(try start(file: 1, 150..<300) == nil)
        // Table 2: as table 0 but for its second run, whose count ends before its unit does.
        try record(file: 2, [0..<100], rows: [(20, 2)], lines: 7)
        try record(file: 2, [100..<250], rows: [(110, 2)], lines: 5, run: 100..<200)
        #expect(try start(file: 2, 100..<250) == nil)
        try record(file: 3, [0..<100], rows: [(20, 2)], lines: 7)
        try record(file: 3, [100..<250], rows: [(110, 2)], lines: 5)
        #expect(try start(file: 3, 100..<250) == [110, 7])
    }
}
