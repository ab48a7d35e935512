import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Issue 15's input items (5, 6, 7, 8, 9, 16, 19) and issue 14's "command lines that behave":
/// damage is never taken for an end, a file that yields nothing is a rejected file, a gzip member
/// whose check fails loses its records, findings are streamed, and messages say what happened.
@Suite struct InputHardeningTests {
    private typealias H = WikiHarness

    private func ingest(_ inputs: [String], in directory: TemporaryDirectory, maxRejectRate: Double = 1) throws -> INatIngest.Summary {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = maxRejectRate
        return try INatIngest(options: options).run()
    }

    private func observationLines(_ ids: ClosedRange<Int>) -> String {
        ids.map { observationJSON(id: $0) + "\n" }.joined()
    }

    /// Flips one byte of the CRC-32 in the trailer of the gzip member that ends at `end`.
    private func breakCRC(_ path: String, memberEnd end: Int) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[end - 8] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
    }

    // MARK: Item 5: a file that yields nothing is a rejected file

    @Test(arguments: ["empty", "garbage gzip", "blank"])
    func aFileThatYieldsNothingIsARejectedFileAndARunThatAcceptsNothingFails(kind: String) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("in.json.gz")
        switch kind {
        case "empty": try Data().write(to: URL(fileURLWithPath: path))
        case "blank": try Data("  \n\n".utf8).write(to: URL(fileURLWithPath: path))
        default:
            // A gzip header, then noise that is no deflate stream.
            var generator = SplitMix(seed: 5)
            let noise = (0..<3000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            try Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03] + noise).write(to: URL(fileURLWithPath: path))
        }
        let error = try #require(throws: FieldpackError.self) { try ingest([path], in: directory) }
        #expect(error.message.hasPrefix("no record accepted from 1 input file(s)"), "\(error)")
        let rejects = try jsonLines(directory.file("rejects.jsonl"))
        #expect(rejects.count == 1)
        #expect(rejects.first?["outcome"] as? String == "rejected")
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
        // Beside a good file it counts against the threshold: one of two records rejected.
        let good = try directory.write("good.jsonl", observationLines(1...1))
        #expect(throws: FieldpackError.self) { try ingest([good, path], in: directory, maxRejectRate: 0.4) }
        let summary = try ingest([good, path], in: directory, maxRejectRate: 0.5)
        #expect(summary.accepted == 1 && summary.rejected == 1)
    }

    @Test func aPageOfNoRecordsIsNotARejectedFile() throws {
        let directory = try TemporaryDirectory()
        let last = try directory.write("page-9.json", #"{"total_results":2,"page":9,"per_page":1,"results":[]}"#)
        let good = try directory.write("good.jsonl", observationLines(1...1))
        let summary = try ingest([good, last], in: directory, maxRejectRate: 0)
        #expect(summary.rejected == 0)
        #expect(summary.findings.map(\.outcome) == [.notice])
    }

    // MARK: Item 6: a gzip member whose CRC fails loses its records

    @Test func aGzipMemberWhoseCRCFailsHasItsRecordsRejectedAndTheOtherMembersKept() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.writeGzip("a.gz", observationLines(1...3))
        let second = try directory.writeGzip("b.gz", observationLines(4...5))
        let firstSize = try Data(contentsOf: URL(fileURLWithPath: first)).count
        let path = directory.file("two-members.jsonl.gz")
        let joined = try Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second))
        try joined.write(to: URL(fileURLWithPath: path))
        try breakCRC(path, memberEnd: firstSize)
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        let summary = try ingest([path], in: directory)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 3)
        let rejected = summary.findings.filter { $0.outcome == .rejected }
        #expect(rejected.map(\.line) == [1, 2, 3])
        #expect(rejected.allSatisfy { $0.reason.contains("fails its CRC-32 check") }, "\(rejected)")
        let ids = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }.map { $0["id"] as? Int }
        #expect(ids == [4, 5])
    }

    /// A byte changed inside the compressed data (not the trailer) inflates to garbage before
    /// the check fails at the member's end: every finding gave a parse error of the garbage
    /// ("results[0]: the document is truncated or corrupt", "not valid JSON") and none said the
    /// CRC failed, the one reason that was true.
    @Test(arguments: [300, 500, 2_000, -1], [false, true])
    func aGzipMemberDamagedInsideSaysItsCheckFailedNotWhatTheGarbageParsedAs(byte: Int, document: Bool) throws {
        let directory = try TemporaryDirectory()
        // Text that does not compress to nothing, as real records' does not.
        var seed: UInt64 = 7
        let lines = (1...200).map { id -> String in
            let words = (0..<40).map { _ -> String in
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                return String(seed >> 40, radix: 36)
            }
            return observationJSON(id: id, extra: ",\"place_guess\":\"\(words.joined(separator: " "))\"")
        }
        // As JSON Lines, and as one page (a document, read whole before the check is known).
        let path = document
            ? try directory.writeGzip("page.json.gz", page(lines)) : try directory.writeGzip("pages.jsonl.gz", lines.joined(separator: "\n") + "\n")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(bytes.count > 4_000)
        bytes[byte < 0 ? bytes.count / 2 : byte] ^= 0x01  // -1: the middle
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        var options = INatIngest.Options(inputs: [path], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        _ = try? INatIngest(options: options).run()
        let reasons = try jsonLines(directory.file("rejects.jsonl")).compactMap { $0["reason"] as? String }.filter { !$0.isEmpty }
        // Named: the check that failed, or where the stream broke (the records before a break
        // are kept, and the one it cuts is rejected as cut); never garbage's parse alone.
        #expect(reasons.contains { $0.contains("fails its") || $0.contains("gzip data is corrupt") }, "\(byte), \(document): \(reasons.prefix(3))")
        if reasons.contains(where: { $0.contains("fails its") }) {
            #expect(reasons.allSatisfy { $0.contains("fails its") }, "\(byte), \(document): \(reasons.prefix(3))")
        }
    }

    /// A page whose text changed inside a gzip member that inflates cleanly (a stored block)
    /// fails only its CRC, at the end: the parse error of the changed text was the finding.
    @Test func aPageWhoseMemberFailsItsCheckIsRejectedForTheCheckNotTheParse() throws {
        let directory = try TemporaryDirectory()
        let original = Array(page([observationJSON(id: 1), observationJSON(id: 2)]).utf8)
        var changed = original
        changed[changed.firstIndex(of: UInt8(ascii: ":"))!] = UInt8(ascii: ";")  // the JSON breaks
        let path = directory.file("page.json.gz")
        try Self.storedGzip(changed, checking: original).write(to: URL(fileURLWithPath: path))
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        var options = INatIngest.Options(inputs: [path], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        _ = try? INatIngest(options: options).run()
        let rejects = try jsonLines(directory.file("rejects.jsonl"))
        let reasons = rejects.compactMap { $0["reason"] as? String }
        #expect(!reasons.isEmpty && reasons.allSatisfy { $0.contains("fails its CRC-32 check") }, "\(reasons)")
        // One rejection for each record the page held, as when it parses: the damage counts
        // against the threshold as the records it cost, not as one.
        #expect(rejects.compactMap { $0["record"] as? String } == ["results[0]", "results[1]"], "\(rejects)")
    }

    /// A gzip member of `data` in stored (uncompressed) blocks, whose trailer holds the CRC-32
    /// and length of `checked`: a member that inflates cleanly and fails its check.
    static func storedGzip(_ data: [UInt8], checking checked: [UInt8]) -> Data {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        var start = 0
        repeat {
            let count = min(65_535, data.count - start)
            let last = start + count == data.count
            out += [last ? 1 : 0, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[start..<start + count]
            start += count
        } while start < data.count
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in checked {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc = ~crc
        for value in [crc, UInt32(truncatingIfNeeded: checked.count)] { out += (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        return Data(out)
    }

    /// A line that starts in a good member and runs into one that fails its check is damaged
    /// too (multi-member gzip such as bgzip splits lines): it was kept when it still parsed.
    @Test func aLineRunningIntoAFailedMemberIsRejectedForItsCheck() throws {
        let directory = try TemporaryDirectory()
        let text = observationLines(1...3)
        let cut = text.utf8.count - 40  // inside the third line
        let first = try directory.writeGzip("a.gz", String(decoding: Array(text.utf8)[..<cut], as: UTF8.self))
        let second = try directory.writeGzip("b.gz", String(decoding: Array(text.utf8)[cut...], as: UTF8.self) + observationLines(4...4))
        let path = directory.file("split.jsonl.gz")
        try (try Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second))).write(to: URL(fileURLWithPath: path))
        try breakCRC(path, memberEnd: try Data(contentsOf: URL(fileURLWithPath: path)).count)
        let summary = try ingest([path], in: directory, maxRejectRate: 1)
        let rejected = summary.findings.filter { $0.outcome == .rejected }
        #expect(rejected.map(\.line) == [3, 4], "\(rejected)")
        #expect(rejected.allSatisfy { $0.reason.contains("fails its CRC-32 check") }, "\(rejected)")
        #expect(summary.accepted == 2)
    }

    /// Two pages in two members, the second failing its check: the first page's records are
    /// kept (one rejection for the whole file lost them), the second's rejected one by one.
    @Test func twoPagesInTwoMembersKeepTheGoodMembersRecords() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.writeGzip("a.gz", page([observationJSON(id: 1), observationJSON(id: 2)]))
        let second = try directory.writeGzip("b.gz", page([observationJSON(id: 3)]))
        let path = directory.file("pages.json.gz")
        try (try Data(contentsOf: URL(fileURLWithPath: first)) + Data(contentsOf: URL(fileURLWithPath: second))).write(to: URL(fileURLWithPath: path))
        try breakCRC(path, memberEnd: try Data(contentsOf: URL(fileURLWithPath: path)).count)
        let summary = try ingest([path], in: directory, maxRejectRate: 1)
        #expect(summary.accepted == 2, "\(summary.findings)")
        #expect(summary.rejected >= 1)
    }

    @Test func aGzipPageWhoseCRCFailsHasEveryRecordRejected() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.writeGzip("page.json.gz", page([observationJSON(id: 1), observationJSON(id: 2)]))
        try breakCRC(path, memberEnd: try Data(contentsOf: URL(fileURLWithPath: path)).count)
        let good = try directory.write("good.jsonl", observationLines(9...9))
        let summary = try ingest([good, path], in: directory, maxRejectRate: 1)
        #expect(summary.accepted == 1 && summary.rejected == 2)
        #expect(summary.findings.filter { $0.outcome == .rejected }.map(\.record) == ["results[0]", "results[1]"], "\(summary.findings)")
    }

    @Test(arguments: [false, true])
    func aWikiDumpWhoseGzipCRCFailsHasItsArticlesRejected(tar: Bool) throws {
        let directory = try TemporaryDirectory()
        let dump = H.line("Great tit", H.parsoid()) + "\n" + H.line("Blue tit", H.parsoid()) + "\n"
        let path: String
        if tar {
            try directory.write("dump/articles.ndjson", dump)
            path = try H.tarGz("dump.tar.gz", of: "dump", files: ["articles.ndjson"], in: directory)
        } else {
            path = try directory.writeGzip("articles.ndjson.gz", dump)
        }
        // Intact, both articles are kept; with a changed CRC, neither is.
        #expect(try H.run([path], wants: H.wants(["Great tit", "Blue tit"]), in: directory).titles == ["Blue tit", "Great tit"])
        try breakCRC(path, memberEnd: try Data(contentsOf: URL(fileURLWithPath: path)).count)
        let output = try H.run([path], wants: H.wants(["Great tit", "Blue tit"]), in: directory)
        #expect(output.titles == [])
        let reasons = output.rejects.compactMap { $0["reason"] as? String }
        #expect(reasons.count == 2, "\(reasons)")
        #expect(reasons.allSatisfy { $0.contains("fails its CRC-32 check") }, "\(reasons)")
    }

    /// A `.tar.gz` in two gzip members (bgzip, or parts joined with `cat`) whose first fails its
    /// check: the tar member it touches is rejected, the next one, wholly in the good gzip
    /// member, kept. Its lines' offsets (counted from its own start) were compared with the
    /// failed range's (counted from the stream's), and its first article was rejected too.
    @Test func aWikiTarGzWhoseFirstGzipMemberFailsKeepsTheTarMembersAfterIt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dump/a.ndjson", H.line("Great tit", H.parsoid()) + "\n" + H.line("Blue tit", H.parsoid()) + "\n")
        try directory.write("dump/b.ndjson", H.line("Coal tit", H.parsoid()) + "\n" + H.line("Marsh tit", H.parsoid()) + "\n")
        let tar = directory.file("dump.tar")
        #expect(try run("/bin/tar", ["-C", directory.file("dump"), "-cf", tar, "a.ndjson", "b.ndjson"]).status == 0)
        // The first gzip member ends inside a.ndjson's data (after its 512-byte header).
        let cut = 512 + 100
        let path = directory.file("dump.tar.gz")
        #expect(try run("/bin/sh", ["-c", "head -c \(cut) '\(tar)' | gzip -n > '\(path).1' && tail -c +\(cut + 1) '\(tar)' | gzip -n > '\(path).2'"]).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: path + ".1"))
        try (first + Data(contentsOf: URL(fileURLWithPath: path + ".2"))).write(to: URL(fileURLWithPath: path))
        let wanted = H.wants(["Great tit", "Blue tit", "Coal tit", "Marsh tit"])
        #expect(try H.run([path], wants: wanted, in: directory).titles == ["Blue tit", "Coal tit", "Great tit", "Marsh tit"])
        try breakCRC(path, memberEnd: first.count)
        let output = try H.run([path], wants: wanted, in: directory)
        #expect(output.titles == ["Coal tit", "Marsh tit"], "\(output.rejects)")
        let reasons = output.rejects.compactMap { $0["reason"] as? String }
        #expect(reasons.count == 2 && reasons.allSatisfy { $0.contains("fails its CRC-32 check") }, "\(reasons)")
    }

    // MARK: Item 7: a truncated wiki .gz keeps every complete line

    @Test func aTruncatedWikiGzipKeepsEveryCompleteLineBeforeTheDamage() throws {
        let directory = try TemporaryDirectory()
        // 3 MiB of lines nobody wants, that do not compress, then the cut.
        var generator = SplitMix(seed: 15)
        var dump = ""
        for index in 0..<3000 {
            let noise = (0..<700).map { _ in String(UnicodeScalar(UInt8(97 + generator.next() % 26))) }.joined()
            dump += H.line("Page \(index)", "<p>\(noise)</p>") + "\n"
        }
        let path = try directory.writeGzip("cut.ndjson.gz", dump)
        let compressed = try Data(contentsOf: URL(fileURLWithPath: path))
        try compressed.prefix(compressed.count - 2000).write(to: URL(fileURLWithPath: path))
        let output = try H.run([path], wants: H.wants(["Nobody"]), in: directory)
        let lines = output.report["lines"] as? Int ?? 0
        // About 2000 compressed bytes are cut: a few lines, never a MiB of them (~1400).
        #expect(lines > 2990, "read \(lines) lines")
        #expect(output.rejects.count == 1)
        // The cut line is rejected (and counted among the lines read).
        #expect(output.rejects.first?["line"] as? Int == lines)
    }

    // MARK: Item 8: findings are streamed, and reading stops once the limit cannot be met

    @Test func manyBadLinesAreStreamedToTheRejectsFileAndReadingStopsOnceTheLimitCannotBeMet() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("bad.jsonl")
        try Data(String(repeating: "{\"id\":\"x\",\"quality_grade\":\"research\"}\n", count: 200_000).utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: FieldpackError.self) { try ingest([path], in: directory, maxRejectRate: 0.01) }
        #expect(error.message.contains("stopped reading \(path) early at line 10001"), "\(error)")
        // 7.8 MB hold at most 975,000 good records: 9,849 rejected ones are past 1% of any total, and
        // reading stops past the floor of 10,000 (a small file's findings are all listed).
        let rejects = try lines(directory.file("rejects.jsonl"))
        #expect(rejects.count == 10_001 + 1)
        #expect(rejects.last?.contains("stopped reading at line 10001") == true)
        // With no limit, every finding is in the file and a bounded sample in memory.
        let summary = try ingest([path, try directory.write("good.jsonl", observationLines(1...1))], in: directory)
        #expect(summary.findingCount == 200_000)
        #expect(summary.findings.count == 1000)
        #expect(try lines(directory.file("rejects.jsonl")).count == 200_000)
    }

    /// Lines that are not JSON at all stop at the threshold too: they were rejected without
    /// being counted against it, so a file of garbage was read to its end, its rejects held in
    /// memory.
    @Test func linesThatAreNotJSONStopReadingOnceTheLimitCannotBeMet() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("garbage.jsonl")
        try Data((observationLines(1...1) + String(repeating: "x y z\n", count: 200_000)).utf8).write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: FieldpackError.self) { try ingest([path], in: directory, maxRejectRate: 0.01) }
        #expect(error.message.contains("stopped reading \(path) early at line 10002"), "\(error)")
        let rejects = try lines(directory.file("rejects.jsonl"))
        #expect(rejects.count == 10_001 + 1)
    }

    // MARK: Item 9: locating findings is linear, and right

    @Test func theLineOfEveryBadElementOfAPageIsTheLineItStartsOn() throws {
        let directory = try TemporaryDirectory()
        let elements = (1...300).map { index in index % 3 == 0 ? "{\"id\":\"bad\"}" : observationJSON(id: index) }
        let path = try directory.write("page.json", page(elements))
        let summary = try ingest([path], in: directory)
        let bad = summary.findings.filter { $0.outcome == .rejected }
        #expect(bad.count == 100)
        // page(): the envelope line, then one element per line.
        #expect(bad.map(\.line) == (1...100).map { Optional($0 * 3 + 1) })
    }

    // MARK: Item 16: line ends and odd starts

    @Test func carriageReturnLineEndsAreLineEnds() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("old-mac.jsonl", observationLines(1...3).replacingOccurrences(of: "\n", with: "\r"))
        let summary = try ingest([path], in: directory, maxRejectRate: 0)
        #expect(summary.accepted == 3)
        #expect(summary.files.first?.format == "json-lines")
    }

    @Test func aWikiFileThatLibarchiveReadsAsAnEmptyArchiveIsAFinding() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("nul.ndjson.gz")
        try Data(repeating: 0, count: 10240).write(to: URL(fileURLWithPath: path))
        let output = try H.run([path], wants: H.wants(["Great tit"]), in: directory)
        #expect(output.rejects.count == 1, "\(output.rejects)")
        #expect(output.rejects.first?["kind"] as? String == "rejected")
    }

    // MARK: Item 19: messages

    @Test func anIdOfTwoToTheSixtyThreeSaysItIsTooLarge() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("big.jsonl", observationLines(1...1) + observationJSON(id: 1).replacingOccurrences(of: "\"id\":1,", with: "\"id\":9223372036854775808,") + "\n")
        let summary = try ingest([path], in: directory)
        #expect(summary.findings.map(\.reason) == ["id is an integer over 2^63 - 1, too large for an integer id"])
    }

    @Test func aPageBrokenBeforeItsFirstRecordSaysSoAndARejectedRecordIsNotCalledKept() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.jsonl", observationLines(9...9))
        let before = try directory.write("before.json", "{\"results\":[{\"id\":1,")
        let summary = try ingest([good, before], in: directory)
        let reason = try #require(summary.findings.last?.reason)
        #expect(reason.hasPrefix("the document is truncated or corrupt before its first record"), "\(reason)")
        #expect(!reason.contains("[-1]"))
        let mixed = try directory.write("mixed.json", "{\"results\":[{\"id\":\"x\"},\n" + observationJSON(id: 2) + ",\n{\"id\":")
        let reasons = try ingest([good, mixed], in: directory).findings.map(\.reason)
        #expect(reasons.last?.hasSuffix("of the 2 complete records before it 1 kept, 1 rejected") == true, "\(reasons)")
    }

    @Test func aDuplicateKeyKeepsItsFirstValueWithAFinding() throws {
        let directory = try TemporaryDirectory()
        let line = observationJSON(id: 1, quality: "casual", extra: #","quality_grade":"research""#)
        let path = try directory.write("dup.jsonl", line + "\n")
        let summary = try ingest([path], in: directory, maxRejectRate: 0)
        #expect(summary.accepted == 1)
        let finding = try #require(summary.findings.first)
        #expect(finding.outcome == .salvaged)
        #expect(finding.reason == "quality_grade appears 2 times in the record: the first value is kept")
        #expect(finding.field == "quality_grade")
        let observation = try #require(try recordLines(directory.file("records.jsonl")).first { $0["k"] as? String == "obs" })
        #expect(observation["quality_grade"] as? String == "casual")
    }

    /// The same rule at every depth: a key repeated inside a photo, a taxon or a user keeps its
    /// first value, with a salvage finding naming its path; the record and its parts are kept.
    @Test func aDuplicateKeyInsideAPhotoOrATaxonKeepsItsFirstValueWithAFindingNamingItsPath() throws {
        let directory = try TemporaryDirectory()
        let line = observationJSON(id: 1, photos: [(70, "cc-by", 800)])
            .replacingOccurrences(of: #""name":"Danaus plexippus","#, with: #""name":"Danaus plexippus","name":"Wrong name","#)
            .replacingOccurrences(of: #""license_code":"cc-by","#, with: #""license_code":"cc-by","license_code":"cc0","license_code":"pd","#)
            .replacingOccurrences(of: #""login":"user7""#, with: #""login":"user7","login":"other""#)
        let path = try directory.write("dup.jsonl", line + "\n")
        let summary = try ingest([path], in: directory, maxRejectRate: 0)
        #expect(summary.accepted == 1)
        #expect(summary.findings.allSatisfy { $0.outcome == .salvaged })
        #expect(summary.findings.map(\.field) == ["taxon.name", "user.login", "photos[0].license_code", "observation_photos[0].photo.license_code"])
        #expect(summary.findings.map(\.reason) == [
            "taxon.name appears 2 times in the record: the first value is kept",
            "user.login appears 2 times in the record: the first value is kept",
            "photos[0].license_code appears 3 times in the record: the first value is kept",
            "observation_photos[0].photo.license_code appears 3 times in the record: the first value is kept",
        ])
        let records = try recordLines(directory.file("records.jsonl"))
        #expect(records.first { $0["k"] as? String == "taxon" }?["name"] as? String == "Danaus plexippus")
        #expect(records.first { $0["k"] as? String == "user" }?["login"] as? String == "user7")
        #expect(records.first { $0["k"] as? String == "photo" }?["license"] as? String == "cc-by")
    }

    @Test func keysRepeatedInDifferentObjectsAreNoDuplicates() throws {
        let directory = try TemporaryDirectory()
        // Every photo has an id, and so do the taxon, the user and the record: no finding.
        let line = observationJSON(id: 1, photos: [(70, "cc-by", 800), (71, "cc0", 640)])
        let summary = try ingest([try directory.write("ok.jsonl", line + "\n")], in: directory, maxRejectRate: 0)
        #expect(summary.accepted == 1)
        #expect(summary.findings.isEmpty, "\(summary.findings.map(\.reason))")
    }

    // MARK: Issue 14: a folder, an empty input, a read error

    @Test func aFolderWhereAFileIsExpectedIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("folder"), withIntermediateDirectories: true)
        let error = try #require(throws: FieldpackError.self) { try ReadableFile(path: directory.file("folder")) }
        #expect(error.description == "\(directory.file("folder")): error: is a folder, expected a file")
        let dedupe = try #require(throws: FieldpackError.self) {
            try Dedupe(options: .init(input: directory.file("folder"), output: directory.file("o.jsonl"), conflicts: directory.file("c.json"))).run()
        }
        #expect(dedupe.path == directory.file("folder"))
    }

    @Test func anEmptyRecordsFileIsAnErrorForDedupeAndTheBundle() throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write("records.jsonl", "")
        let dedupe = try #require(throws: FieldpackError.self) {
            try Dedupe(options: .init(input: empty, output: directory.file("o.jsonl"), conflicts: directory.file("c.json"))).run()
        }
        #expect(dedupe.path == empty)
        #expect(dedupe.message.contains("empty"))
        let bundle = try #require(throws: FieldpackError.self) {
            try BundleBuilder(options: .init(input: empty, output: directory.file("c.sqlite"), pipelineName: "t", policy: try samplePolicy())).run()
        }
        #expect(bundle.path == empty)
        #expect(bundle.message.contains("empty"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("c.sqlite")))
    }

    @Test func aReadErrorPartWayThroughIsAnErrorNeverAnEnd() throws {
        let reader = LineReader(source: FailingSource(good: "line one\nline two\npart"))
        #expect(try reader.next().map { String(decoding: $0.bytes, as: UTF8.self) } == "line one")
        #expect(try reader.next().map { String(decoding: $0.bytes, as: UTF8.self) } == "line two")
        let error = try #require(throws: FieldpackError.self) { _ = try reader.next() }
        #expect(error.message == "read failed: Input/output error")
        #expect(reader.damage == nil)
    }
}

/// A source that returns `good`, then fails the way a disk does (EIO).
private final class FailingSource: ByteSource {
    private var good: [UInt8]

    init(good: String) { self.good = Array(good.utf8) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if good.isEmpty { throw FieldpackError(path: "disk.jsonl", "read failed: Input/output error") }
        let count = min(buffer.count, good.count)
        buffer.copyBytes(from: good[0..<count])
        good.removeFirst(count)
        return count
    }
}


extension InputHardeningTests {
    @Test(arguments: [false, true])
    func aByteOrderMarkBeforeAWikiDumpsFirstLineOrDocumentIsSkipped(document: Bool) throws {
        let directory = try TemporaryDirectory()
        let body = document ? "[" + H.line("Great tit", H.parsoid()) + "]" : H.line("Great tit", H.parsoid()) + "\n"
        let path = directory.file("bom.ndjson")
        try Data([0xEF, 0xBB, 0xBF] + Array(body.utf8)).write(to: URL(fileURLWithPath: path))
        let output = try H.run([path], wants: H.wants(["Great tit"]), in: directory, maxRejectRate: 0)
        #expect(output.titles == ["Great tit"])
        #expect(output.rejects.isEmpty)
    }
}
