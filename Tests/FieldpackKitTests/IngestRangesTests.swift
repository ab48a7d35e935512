@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// An unsharded ingest reads a large plain export table as byte ranges side by side: its
/// observations and photos are the whole table's, in the same order, with the same findings, and
/// dedupe gives the same bytes; the table's `input` record moves after the run's records, with its
/// ranges' counts summed. JSON Lines files stay whole in an unsharded run.
@Suite struct IngestRangesTests {
    /// The sharded suite's inputs (API pages, a JSON Lines file with two malformed lines, a gzip
    /// file, which is never cut) and an export (observations, photos, observers, taxa).
    static func inputs(in directory: TemporaryDirectory) throws -> [String] {
        try ShardedInput.write(in: directory) + OpenDataWholeJobTests.writeInputs(in: directory)
    }

    static func ingest(_ inputs: [String], rangeBytes: Int, workers: Int, in directory: TemporaryDirectory) throws -> INatIngest.Summary {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        options.rangeBytes = rangeBytes
        options.tableRangeBytes = rangeBytes
        options.workers = workers
        options.openDataDate = Timestamp.day("2024-11-27")
        return try INatIngest(options: options).run()
    }

    static func isInput(_ line: String) -> Bool { line.hasPrefix("[\"input\"") }
    static func isObservationOrPhoto(_ line: String) -> Bool { line.hasPrefix("[\"obs\"") || line.hasPrefix("[\"photo\"") }

    @Test(arguments: [1, 2, 3])
    func aTableReadInRangesGivesTheWholeTablesRecordsFindingsAndCounts(workers: Int) throws {
        let inputsFolder = try TemporaryDirectory()
        let inputs = try Self.inputs(in: inputsFolder)
        let whole = try TemporaryDirectory()
        let wholeSummary = try Self.ingest(inputs, rangeBytes: 1 << 30, workers: 1, in: whole)
        let cut = try TemporaryDirectory()
        let cutSummary = try Self.ingest(inputs, rangeBytes: 300, workers: workers, in: cut)
        let one = try TemporaryDirectory()
        _ = try Self.ingest(inputs, rangeBytes: 300, workers: 1, in: one)

        // The export's tables were cut; the JSON Lines file (unsharded) and the gzip file were not.
        let ranged = Set(cutSummary.files.filter { $0.range != nil }.map(\.path))
        #expect(ranged.contains { $0.hasSuffix("observations.csv") })
        #expect(ranged.contains { $0.hasSuffix("photos.csv") })
        #expect(!ranged.contains { $0.hasSuffix("c-lines.jsonl") })
        #expect(!ranged.contains { $0.hasSuffix(".gz") })
        #expect(cutSummary.files.count > wholeSummary.files.count)
        #expect(cutSummary.fileCount == inputs.count && wholeSummary.fileCount == inputs.count)

        let wholeLines = try lines(whole.file("records.jsonl"))
        let cutLines = try lines(cut.file("records.jsonl"))
        // Observations and photos alike, in the same order. (The users and taxa that API records
        // carry are collapsed per chunk, `Satellites`: a range is a chunk, so which identical
        // copies are collapsed differs; dedupe's output, below, does not.)
        #expect(cutLines.filter(Self.isObservationOrPhoto) == wholeLines.filter(Self.isObservationOrPhoto))
        #expect(cutLines.filter(Self.isObservationOrPhoto).count > 100)
        // Every input record is there once, with the whole file's size, digest and counts; those of
        // the cut tables last, in input order.
        #expect(cutLines.filter(Self.isInput).sorted() == wholeLines.filter(Self.isInput).sorted())
        let tables = inputs.indices.filter { index in ranged.contains(inputs[index]) }
        #expect(cutLines.suffix(tables.count).map { $0.split(separator: ",")[1] } == tables.map { Substring(String($0)) })
        // Whatever the number of workers, the same bytes.
        #expect(try Data(contentsOf: URL(fileURLWithPath: cut.file("records.jsonl")))
            == Data(contentsOf: URL(fileURLWithPath: one.file("records.jsonl"))))
        #expect(try Data(contentsOf: URL(fileURLWithPath: cut.file("rejects.jsonl")))
            == Data(contentsOf: URL(fileURLWithPath: whole.file("rejects.jsonl"))))
        #expect(cutSummary.accepted == wholeSummary.accepted && cutSummary.rejected == wholeSummary.rejected)
        #expect(wholeSummary.rejected > 0)

        // And dedupe gives the same bytes from either.
        for directory in [whole, cut] {
            try Dedupe(options: .init(
                input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
                conflicts: directory.file("conflicts.json"))).run()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: cut.file("deduped.jsonl")))
            == Data(contentsOf: URL(fileURLWithPath: whole.file("deduped.jsonl"))))
    }

    /// fieldpack's own records among the inputs (a leftover `records.jsonl`) are refused whole as
    /// no iNaturalist shape, sharded or not: cut into ranges, their lines were rejections that a
    /// generous threshold let pass, so the run's outcome hung on the shard count.
    @Test func fieldpacksOwnRecordsAmongTheInputsAreRefusedWholeWhateverTheShards() throws {
        let directory = try TemporaryDirectory()
        let source = try directory.write("page.json", page((1...300).map { observationJSON(id: $0) }))
        try Self.ingest([source], rangeBytes: 1 << 30, workers: 1, in: directory)
        let leftover = directory.file("records.jsonl")
        #expect(try lines(leftover).count > 300)
        func refusal(_ run: () throws -> Void) -> String? {
            do { try run() } catch let error as FieldpackError { return error.message } catch { return "\(error)" }
            return nil
        }
        let whole = refusal {
            let out = try TemporaryDirectory()
            var options = INatIngest.Options(inputs: [leftover], output: out.file("records.jsonl"), rejects: out.file("rejects.jsonl"))
            options.maxRejectRate = 1
            try INatIngest(options: options).run()
        }
        #expect(whole?.hasPrefix("valid JSON, but not an iNaturalist shape") == true, "\(whole ?? "no error")")
        let sharded = refusal {
            let out = try TemporaryDirectory()
            try ingestShards(count: 2, base: out.file("inat")) { _ in
                var options = INatIngest.Options(inputs: [leftover], output: out.file("unused.jsonl"), rejects: out.file("unused-rejects.jsonl"))
                options.maxRejectRate = 1
                options.rangeBytes = 4096
                return options
            }
        }
        #expect(sharded == whole)
    }

    @Test func aCutTableOfBlankLinesGivesWhatItGivesReadWhole() throws {
        let directory = try TemporaryDirectory()
        let header = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n"
        let table = try directory.write("observations.csv", header + String(repeating: "\n", count: 2000))
        let observers = try directory.write("observers.csv", "observer_id\tlogin\tname\n7\tkim\tKim Ito\n")
        var runs: [(summary: INatIngest.Summary, records: [String])] = []
        for rangeBytes in [1 << 30, 300] {
            let run = try TemporaryDirectory()
            let summary = try Self.ingest([table, observers], rangeBytes: rangeBytes, workers: 2, in: run)
            #expect((summary.files.count > 2) == (rangeBytes == 300))
            runs.append((summary, try lines(run.file("records.jsonl")).sorted()))
        }
        // A table's blank lines are no records and no findings, cut or whole.
        #expect(runs.map(\.summary.rejected) == [0, 0] && runs.map(\.summary.accepted) == [1, 1])
        #expect(runs.map(\.summary.findingCount) == [0, 0])
        #expect(runs[0].records == runs[1].records)
    }

    /// A taxon's or observer's record is about four times its row, and all are written, so their
    /// tables, once larger than the range size, are cut into ranges eight times finer than the
    /// observations and photos tables (each range's records are held in memory until written).
    @Test func taxaAndObserversTablesAreCutEightTimesFiner() throws {
        let directory = try TemporaryDirectory()
        let inputs = try OpenDataWholeJobTests.writeInputs(in: directory)
        let tables = inputs.filter { $0.hasSuffix(".csv") }
        // Below the smallest table, so that every table is cut.
        let cut = try tables.map { try #require(FileSystem.size($0)) }.min()! / 8 * 8 - 8
        let units = try IngestUnits.plan(inputs: inputs, shards: 1, sharded: false, rangeBytes: 1 << 30, tableRangeBytes: cut)
        var checked = Set<String>()
        for (file, path) in inputs.enumerated() where path.hasSuffix(".csv") {
            let size = try #require(FileSystem.size(path))
            let table = try #require(OpenDataTable.allCases.first { path.hasSuffix("\($0.rawValue).csv") })
            let finer = table == .taxa || table == .observers
            #expect(size > cut, "\(path) is too small to be cut")
            let ranges = units.filter { $0.file == file }
            #expect(ranges.count == (size + (finer ? cut / 8 : cut) - 1) / (finer ? cut / 8 : cut), "\(path)")
            #expect(ranges.allSatisfy { $0.range!.count <= (finer ? cut / 8 : cut) + 1 })
            checked.insert(table.rawValue)
        }
        #expect(checked == Set(OpenDataTable.allCases.map(\.rawValue)))
    }

    @Test func eachRangeIsAChunkAndWholeFilesGoInRuns() {
        let units = [
            IngestUnit(file: 0), IngestUnit(file: 1), IngestUnit(file: 2, range: 0..<10, part: 0), IngestUnit(file: 2, range: 10..<20, part: 1),
            IngestUnit(file: 3), IngestUnit(file: 4), IngestUnit(file: 5),
        ]
        #expect(IngestUnits.chunks(units, filesPerChunk: 2) == [0..<2, 2..<3, 3..<4, 4..<6, 6..<7])
        #expect(IngestUnits.chunks(units, filesPerChunk: 32) == [0..<2, 2..<3, 3..<4, 4..<7])
    }

    @Test func aLineStartCountedFromAnEarlierOneIsTheOneCountedFromTheTop() throws {
        let directory = try TemporaryDirectory()
        var text = ""
        var generator = SortInPlaceTests.SplitMix64(state: 20_261_203)
        for index in 0..<3000 { text += String(repeating: "x", count: Int.random(in: 0..<90, using: &generator)) + "\(index)\n" }
        let path = try directory.write("lines.txt", text)
        let size = text.utf8.count
        // Offsets in a random order, so that some are counted from an earlier start and some not.
        let offsets = (0..<60).map { _ in Int.random(in: 0...size, using: &generator) }
        for offset in offsets {
            let fresh = try ByteRangeLines.lineStart(path: path, atOrAfter: offset, from: (0, 0))
            let cached = try ByteRangeLines.lineStart(path: path, atOrAfter: offset)
            #expect(cached == fresh, "at \(offset)")
            let before = text.utf8.prefix(fresh.offset)
            #expect(before.filter { $0 == 0x0A }.count == fresh.lines)
        }
        // The file rewritten in place (another size) is counted again, not from the old starts.
        let shorter = String(text.dropFirst(500).drop { $0 != "\n" }.dropFirst())
        try shorter.write(toFile: path, atomically: false, encoding: .utf8)
        for offset in offsets where offset < shorter.utf8.count {
            #expect(try ByteRangeLines.lineStart(path: path, atOrAfter: offset) == ByteRangeLines.lineStart(path: path, atOrAfter: offset, from: (0, 0)))
        }
    }
}

