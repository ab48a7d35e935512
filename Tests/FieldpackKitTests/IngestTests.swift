import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct IngestTests {
    private func ingest(_ inputs: [String], in directory: TemporaryDirectory, maxRejectRate: Double = 1) throws -> INatIngest.Summary {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = maxRejectRate
        return try INatIngest(options: options).run()
    }

    private func records(_ directory: TemporaryDirectory, kind: String) throws -> [[String: Any]] {
        try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == kind }
    }

    @Test func realAPIObservationPagesIngestWithTheirPhotoOccurrences() throws {
        let directory = try TemporaryDirectory()
        let inputs = ["get_observations_page1.json", "get_observations_page2.json", "get_observations_by_id.json", "get_observation.json"]
            .map { "\(samplesRoot)/pyinaturalist/v1/\($0)" }
        let summary = try ingest(inputs, in: directory)
        #expect(summary.rejected == 0)
        #expect(summary.accepted == 4)
        let observations = try records(directory, kind: "obs")
        #expect(observations.map { $0["id"] as? Int } == [57754375, 57707611, 16227955, 16227955])
        // Own photos only (not identification taxa): 1 + 1 + 2 + 2 observation photos, and the
        // taxa's default photos, the two copies of 16227955 sharing one identical default photo.
        let photos = try records(directory, kind: "photo")
        #expect(photos.filter { $0["ctx"] as? String == "obs" }.count == 6)
        #expect(photos.filter { $0["ctx"] as? String == "default" }.count == 3)
        // The 2018 copy has string GeoJSON coordinates and a "lat,lng" location; both parse.
        let old = try #require(observations.last)
        #expect(old["lat"] as? Double == 50.646894)
        #expect(old["lng"] as? Double == 4.360086)
        // page2's photo has a null licence.
        let page2Photo = try #require(photos.first { $0["id"] as? Int == 92_075_215 })
        #expect(page2Photo["license"] is NSNull)
    }

    @Test func realTaxaResponsesIngestTaxonPhotosAndDefaultPhotos() throws {
        let directory = try TemporaryDirectory()
        let summary = try ingest(
            ["\(samplesRoot)/pyinaturalist/v1/get_taxa.json", "\(samplesRoot)/pyinaturalist/v1/get_taxa_by_id.json"], in: directory)
        #expect(summary.rejected == 0)
        #expect(summary.accepted == 31)
        let taxa = try records(directory, kind: "taxon")
        // The 30 search results, the by-id taxon, and the 13 ancestors its response gives whole
        // (Life, 48460, it gives by id only): each level's name and common name, for the tree.
        #expect(taxa.count == 44)
        let hexapoda = try #require(taxa.first { $0["id"] as? Int == 372_739 })
        #expect(hexapoda["name"] as? String == "Hexapoda" && hexapoda["preferred_common_name"] as? String == "Hexapods")
        #expect(hexapoda["rank"] as? String == "subphylum" && hexapoda["ancestry"] as? String == "48460/1/47120")
        let byID = try #require(taxa.last { $0["id"] as? Int == 70118 })
        let ancestry = (byID["ancestry"] as? String ?? "").split(separator: "/").compactMap { Int($0) }
        #expect(Set(ancestry.dropFirst()).isSubset(of: Set(taxa.compactMap { $0["id"] as? Int })))
        // 17 of the 30 search results have a default photo; the by-id taxon has one and 5 taxon
        // photos; its ancestors have one each.
        let photos = try records(directory, kind: "photo")
        #expect(photos.filter { $0["ctx"] as? String == "default" }.count == 18 + 13)
        #expect(photos.filter { $0["ctx"] as? String == "taxon" }.count == 5)
        // 70118 is in both files: the search result has no list (null, not empty), the by-id
        // response has 5.
        let copies = taxa.filter { $0["id"] as? Int == 70118 }.map { ($0["photos"] as? [Int])?.count }
        #expect(copies == [nil, 5])
        // preferred_common_name is absent, not null, on most search results: it reads as null.
        #expect(taxa.filter { $0["preferred_common_name"] is NSNull }.count >= 27)
    }

    /// An ancestor embedded in another taxon's response is the lesser copy: a search result of
    /// the same taxon (undated as well) wins dedupe over it, whichever file comes first, rather
    /// than whichever copy's bytes hash higher.
    @Test(arguments: [false, true])
    func aTaxonsOwnCopyOutranksItsCopyAsAnotherTaxonsAncestor(reversed: Bool) throws {
        let directory = try TemporaryDirectory()
        // Eight taxa, each an ancestor in the by-id response and a search result: decided by
        // their bytes, some ancestor copies would win.
        let ids = (0..<8).map { 372_739 + $0 }
        let ancestors = ids.map { #"{"id": \#($0), "name": "Taxon \#($0)", "rank": "order", "rank_level": 40, "ancestry": "48460/1", "preferred_common_name": "Old name \#($0)"}"# }
        let byID = try directory.write("by-id.json", #"{"total_results": 1, "results": [{"id": 70118, "name": "Nicrophorus vespilloides", "rank": "species", "rank_level": 10, "ancestry": "48460/1", "ancestors": ["# + ancestors.joined(separator: ", ") + "]}]}")
        let results = ids.map { #"{"id": \#($0), "name": "Taxon \#($0)", "rank": "order", "rank_level": 40, "ancestry": "48460/1", "preferred_common_name": "New name \#($0)"}"# }
        let search = try directory.write("search.json", #"{"total_results": 8, "results": ["# + results.joined(separator: ", ") + "]}")
        try ingestAndDedupe(reversed ? [search, byID] : [byID, search], in: directory)
        let taxa = try recordLines(directory.file("deduped.jsonl"), deduped: true).filter { $0["k"] as? String == "taxon" }
        for id in ids {
            #expect(taxa.first { $0["id"] as? Int == id }?["preferred_common_name"] as? String == "New name \(id)")
        }
    }

    /// A taxon in a `/v1/taxa` search page and in its `/v1/taxa/{id}` response ships its five
    /// taxon photos linked, whichever input comes first: the search copy said it had an empty
    /// list, and won dedupe (neither copy is dated), so the bundle shipped the photos unlinked.
    @Test(arguments: [false, true])
    func aTaxaSearchResultDoesNotEmptyTheTaxonPhotosOfItsByIDCopy(reversed: Bool) throws {
        let directory = try TemporaryDirectory()
        let inputs = ["\(samplesRoot)/pyinaturalist/v1/get_taxa.json", "\(samplesRoot)/pyinaturalist/v1/get_taxa_by_id.json"]
        var policy = try samplePolicy()
        policy.licenses = Set(License.allCases)
        let bundle = try buildBundle(inputs: reversed ? inputs.reversed() : inputs, in: directory, policy: policy)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
        #expect(try database.int("SELECT count(*) FROM taxon_photos WHERE taxon_id = 70118") == 5)
        // No photo was left with nothing to reach it (the bundle would count it as unlinked).
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("costs-report.json")))) as! [String: Any]
        let excluded = try #require(report["excluded"] as? [String: Int], "\(report)")
        #expect(excluded["unlinked"] == nil, "\(excluded)")
    }

    @Test func reSerialisedObservationWithNullTaxonAndNoCoordinatesIngests() throws {
        let directory = try TemporaryDirectory()
        let summary = try ingest(["\(samplesRoot)/pyinaturalist-convert/observations_without_coords.json"], in: directory)
        #expect(summary.rejected == 0)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["taxon"] is NSNull)
        #expect(observation["lat"] is NSNull)
        #expect(try records(directory, kind: "taxon").isEmpty)
    }

    @Test func sampleDataIngestsWithItsMalformedRecordAndTruncatedFileReported() throws {
        let directory = try TemporaryDirectory()
        let inputs = try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/sample-data/inat")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(repositoryRoot)/sample-data/inat/\($0)" }
        let summary = try ingest(inputs, in: directory)
        #expect(summary.accepted == 26)
        #expect(summary.rejected == 2)
        #expect(summary.salvaged == 3)
        let rejects = try jsonLines(directory.file("rejects.jsonl"))
        let malformed = try #require(rejects.first { ($0["file"] as? String)?.hasSuffix("updates.jsonl.gz") == true })
        #expect(malformed["line"] as? Int == 4)
        #expect((malformed["reason"] as? String)?.contains("id is a string") == true)
        let truncated = try #require(rejects.first { ($0["file"] as? String)?.hasSuffix("observations-page-3.json") == true })
        #expect(truncated["record"] as? String == "results[2]")
        #expect((truncated["reason"] as? String)?.contains("kept the 2 complete records before it") == true)
    }

    @Test(arguments: [
        (#"{"id":"12","quality_grade":"research"}"#, "id is a string, expected an integer id"),
        (#"{"quality_grade":"research"}"#, "id is missing"),
        (#"{"id":1.5,"quality_grade":"research"}"#, "id is a non-integer number"),
        // A taxa-endpoint taxon named nothing the app could show, as the export's taxa rows.
        (#"{"id":7,"name":"None","rank":"species"}"#, #"name "None" is no usable name (empty, blank or None)"#),
        (#"{"id":7,"name":" ","rank":"species"}"#, #"name " " is no usable name (empty, blank or None)"#),
    ])
    func aRecordWithoutAUsableIdIsRejectedWithItsLineAndReasonAndTheRestGoesOn(record: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("dump.jsonl", [observationJSON(id: 1), record, observationJSON(id: 2)].joined(separator: "\n") + "\n")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 2)
        #expect(summary.rejected == 1)
        #expect(summary.salvaged == 0)
        let reject = try #require(try jsonLines(directory.file("rejects.jsonl")).first)
        #expect(reject["line"] as? Int == 2)
        #expect(reject["file"] as? String == input)
        #expect(reject["outcome"] as? String == "rejected")
        #expect((reject["reason"] as? String)?.contains(reason) == true, "got \(reject["reason"] ?? "nil")")
        #expect(try records(directory, kind: "obs").map { $0["id"] as? Int } == [1, 2])
    }

    @Test(arguments: [
        (#"{"id":5,"quality_grade":"research","photos":{"id":1}}"#, "photos", "photos is an object, expected an array; dropped photos"),
        (#"{"id":5,"quality_grade":"research","photos":[{"id":"9","url":"x"}]}"#, "photos[0].id",
         "photos[0].id is a string, expected an integer id; dropped photos[0]"),
        (#"{"id":5,"quality_grade":"research","updated_at":"yesterday"}"#, "updated_at",
         "updated_at \"yesterday\" is not an ISO 8601 timestamp; dropped updated_at"),
        (#"{"id":5,"quality_grade":"research","user":{"id":3,"login":7}}"#, "user.login",
         "user.login is an integer, expected a string; dropped user.login"),
        (#"{"id":5,"quality_grade":"research","taxon":{"id":3}}"#, "taxon.name", "taxon.name is missing; dropped taxon"),
        // Newest, such a copy blanked a species' name in the bundle and its search entry.
        (#"{"id":5,"quality_grade":"research","taxon":{"id":3,"name":""}}"#, "taxon.name",
         #"taxon.name "" is no usable name (empty, blank or None); dropped taxon"#),
        (#"{"id":5,"quality_grade":"research","taxon":{"id":3,"name":"None"}}"#, "taxon.name",
         #"taxon.name "None" is no usable name (empty, blank or None); dropped taxon"#),
        (#"{"id":5,"quality_grade":"research","taxon":{"id":3,"name":"  "}}"#, "taxon.name",
         "taxon.name \"\u{a0} \" is no usable name (empty, blank or None); dropped taxon"),
        (#"{"id":5,"user":{"id":3},"photos":[{"id":9,"url":"u","original_dimensions":{"width":"big"}}]}"#,
         "photos[0].original_dimensions.width",
         "photos[0].original_dimensions.width is a string, expected an integer; dropped photos[0].original_dimensions"),
    ])
    func aRecordWithAnUnusablePartIsKeptWithoutItAndThePartIsASalvageFinding(record: String, path: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("dump.jsonl", [observationJSON(id: 1), record, observationJSON(id: 2)].joined(separator: "\n") + "\n")
        let summary = try ingest([input], in: directory, maxRejectRate: 0)
        #expect(summary.accepted == 3)
        #expect(summary.rejected == 0)
        #expect(summary.salvaged == 1)
        let finding = try #require(try jsonLines(directory.file("rejects.jsonl")).first)
        #expect(finding["line"] as? Int == 2)
        #expect(finding["file"] as? String == input)
        #expect(finding["outcome"] as? String == "salvaged")
        #expect(finding["path"] as? String == path)
        #expect(finding["reason"] as? String == reason)
        #expect(try records(directory, kind: "obs").map { $0["id"] as? Int } == [1, 5, 2])
    }

    @Test func formatIsDetectedByContentNotByName() throws {
        let directory = try TemporaryDirectory()
        let lines = try directory.write("page.json", observationJSON(id: 1) + "\n" + observationJSON(id: 2) + "\n")
        let pageFile = try directory.write("lines.jsonl", page([observationJSON(id: 3), observationJSON(id: 4)]))
        let single = try directory.write("one.txt", observationJSON(id: 5))
        let gzipped = try directory.writeGzip("plain.json", page([observationJSON(id: 6)]))
        let summary = try ingest([lines, pageFile, single, gzipped], in: directory)
        #expect(summary.files.map(\.format) == ["json-lines", "document", "document", "gzip+document"])
        #expect(try records(directory, kind: "obs").map { $0["id"] as? Int } == [1, 2, 3, 4, 5, 6])
    }

    @Test func truncatedGzipKeepsEveryCompleteRecordBeforeTheDamage() throws {
        let directory = try TemporaryDirectory()
        let body = (1...400).map { observationJSON(id: $0, extra: ",\"note\":\"\(String(repeating: "x", count: $0 % 97))\"") }
            .joined(separator: "\n") + "\n"
        let whole = try directory.writeGzip("whole.jsonl.gz", body)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = directory.file("cut.jsonl.gz")
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        let summary = try ingest([cut], in: directory)
        let kept = try records(directory, kind: "obs").compactMap { $0["id"] as? Int }
        #expect(kept.count > 100 && kept.count < 400)
        #expect(kept == Array(1...kept.count))
        #expect(summary.findings.contains { $0.reason.contains("gzip stream is truncated") })
    }

    @Test func rejectRateOverTheThresholdFailsAndPublishesNoRecords() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("dump.jsonl", [observationJSON(id: 1), observationJSON(id: "x")].joined(separator: "\n"))
        #expect(throws: FieldpackError.self) { try ingest([input], in: directory, maxRejectRate: 0.01) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
        #expect(try jsonLines(directory.file("rejects.jsonl")).count == 1)
    }

    @Test func outputIsIdenticalWhateverTheWorkerCount() throws {
        let directory = try TemporaryDirectory()
        let inputs = try (1...6).map { index in
            try directory.write("p\(index).json", page((1...5).map { observationJSON(id: index * 10 + $0, photos: [(index * 100 + $0, "cc-by", 800)]) }))
        }
        var one = INatIngest.Options(inputs: inputs, output: directory.file("one.jsonl"), rejects: directory.file("r1.jsonl"))
        one.workers = 1
        one.filesPerChunk = 2
        var two = INatIngest.Options(inputs: inputs, output: directory.file("two.jsonl"), rejects: directory.file("r2.jsonl"))
        two.workers = 2
        two.filesPerChunk = 2
        try INatIngest(options: one).run()
        try INatIngest(options: two).run()
        #expect(try text(directory.file("one.jsonl")) == text(directory.file("two.jsonl")))
    }

    @Test func repeatedTaxaAndUsersCollapseWithinAChunkButEveryVariantSurvives() throws {
        let directory = try TemporaryDirectory()
        let same = (1...4).map { observationJSON(id: $0, updatedAt: "2024-05-0\($0)T10:00:00Z", user: 7) }
        // A fifth observation carries a renamed copy of the same taxon: a variant, kept.
        let renamed = observationJSON(id: 5, user: 7).replacingOccurrences(of: "Danaus plexippus", with: "Danaus erippus")
        let input = try directory.write("p.json", page(same + [renamed]))
        _ = try ingest([input], in: directory)
        let taxa = try records(directory, kind: "taxon")
        #expect(taxa.map { $0["name"] as? String } == ["Danaus plexippus", "Danaus erippus"])
        // Of the identical copies, the newest is the one kept.
        #expect(taxa[0]["seen"] as? Int == Int(Timestamp.parse("2024-05-04T10:00:00Z")!))
        #expect(try records(directory, kind: "user").count == 1)
        #expect(try records(directory, kind: "obs").count == 5)
    }

    @Test func depfileNamesEveryInputAndFolder() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("in/a.json", page([observationJSON(id: 1)]))
        var options = INatIngest.Options(inputs: [input], output: directory.file("out/records.jsonl"), rejects: directory.file("out/rejects.jsonl"))
        options.depfile = directory.file("out/records.d")
        options.watchedFolders = [directory.file("in")]
        try INatIngest(options: options).run()
        let depfile = try depfileRules(directory.file("out/records.d"))
        #expect(depfile.rules == "\(directory.file("out/records.jsonl")): \\\n  \(input)\n\(input):\n")
        // The folder by the names a walk reads in it (`Depfile.Identities`), not in the rule.
        #expect(depfile.identified == [input, directory.file("in")])
    }
}
