import FieldpackKit
import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

/// The benchmark's damaged dumps (`fieldpack-synth --damage`): what they hold is what ingest
/// reports, so the benchmark's peers are judged on the same damage.
@Suite struct SyntheticDamageTests {
    func damagedDump(_ directory: TemporaryDirectory, observations: Int = 2000, workers: Int = 2) throws -> SyntheticDump.Summary {
        var options = SyntheticDump.Options(observations: observations, seed: 5, output: directory.file("dump"))
        options.damage = true
        options.workers = workers
        return try SyntheticDump(options: options).run()
    }

    func ingest(_ inputs: [String], in directory: TemporaryDirectory, name: String) throws -> (INatIngest.Summary, [[String: Any]]) {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("\(name).jsonl"), rejects: directory.file("\(name)-rejects.jsonl"))
        options.maxRejectRate = 0.05
        let summary = try INatIngest(options: options).run()
        return (summary, try jsonLines(directory.file("\(name)-rejects.jsonl")))
    }

    @Test func ingestRejectsExactlyTheNonNumericIdsAndTheCutRecordAndSalvagesTheWrongTypedParts() throws {
        let directory = try TemporaryDirectory()
        let summary = try damagedDump(directory)
        let damage = try #require(summary.damage)
        #expect(damage.truncatedPage != nil && damage.cut == 1)
        #expect(damage.nonNumericIDs > 0 && damage.photosNotAList > 0 && damage.stringDimensions > 0)
        let inputs = try Pipeline.resolve([directory.file("dump")], pipelinePath: "test").files
        let (ingested, findings) = try ingest(inputs, in: directory, name: "records")
        #expect(ingested.rejected == damage.nonNumericIDs + damage.cut)
        #expect(ingested.accepted + ingested.rejected == summary.records)
        let reasons = findings.compactMap { $0["reason"] as? String }
        #expect(reasons.filter { $0.hasPrefix("photos is a string") }.count == damage.photosNotAList)
        #expect(reasons.filter { $0.contains("original_dimensions is a string") }.count == damage.stringDimensions)
        #expect(reasons.filter { $0.contains("id is a string") }.count == damage.nonNumericIDs)
    }

    @Test func theSalvageablePageHoldsWhatIngestKeepsOfTheTruncatedPage() throws {
        let directory = try TemporaryDirectory()
        let damage = try #require(try damagedDump(directory).damage)
        let page = directory.file("dump/\(try #require(damage.truncatedPage))")
        let salvage = directory.file("dump/\(SyntheticDump.damageFolder)/salvageable-\(try #require(damage.truncatedPage))")
        let (truncated, findings) = try ingest([page], in: directory, name: "truncated")
        let (complete, _) = try ingest([salvage], in: directory, name: "salvage")
        #expect(truncated.accepted + truncated.rejected == damage.salvageable + damage.cut)
        #expect(truncated.accepted == complete.accepted)
        #expect(findings.contains { ($0["reason"] as? String)?.contains("truncated") == true })
        #expect(try Data(contentsOf: URL(fileURLWithPath: salvage)).count < Data(contentsOf: URL(fileURLWithPath: page)).count)
    }

    @Test func aDamagedDumpIsTheSameWhateverTheWorkerCount() throws {
        let one = try TemporaryDirectory()
        let two = try TemporaryDirectory()
        let first = try damagedDump(one, observations: 900, workers: 1)
        let second = try damagedDump(two, observations: 900, workers: 2)
        #expect(first.damage == second.damage)
        let names = try FileManager.default.contentsOfDirectory(atPath: one.file("dump")).sorted()
        #expect(names == (try FileManager.default.contentsOfDirectory(atPath: two.file("dump")).sorted()))
        for name in names where name.hasSuffix(".json") || name.hasSuffix(".txt") {
            #expect(try Data(contentsOf: URL(fileURLWithPath: one.file("dump/\(name)")))
                == Data(contentsOf: URL(fileURLWithPath: two.file("dump/\(name)"))))
        }
    }

    @Test func aCleanDumpHasNoDamageAndItsMarkerDiffersFromADamagedOnes() throws {
        let directory = try TemporaryDirectory()
        let clean = SyntheticDump(options: .init(observations: 900, seed: 5, output: directory.file("dump")))
        #expect(try clean.run().damage == nil)
        #expect(!FileSystem.exists(directory.file("dump/\(SyntheticDump.damageFolder)/salvageable-page-000002.json")))
        var options = clean.options
        options.damage = true
        let damaged = SyntheticDump(options: options)
        #expect(!damaged.isComplete)
        #expect(damaged.markerText != clean.markerText)
    }

    @Test func theWikiDumpsLargeTailAddsArticlesOfSeveralMegabytes() throws {
        let directory = try TemporaryDirectory()
        func largest(_ name: String, largeTail: Bool) throws -> Int {
            var options = SyntheticWiki.Options(articles: 120, seed: 2, output: directory.file(name))
            options.largeTail = largeTail
            _ = try SyntheticWiki(options: options).run()
            return try lines(directory.file("\(name)/articles.ndjson")).map(\.utf8.count).max() ?? 0
        }
        #expect(try largest("plain", largeTail: false) < 1_300_000)
        #expect(try largest("tail", largeTail: true) > 1_200_000)
    }
}
