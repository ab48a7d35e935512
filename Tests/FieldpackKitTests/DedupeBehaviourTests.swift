import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The dedupe stage's documented rules (README, "Dedupe rules" and the records files), one test
/// each, on small constructed inputs with expected values worked out by hand.
@Suite struct DedupeBehaviourTests {
    /// Writes the files (name → content), ingests them in the given order and dedupes them.
    private func dedupe(_ files: [(String, String)], in directory: TemporaryDirectory) throws -> [String: [[String: Any]]] {
        let inputs = try files.map { try directory.write($0.0, $0.1) }
        try ingestAndDedupe(inputs, in: directory)
        return Dictionary(grouping: try recordLines(directory.file("deduped.jsonl"), deduped: true), by: { $0["k"] as! String })
    }

    private func conflicts(_ directory: TemporaryDirectory) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("conflicts.json")))) as! [String: Any]
    }

    private func taxaPage(updatedAt: String?) -> String {
        let stamp = updatedAt.map { ",\"updated_at\":\"\($0)\"" } ?? ""
        return page(["""
            {"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10,"preferred_common_name":"Monarch"\(stamp),\
            "taxon_photos":[{"taxon_id":48662,"photo":{"id":501,"url":"https://x/photos/501/medium.jpg","license_code":"cc-by"}},\
            {"taxon_id":48662,"photo":{"id":502,"url":"https://x/photos/502/medium.jpg","license_code":"cc-by"}}]}
            """])
    }

    @Test(arguments: [false, true])
    func aUserIsAsNewAsTheObservationThatCarriedIt(newerFileFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        // The lower observation id carries the newer copy of user 7.
        let newer = observationJSON(id: 1, updatedAt: "2024-06-01T00:00:00Z").replacingOccurrences(of: "\"login\":\"user7\"", with: "\"login\":\"kestrel_new\"")
        let older = observationJSON(id: 2, updatedAt: "2024-01-01T00:00:00Z").replacingOccurrences(of: "\"login\":\"user7\"", with: "\"login\":\"kestrel_old\"")
        let files = [("new.json", page([newer])), ("old.json", page([older]))]
        let records = try dedupe(newerFileFirst ? files : Array(files.reversed()), in: directory)
        let users = try #require(records["user"])
        #expect(users.map { $0["login"] as? String } == ["kestrel_new"])
    }

    @Test(arguments: [
        (nil, nil), ("2020-01-01T00:00:00Z", nil), ("2025-01-01T00:00:00Z", "Monarch" as String?),
    ] as [(String?, String?)])
    func aTaxaEndpointCopyWinsOnlyWhenItsOwnUpdatedAtIsNewerAndItsTaxonPhotosAreAlwaysKept(updatedAt: String?, commonName: String?) throws {
        let directory = try TemporaryDirectory()
        // The observation (2024-05-01) embeds taxon 48662 without a common name or taxon photos.
        let records = try dedupe([("taxa.json", taxaPage(updatedAt: updatedAt)), ("obs.json", page([observationJSON(id: 1)]))], in: directory)
        let taxa = try #require(records["taxon"])
        #expect(taxa.count == 1)
        if let commonName {
            #expect(taxa[0]["preferred_common_name"] as? String == commonName)
        } else {
            #expect(taxa[0]["preferred_common_name"] is NSNull)
        }
        #expect(taxa[0]["photos"] as? [Int] == [501, 502])
    }

    /// A taxon's default photo embedded in an observation carries no `attribution_name` and
    /// outranks the taxa page's copy, which names who took it: the winner was written with none,
    /// and the bundle excluded the photo with nobody to credit once the observations were read.
    @Test(arguments: [false, true])
    func aPhotosCreditNameComesFromACopyThatGivesOneWhenTheWinnerHasNone(taxaFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let photo = "\"id\":555,\"license_code\":\"cc0\",\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/555/square.jpg\","
            + "\"original_dimensions\":{\"width\":1600,\"height\":1200}"
        let taxa = page(["""
            {"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10,"default_photo":{\(photo)},\
            "taxon_photos":[{"taxon_id":48662,"photo":{\(photo),"type":"LocalPhoto","attribution_name":"Tom Achterberg"}}]}
            """])
        let observation = observationJSON(id: 1001).replacingOccurrences(of: "\"rank_level\":10}", with: "\"rank_level\":10,\"default_photo\":{\(photo)}}")
        let files = [("taxa.json", taxa), ("obs.json", page([observation]))]
        let records = try dedupe(taxaFirst ? files : Array(files.reversed()), in: directory)
        let deduped = try #require(records["photo"]?.first { $0["id"] as? Int == 555 })
        #expect(deduped["attribution_name"] as? String == "Tom Achterberg", "\(deduped)")
    }

    @Test(arguments: [false, true])
    func onATieOfTimeObservationAndContextTheLowerPositionWins(reversed: Bool) throws {
        let directory = try TemporaryDirectory()
        // Two copies of observation 1, equally new: photo 77 at position 0 in one, 1 in the other.
        let first = observationJSON(id: 1, photos: [(77, "cc-by", 1000)])
        let second = observationJSON(id: 1, photos: [(76, "cc0", 1000), (77, "cc-by-sa", 1000)])
        let files = [("a.json", page([first])), ("b.json", page([second]))]
        let records = try dedupe(reversed ? Array(files.reversed()) : files, in: directory)
        let photo = try #require(records["photo"]?.first { $0["id"] as? Int == 77 })
        #expect(photo["pos"] as? Int == 0)
        #expect(photo["license"] as? String == "cc-by")
    }

    @Test func copiesThatTieOnEveryRuleGiveTheSameResultInAnyFileOrder() throws {
        // Observation 1 twice, equally new, its photo 77 at the same position: only the content
        // (here the attribution and the place guess) tells the copies apart.
        let a = observationJSON(id: 1, photos: [(77, "cc-by", 1000)], extra: ",\"place_guess\":\"Kalmthout\"")
        let b = observationJSON(id: 1, photos: [(77, "cc-by", 1000)], extra: ",\"place_guess\":\"Genk\"")
            .replacingOccurrences(of: "(c) u, some rights reserved", with: "(c) someone else, some rights reserved")
        let folder = try TemporaryDirectory()
        let inputs = [try folder.write("a.json", page([a])), try folder.write("b.json", page([b]))]
        let forward = try TemporaryDirectory()
        let backward = try TemporaryDirectory()
        try ingestAndDedupe(inputs, in: forward)
        try ingestAndDedupe(inputs.reversed(), in: backward)
        #expect(try text(forward.file("records.jsonl")) != text(backward.file("records.jsonl")))
        #expect(try text(forward.file("deduped.jsonl")) == text(backward.file("deduped.jsonl")))
        #expect(try text(forward.file("conflicts.json")) == text(backward.file("conflicts.json")))
    }

    @Test func theConflictReportIsTheSameWhateverFilesIngestReadTogether() throws {
        // Observation 1 with taxon 48662's default photo 900 in four files alike, and under
        // another licence in a fifth: the four copies tie on every rule. Ingest keeps one of a
        // chunk's identical copies, so how many copies dedupe sees, and which, depends on which
        // files share a chunk, that is on the order of the inputs.
        func observation(license: String) -> String {
            observationJSON(id: 1, taxon: nil).replacingOccurrences(
                of: "\"taxon\":null",
                with: """
                    "taxon":{"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10,"default_photo":{"id":900,\
                    "license_code":"\(license)","url":"https://inaturalist-open-data.s3.amazonaws.com/photos/900/square.jpg",\
                    "attribution":"(c) t, some rights reserved"}}
                    """)
        }
        let folder = try TemporaryDirectory()
        let same = try ["a", "b", "c", "e"].map { try folder.write("\($0).json", page([observation(license: "cc-by")])) }
        let other = try folder.write("d.json", page([observation(license: "cc0")]))
        var reports: [String] = []
        for inputs in [same + [other], [same[0], other] + same.dropFirst(), [same[1], same[0], other, same[3], same[2]], [same[2], same[1], other, same[0], same[3]],
        ] {
            let directory = try TemporaryDirectory()
            var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
            ingest.filesPerChunk = 2
            try INatIngest(options: ingest).run()
            try Dedupe(options: Dedupe.Options(
                input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))).run()
            reports.append(try text(directory.file("conflicts.json")))
        }
        #expect(reports[0].contains("\(same[0])#results[0]") && reports[0].contains("\(other)#results[0]"))
        #expect(reports.allSatisfy { $0 == reports[0] })
    }

    @Test func theOutputIsSortedByKindThenIdWithInputsByPathAndNoSources() throws {
        let directory = try TemporaryDirectory()
        let b = page([
            observationJSON(id: 30, taxon: 5, user: 9, photos: [(300, "cc-by", 800)]),
            observationJSON(id: 10, taxon: 3, user: 2, photos: [(100, "cc-by", 800)]),
        ])
        let a = observationJSON(id: 40, taxon: 3, user: 2, photos: [(400, "cc-by", 800)]) + "\n"
            + observationJSON(id: 20, taxon: 5, user: 9, photos: [(200, "cc-by", 800)]) + "\n"
        let bPath = try directory.write("b.json", b)
        let aPath = try directory.write("a.jsonl", a)
        try ingestAndDedupe([bPath, aPath], in: directory)
        let records = try recordLines(directory.file("deduped.jsonl"), deduped: true)
        #expect(records.map { $0["k"] as? String } == ["input", "input", "taxon", "taxon", "user", "user", "obs", "obs", "obs", "obs",
                                                       "photo", "photo", "photo", "photo"])
        #expect(records.dropFirst(2).map { $0["id"] as? Int } == [3, 5, 2, 9, 10, 20, 30, 40, 100, 200, 300, 400])
        #expect(records.allSatisfy { $0["src"] == nil })
        // ["input", path, bytes, sha256, format], sorted by path.
        let inputs = try lines(directory.file("deduped.jsonl")).prefix(2).map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [Any]
        }
        for (input, (path, format)) in zip(inputs, [(aPath, "json-lines"), (bPath, "document")]) {
            let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            let digest = String(try run("/usr/bin/sha256sum", [path]).stdout.prefix(64))
            #expect(input.count == 5)
            #expect(input[1] as? String == path)
            #expect(input[2] as? Int == bytes)
            #expect(input[3] as? String == digest)
            #expect(input[4] as? String == format)
        }
    }

    @Test func theConflictsReportCountsEachFieldAndShowsEveryVariantWithItsSource() throws {
        let directory = try TemporaryDirectory()
        // 77: licence cc-by (obs 1, obs 3) and cc-by-nc (obs 2). 78: two attributions. 79: one occurrence.
        let pageText = page([
            observationJSON(id: 1, photos: [(77, "cc-by", 1000), (78, "cc-by", 1000)]),
            observationJSON(id: 2, photos: [(77, "cc-by-nc", 1000)]),
            observationJSON(id: 5, photos: [(78, "cc-by", 1000)]).replacingOccurrences(of: "(c) u,", with: "(c) v,"),
        ])
        let lines = observationJSON(id: 3, photos: [(77, "cc-by", 1000)]) + "\n" + observationJSON(id: 4, photos: [(79, "cc0", 1000)]) + "\n"
        let a = try directory.write("a.json", pageText)
        let b = try directory.write("b.jsonl", lines)
        let summary = try ingestAndDedupe([a, b], in: directory)
        let counts: [Int] = [summary.conflicts.ids, summary.conflicts.license, summary.conflicts.attribution, summary.conflicts.url]
        #expect(counts == [2, 1, 1, 0])
        let report = try conflicts(directory)
        #expect(report["photos_with_conflicts"] as? Int == 2)
        #expect(report["license"] as? Int == 1)
        #expect(report["attribution"] as? Int == 1)
        #expect(report["url"] as? Int == 0)
        let examples = try #require(report["examples"] as? [[String: Any]])
        #expect(examples.map { $0["id"] as? Int } == [77, 78])
        #expect(examples.map { $0["fields"] as? [String] } == [["license"], ["attribution"]])
        func url(_ id: Int) -> String { "https://inaturalist-open-data.s3.amazonaws.com/photos/\(id)/square.jpg" }
        func variants(_ example: [String: Any]) -> Set<[String]> {
            Set((example["variants"] as? [[String: Any]] ?? []).map { variant in
                ["license", "attribution", "url", "source"].map { variant[$0] as? String ?? "?" }
            })
        }
        // One entry per distinct variant (obs 1's copy of 77 is obs 3's), each with one source.
        let sourcesOf77 = variants(examples[0])
        #expect(sourcesOf77.count == 2)
        #expect(sourcesOf77.contains(["cc-by-nc", "(c) u, some rights reserved", url(77), "\(a)#results[1]"]))
        #expect(sourcesOf77.contains { $0[0] == "cc-by" && ($0[3] == "\(a)#results[0]" || $0[3] == "\(b):1") })
        #expect(variants(examples[1]) == [
            ["cc-by", "(c) u, some rights reserved", url(78), "\(a)#results[0]"],
            ["cc-by", "(c) v, some rights reserved", url(78), "\(a)#results[2]"],
        ])
    }

    @Test(arguments: [(nil, 20), (2, 2), (0, 0)] as [(Int?, Int)])
    func theReportShowsUpToTheRequestedExamplesInIdOrderAndCountsThemAll(examples: Int?, shown: Int) throws {
        let directory = try TemporaryDirectory()
        let ids = Array(1...22)
        let inputs = [
            try directory.write("a.json", page([observationJSON(id: 1, photos: ids.map { ($0, "cc-by", 1000) })])),
            try directory.write("b.json", page([observationJSON(id: 2, photos: ids.map { ($0, "cc-by-nc", 1000) })])),
        ]
        var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 0
        try INatIngest(options: ingest).run()
        var options = Dedupe.Options(input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))
        if let examples { options.examples = examples }
        try Dedupe(options: options).run()
        let report = try conflicts(directory)
        #expect(report["photos_with_conflicts"] as? Int == 22)
        #expect(report["license"] as? Int == 22)
        #expect((report["examples"] as? [[String: Any]])?.compactMap { $0["id"] as? Int } == Array(ids.prefix(shown)))
    }

    @Test func aLineThatIsNotARecordFailsNamingItsLineAndByteAndPublishesNothing() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("a.json", page([observationJSON(id: 1)]))
        var ingest = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 0
        try INatIngest(options: ingest).run()
        let good = try Data(contentsOf: URL(fileURLWithPath: directory.file("records.jsonl")))
        try (good + Data("garbage\n".utf8)).write(to: URL(fileURLWithPath: directory.file("records.jsonl")))
        let error = try #require(throws: FieldpackError.self) {
            try Dedupe(options: .init(input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
                                      conflicts: directory.file("conflicts.json"))).run()
        }
        #expect(error.path == directory.file("records.jsonl"))
        // Named by its line, as every error is, and its byte.
        let lines = good.filter { $0 == 0x0A }.count
        #expect(error.line == lines + 1, "\(error)")
        #expect(error.message == "not a records line (it does not start [\"<kind>\") (byte \(good.count))", "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("deduped.jsonl")))
        // A line that starts like a record but of no kind ingest writes says so.
        try (good + Data("[\"bogus\",1,2]\n".utf8)).write(to: URL(fileURLWithPath: directory.file("records.jsonl")))
        let bogus = try #require(throws: FieldpackError.self) {
            try Dedupe(options: .init(input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
                                      conflicts: directory.file("conflicts.json"))).run()
        }
        #expect(bogus.line == lines + 1 && bogus.message.hasPrefix("not a records line (its kind is none fieldpack-inat writes)"), "\(bogus)")
        // A tag that starts like one (`obz`, `o`) was taken for it by its first letter, copied
        // through, and refused by the bundle naming dedupe's output.
        for tag in ["obz", "o", "obs2", "photos"] {
            try (good + Data("[\"\(tag)\",1,2]\n".utf8)).write(to: URL(fileURLWithPath: directory.file("records.jsonl")))
            let edited = try #require(throws: FieldpackError.self, "\(tag)") {
                try Dedupe(options: .init(input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"),
                                          conflicts: directory.file("conflicts.json"))).run()
            }
            #expect(edited.path == directory.file("records.jsonl") && edited.line == lines + 1, "\(tag): \(edited)")
            #expect(edited.message.hasPrefix("not a records line (its kind is none fieldpack-inat writes)"), "\(tag): \(edited)")
        }
    }
}
