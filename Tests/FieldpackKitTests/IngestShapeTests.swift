import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The document shapes ingest reads, detected by content in files of any extension (README,
/// "Input formats"): API pages, bare arrays (Rails-era dumps), single records, species counts.
/// Small constructed inputs, one test per shape.
@Suite struct IngestShapeTests {
    @discardableResult
    private func ingest(_ inputs: [String], in directory: TemporaryDirectory) throws -> INatIngest.Summary {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        return try INatIngest(options: options).run()
    }

    private func records(_ directory: TemporaryDirectory, kind: String, _ name: String = "records.jsonl") throws -> [[String: Any]] {
        try recordLines(directory.file(name), deduped: name != "records.jsonl").filter { $0["k"] as? String == kind }
    }

    private func ids(_ records: [[String: Any]]) -> [Int] { records.compactMap { $0["id"] as? Int } }

    static let taxon = #"{"id":47219,"name":"Apis mellifera","rank":"species","rank_level":10,"ancestry":"48460/1/47120/372739"}"#

    // MARK: Bare arrays (Rails-era JSON)

    @Test func aBareArrayOfObservationsIsReadLikeAPage() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("observations.json", "[\n\(observationJSON(id: 11)),\n\(observationJSON(id: 12))\n]\n")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 0)
        #expect(ids(try records(directory, kind: "obs")) == [11, 12])
        #expect(summary.files.map(\.format) == ["document"])
    }

    @Test func aBadElementOfABareArrayIsNamedByItsIndexAndLine() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("observations.json", "[\n\(observationJSON(id: 11)),\n\(observationJSON(id: "eleven"))\n]\n")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 1)
        let finding = try #require(summary.findings.first)
        #expect(finding.record == "[1]")
        #expect(finding.line == 3)
        #expect(finding.reason == "id is a string, expected an integer id")
    }

    @Test func aTruncatedBareArrayKeepsTheRecordsBeforeTheDamage() throws {
        let directory = try TemporaryDirectory()
        let whole = "[\n\(observationJSON(id: 11)),\n\(observationJSON(id: 12))\n]\n"
        let input = try directory.write("observations.json", String(whole.prefix(whole.count - 40)))
        let summary = try ingest([input], in: directory)
        #expect(ids(try records(directory, kind: "obs")) == [11])
        let finding = try #require(summary.findings.last)
        #expect(finding.record == "[1]")
        #expect(finding.reason.hasPrefix("the document is truncated or corrupt after [0]"))
    }

    // MARK: Single records, any extension

    @Test(arguments: ["taxon.json", "taxon.txt", "taxon"])
    func aSingleTaxonObjectIsReadFromAFileOfAnyName(name: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write(name, Self.taxon + "\n")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        let taxa = try records(directory, kind: "taxon")
        #expect(ids(taxa) == [47219])
        #expect(taxa.first?["ancestry"] as? String == "48460/1/47120/372739")
    }

    @Test(arguments: ["observation.json", "observation.txt", "observation"])
    func aSingleObservationObjectIsReadFromAFileOfAnyName(name: String) throws {
        let directory = try TemporaryDirectory()
        // A v0 (Rails) observation: no envelope, user_login beside the id fields.
        let input = try directory.write(name, #"{"id":5,"observed_on":"2012-05-01","quality_grade":"research","user_login":"kestrel","taxon_id":47219}"#)
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        #expect(ids(try records(directory, kind: "obs")) == [5])
    }

    @Test(arguments: ["page.txt", "page"])
    func aPageAndJSONLinesAreReadByContentWhateverTheExtension(name: String) throws {
        let directory = try TemporaryDirectory()
        let pageInput = try directory.write("a-" + name, page([observationJSON(id: 21)]))
        let linesInput = try directory.write("b-" + name, observationJSON(id: 22) + "\n" + observationJSON(id: 23) + "\n")
        let summary = try ingest([pageInput, linesInput], in: directory)
        #expect(summary.files.map(\.format) == ["document", "json-lines"])
        #expect(ids(try records(directory, kind: "obs")) == [21, 22, 23])
    }

    @Test func aByteOrderMarkBeforeAPageOrJSONLinesIsSkipped() throws {
        let directory = try TemporaryDirectory()
        let pageInput = try directory.write("page.json", "\u{FEFF}" + page([observationJSON(id: 31)]))
        let linesInput = try directory.write("lines.jsonl", "\u{FEFF}" + observationJSON(id: 32) + "\n" + observationJSON(id: 33) + "\n")
        let summary = try ingest([pageInput, linesInput], in: directory)
        #expect(summary.rejected == 0)
        #expect(ids(try records(directory, kind: "obs")) == [31, 32, 33])
    }

    // MARK: Species counts

    static func speciesCountsPage(_ entries: [(taxon: Int, count: Int)]) -> String {
        let results = entries.map { entry in
            """
            {"count":\(entry.count),"taxon":{"id":\(entry.taxon),"name":"Taxon \(entry.taxon)","rank":"species","rank_level":10,\
            "iconic_taxon_name":"Aves","preferred_common_name":"Bird \(entry.taxon)","is_active":true,\
            "default_photo":{"id":\(entry.taxon + 900000),"license_code":"cc-by","attribution":"(c) someone, some rights reserved (CC BY)",\
            "url":"https://inaturalist-open-data.s3.amazonaws.com/photos/\(entry.taxon + 900000)/square.jpg",\
            "square_url":"https://inaturalist-open-data.s3.amazonaws.com/photos/\(entry.taxon + 900000)/square.jpg",\
            "medium_url":"https://inaturalist-open-data.s3.amazonaws.com/photos/\(entry.taxon + 900000)/medium.jpg",\
            "original_dimensions":{"width":2048,"height":1536}}}}
            """
        }
        return "{\"total_results\":\(entries.count),\"page\":1,\"per_page\":500,\"results\":[\n\(results.joined(separator: ",\n"))\n]}\n"
    }

    @Test func aSpeciesCountsPageContributesTaxaWithTheirCountsAndPhotos() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("species_counts", Self.speciesCountsPage([(3017, 12), (12727, 3)]))
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 0)
        let taxa = try records(directory, kind: "taxon")
        #expect(ids(taxa) == [3017, 12727])
        #expect(taxa.map { $0["species_count"] as? Int } == [12, 3])
        #expect(taxa.map { $0["from"] as? String } == ["counts", "counts"])
        #expect(taxa.map { $0["default_photo"] as? Int } == [903017, 912727])
        // A species count lists no taxon photos: it must not stand in for a taxa-endpoint copy.
        #expect(taxa.allSatisfy { $0["photos"] is NSNull })
        #expect(ids(try records(directory, kind: "photo")) == [903017, 912727])
    }

    @Test(arguments: [
        (#"{"count":"many","taxon":{"id":1,"name":"A"}}"#, "count is a string, expected an integer"),
        (#"{"count":-2,"taxon":{"id":1,"name":"A"}}"#, "count is -2, expected a count of 0 or more"),
        (#"{"count":4,"taxon":null}"#, "taxon is missing"),
        (#"{"count":4,"taxon":{"name":"A"}}"#, "taxon.id is missing"),
        // Without its count: its reason was "neither an observation nor a taxon".
        (#"{"taxon":{"id":1,"name":"A","rank":"species"}}"#,
         "record has a taxon and no id of its own, as a species count has, but no count: rejected as a species count without its count"),
        (#"{"count":null,"taxon":{"id":1,"name":"A"}}"#, "count is missing"),
    ])
    func aSpeciesCountWithoutAUsableCountOrTaxonIsRejected(element: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("counts.json", "{\"results\":[\n\(Self.speciesCountsPage([(5, 1)]).split(separator: "\n")[1]),\n\(element)\n]}")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 1)
        #expect(summary.findings.map(\.reason) == [reason])
        #expect(summary.findings.first?.record == "results[1]")
    }

    @Test func aTaxonsSpeciesCountIsTheLargestOfItsPagesWhateverTheirOrder() throws {
        let folder = try TemporaryDirectory()
        let inputs = [
            try folder.write("place-a.json", Self.speciesCountsPage([(3017, 12), (12727, 3)])),
            try folder.write("place-b.json", Self.speciesCountsPage([(3017, 30)])),
            // The same page again (an overlapping download): counted once, not added.
            try folder.write("place-a-again.json", Self.speciesCountsPage([(12727, 3)])),
            // A newer copy of the taxon inside an observation wins the record, not the count.
            try folder.write("observations.json", page([observationJSON(id: 1, taxon: 12727)])),
        ]
        var outputs: [Data] = []
        for order in [[0, 1, 2, 3], [3, 2, 1, 0]] {
            let directory = try TemporaryDirectory()
            try ingestAndDedupe(order.map { inputs[$0] }, in: directory)
            let taxa = try records(directory, kind: "taxon", "deduped.jsonl")
            #expect(ids(taxa) == [3017, 12727])
            #expect(taxa.map { $0["species_count"] as? Int } == [30, 3])
            #expect(taxa.map { $0["from"] as? String } == ["counts", "obs"])
            outputs.append(try Data(contentsOf: URL(fileURLWithPath: directory.file("deduped.jsonl"))))
        }
        #expect(outputs[0] == outputs[1])
    }

    @Test func theSpeciesCountReachesTheBundle() throws {
        let directory = try TemporaryDirectory()
        let inputs = [
            try directory.write("counts.json", Self.speciesCountsPage([(3017, 12)])),
            try directory.write("observations.json", page([observationJSON(id: 1, taxon: 48662)])),
        ]
        try buildBundle(inputs: inputs, in: directory)
        let database = try Database(path: directory.file("content.sqlite"))
        #expect(try database.rows("SELECT id, species_count FROM taxa ORDER BY id") == [["3017", "12"], ["48662", nil]])
    }
}
