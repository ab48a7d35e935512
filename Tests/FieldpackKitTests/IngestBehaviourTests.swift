import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The ingest stage's documented behaviours (README, "Input formats"), one test each, on small
/// constructed inputs with expected values worked out by hand.
@Suite struct IngestBehaviourTests {
    @discardableResult
    private func ingest(
        _ inputs: [String], in directory: TemporaryDirectory, _ configure: (inout INatIngest.Options) -> Void = { $0.maxRejectRate = 1 }
    ) throws -> INatIngest.Summary {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        configure(&options)
        return try INatIngest(options: options).run()
    }

    private func records(_ directory: TemporaryDirectory, _ name: String = "records.jsonl") throws -> [[String: Any]] {
        try recordLines(directory.file(name))
    }

    private func records(_ directory: TemporaryDirectory, kind: String) throws -> [[String: Any]] {
        try records(directory).filter { $0["k"] as? String == kind }
    }

    /// The system's `sha256sum`, an independent reading of a file's digest.
    private func sha256(_ path: String) throws -> String {
        String(try run("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }

    private func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    // MARK: What a result is

    @Test(arguments: [
        (#"{"id":1,"quality_grade":"casual"}"#, "obs"),
        (#"{"id":1,"observed_on":"2024-04-30"}"#, "obs"),
        (#"{"id":1,"user":{"id":3,"login":"kestrel_k"}}"#, "obs"),
        (#"{"id":1,"photos":[]}"#, "obs"),
        (#"{"id":1,"observation_photos":[]}"#, "obs"),
        (#"{"id":1,"name":"Aves","rank":"class"}"#, "taxon"),
        (#"{"id":1,"name":"Aves","rank_level":50}"#, "taxon"),
        (#"{"id":1,"name":"Aves","taxon_photos":[]}"#, "taxon"),
    ])
    func aResultIsAnObservationOrATaxonByItsFields(record: String, kind: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("one.json", record)
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 0)
        let kinds = try records(directory).compactMap { $0["k"] as? String }.filter { $0 != "input" }
        #expect(kinds.first == kind)
    }

    @Test func aResultWithNeitherObservationNorTaxonFieldsIsRejected() throws {
        let directory = try TemporaryDirectory()
        // Beside a good record: a file of such results only is not iNaturalist data (IngestForeignInputTests).
        let input = try directory.write("one.jsonl", observationJSON(id: 2) + "\n" + #"{"id":1,"name":"Aves"}"# + "\n")
        let summary = try ingest([input], in: directory)
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 1)
        #expect(summary.findings.map(\.reason) == ["record is neither an observation nor a taxon (no quality_grade, user, photos or rank)"])
    }

    // MARK: Field handling

    @Test(arguments: [
        (#""location":"50.5,4.25""#, 50.5, 4.25),
        (#""location":"50.5, 4.25""#, 50.5, 4.25),
        (#""location":[50.5,4.25]"#, 50.5, 4.25),
        (#""geojson":{"type":"Point","coordinates":[4.25,50.5]}"#, 50.5, 4.25),
        (#""geojson":{"type":"Point","coordinates":["4.25","50.5"]}"#, 50.5, 4.25),
        (#""location":"-33.5,151.25","geojson":{"type":"Point","coordinates":[4.25,50.5]}"#, -33.5, 151.25),
        (#""location":null,"geojson":{"type":"Point","coordinates":[4.25,50.5]}"#, 50.5, 4.25),
    ])
    func coordinatesComeFromLocationElseFromGeoJSONAsLngLat(fields: String, latitude: Double, longitude: Double) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("one.json", "{\"id\":9,\"quality_grade\":\"research\",\(fields)}")
        try ingest([input], in: directory)
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["lat"] as? Double == latitude)
        #expect(observation["lng"] as? Double == longitude)
    }

    @Test(arguments: [
        (#""location":"95,10""#, #"location "95,10" is not "lat,lng" within ±90, ±180; dropped location"#),
        (#""location":"50.5""#, #"location "50.5" is not "lat,lng" within ±90, ±180; dropped location"#),
        (#""location":[50.5]"#, "location is an array but not [lat, lng] within ±90, ±180; dropped location"),
        (#""location":12"#, #"location is an integer, expected a "lat,lng" string; dropped location"#),
        (#""geojson":{"coordinates":[4.25]}"#, "geojson.coordinates is not [lng, lat] within ±180, ±90; dropped geojson.coordinates"),
    ])
    func coordinatesThatAreNotLatLngAreDroppedWithTheirReasonAndTheObservationKept(fields: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("one.json", "{\"id\":9,\"quality_grade\":\"research\",\(fields)}")
        let summary = try ingest([input], in: directory)
        #expect(summary.rejected == 0)
        #expect(summary.salvaged == 1)
        #expect(summary.findings.map(\.reason) == [reason])
        let observation = try #require(try records(directory, kind: "obs").first)
        #expect(observation["lat"] is NSNull)
        #expect(observation["lng"] is NSNull)
    }

    @Test func licenceCodesAreStoredInLowerCase() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("one.json", """
            {"id":9,"quality_grade":"research","license_code":"CC-BY-NC",\
            "photos":[{"id":70,"url":"https://x/photos/70/square.jpg","license_code":"CC0"},\
            {"id":71,"url":"https://x/photos/71/square.jpg","license_code":"Cc-By-Sa"}]}
            """)
        try ingest([input], in: directory)
        #expect(try records(directory, kind: "obs").first?["license"] as? String == "cc-by-nc")
        #expect(try records(directory, kind: "photo").map { $0["license"] as? String } == ["cc0", "cc-by-sa"])
    }

    @Test func unknownDimensionsAndAbsentNamesAreNullNeverZeroOrEmpty() throws {
        let directory = try TemporaryDirectory()
        let observation = """
            {"id":9,"quality_grade":"research","photos":[\
            {"id":70,"url":"https://x/photos/70/a.jpg","original_dimensions":null},\
            {"id":71,"url":"https://x/photos/71/a.jpg"},\
            {"id":72,"url":"https://x/photos/72/a.jpg","original_dimensions":{"width":640,"height":480}}]}
            """
        let taxa = """
            {"id":1,"name":"Aves","rank":"class","preferred_common_name":null}
            {"id":2,"name":"Mammalia","rank":"class"}
            {"id":3,"name":"Insecta","rank":"class","preferred_common_name":"Insects"}

            """
        try ingest([try directory.write("obs.json", observation), try directory.write("taxa.jsonl", taxa)], in: directory)
        let photos = try records(directory, kind: "photo")
        #expect(photos.map { $0["id"] as? Int } == [70, 71, 72])
        #expect(photos.map { $0["width"] is NSNull } == [true, true, false])
        #expect(photos.map { $0["height"] is NSNull } == [true, true, false])
        #expect(photos[2]["width"] as? Int == 640)
        #expect(photos[2]["height"] as? Int == 480)
        let names = try records(directory, kind: "taxon").map { $0["preferred_common_name"] }
        #expect(names.count == 3)
        #expect(names[0] is NSNull)
        #expect(names[1] is NSNull)
        #expect(names[2] as? String == "Insects")
    }

    @Test func seenIsTheRecordsUpdatedAtInUnixMillisecondsForEverythingItCarries() throws {
        let directory = try TemporaryDirectory()
        // 2024-05-01T12:00:00+02:00 is 2024-05-01T10:00:00Z: `date -u -d 2024-05-01T10:00:00Z +%s` = 1714557600.
        let observation = observationJSON(id: 1, updatedAt: "2024-05-01T12:00:00+02:00", photos: [(70, "cc-by", 800)])
        let taxon = #"{"id":3,"name":"Aves","rank":"class"}"#
        try ingest([try directory.write("obs.json", observation), try directory.write("taxon.json", taxon)], in: directory)
        let all = try records(directory).filter { $0["k"] as? String != "input" }
        let seen = Dictionary(grouping: all, by: { "\($0["k"]!):\($0["id"]!)" }).mapValues { $0.map { $0["seen"]! } }
        for key in ["obs:1", "user:7", "photo:70", "taxon:48662"] {
            #expect(seen[key]?.map { $0 as? Int } == [1_714_557_600_000], "\(key)")
        }
        // A taxa-endpoint record without its own updated_at has no time.
        #expect(seen["taxon:3"]?.count == 1)
        #expect(seen["taxon:3"]?.first is NSNull)
    }

    // MARK: Sources and input records

    @Test func everyRecordNamesItsInputIndexAndItsResultOrLine() throws {
        let directory = try TemporaryDirectory()
        let pageFile = try directory.write("a.json", page([observationJSON(id: 1), observationJSON(id: 2)]))
        let lines = try directory.write("b.jsonl", observationJSON(id: 3) + "\n\n" + observationJSON(id: 4) + "\n")
        let single = try directory.write("c.json", observationJSON(id: 5))
        try ingest([pageFile, lines, single], in: directory)
        let observations = try records(directory, kind: "obs")
        #expect(observations.map { $0["id"] as? Int } == [1, 2, 3, 4, 5])
        #expect(observations.map { $0["src"] as? String } == ["0#0", "0#1", "1:1", "1:3", "2#"])
    }

    @Test func eachFileHasAnInputRecordWithItsPathSizeDigestFormatAndCounts() throws {
        let directory = try TemporaryDirectory()
        let lines = try directory.write("dump.jsonl", [observationJSON(id: 1), #"{"id":"x","quality_grade":"research"}"#, observationJSON(id: 2)]
            .joined(separator: "\n") + "\n")
        let gzipped = try directory.writeGzip("page.bin", page([observationJSON(id: 3)]))
        try ingest([lines, gzipped], in: directory)
        let inputs = try records(directory, kind: "input")
        #expect(inputs.count == 2)
        let expected: [(Int, String, Int, String, String, Int, Int)] = try [
            (0, lines, size(lines), sha256(lines), "json-lines", 2, 1),
            (1, gzipped, size(gzipped), sha256(gzipped), "gzip+document", 1, 0),
        ]
        #expect(inputs.map { $0["salvaged"] as? Int } == [0, 0])
        for (record, want) in zip(inputs, expected) {
            #expect(record["index"] as? Int == want.0)
            #expect(record["path"] as? String == want.1)
            #expect(record["bytes"] as? Int == want.2)
            #expect(record["sha256"] as? String == want.3)
            #expect(record["format"] as? String == want.4)
            #expect(record["records"] as? Int == want.5)
            #expect(record["rejected"] as? Int == want.6)
        }
    }

    // MARK: Bad input

    @Test func theRejectsFileGivesFileLineOffsetRecordAndReasonAndStderrTheCompilerForm() throws {
        let directory = try TemporaryDirectory()
        let bad = observationJSON(id: "x")
        let pageText = page([observationJSON(id: 1), bad, observationJSON(id: 3)])
        let pageFile = try directory.write("page.json", pageText)
        let badStart = pageText.utf8.distance(from: pageText.startIndex, to: try #require(pageText.range(of: bad)).lowerBound)
        let first = observationJSON(id: 4)
        let linesFile = try directory.write("dump.jsonl", first + "\n" + bad + "\n" + observationJSON(id: 5) + "\n")
        let summary = try ingest([pageFile, linesFile], in: directory)
        let rejects = try jsonLines(directory.file("rejects.jsonl"))
        #expect(rejects.count == 2)
        #expect(rejects.allSatisfy { Set($0.keys) == ["file", "line", "offset", "record", "path", "outcome", "reason"] })
        #expect(rejects.map { $0["outcome"] as? String } == ["rejected", "rejected"])
        #expect(rejects.map { $0["path"] as? String } == ["results[1].id", "id"])
        let reason = "id is a string, expected an integer id"
        // page(): line 1 opens the envelope, results[i] starts line i + 2.
        #expect(rejects[0]["file"] as? String == pageFile)
        #expect(rejects[0]["line"] as? Int == 3)
        #expect(rejects[0]["offset"] as? Int == badStart)
        #expect(rejects[0]["record"] as? String == "results[1]")
        #expect(rejects[0]["reason"] as? String == reason)
        #expect(rejects[1]["file"] as? String == linesFile)
        #expect(rejects[1]["line"] as? Int == 2)
        #expect(rejects[1]["offset"] as? Int == first.utf8.count + 1)
        #expect(rejects[1]["record"] is NSNull)
        #expect(rejects[1]["reason"] as? String == reason)
        #expect(summary.findings.map(\.diagnostic) == [
            "\(pageFile):3: warning: results[1]: \(reason)",
            "\(linesFile):2: warning: \(reason)",
        ])
    }

    @Test(arguments: [(0.25, true), (0.24, false)])
    func aRejectRateAtTheThresholdPassesAndAboveItFailsSayingWhy(limit: Double, passes: Bool) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("dump.jsonl", [observationJSON(id: 1), observationJSON(id: "x"), observationJSON(id: 2), observationJSON(id: 3)]
            .joined(separator: "\n") + "\n")
        if passes {
            let summary = try ingest([input], in: directory) { $0.maxRejectRate = limit }
            #expect(summary.rejected == 1)
            #expect(try records(directory, kind: "obs").count == 3)
        } else {
            // An earlier run's records (of other inputs) are not left beside this run's rejects.
            try directory.write("records.jsonl", observationJSON(id: 9) + "\n")
            let error = try #require(throws: FieldpackError.self) { try ingest([input], in: directory) { $0.maxRejectRate = limit } }
            #expect(error.path == directory.file("rejects.jsonl"))
            #expect(error.message == "1 of 4 records rejected (25.0%), over the --max-reject-rate of 24.0%; \(directory.file("records.jsonl")) was not written")
            #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
        }
        #expect(try jsonLines(directory.file("rejects.jsonl")).count == 1)
    }

    @Test(arguments: [(99, true), (98, false)])
    func theDefaultRejectThresholdIsOnePercent(good: Int, passes: Bool) throws {
        let directory = try TemporaryDirectory()
        let lines = (1...good).map { observationJSON(id: $0) } + [#"{"quality_grade":"research"}"#]
        let input = try directory.write("dump.jsonl", lines.joined(separator: "\n") + "\n")
        let options = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        if passes {
            #expect(try INatIngest(options: options).run().rejected == 1)
        } else {
            #expect(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        }
        #expect(FileManager.default.fileExists(atPath: directory.file("records.jsonl")) == passes)
    }

    @Test func aDocumentOverTheSizeLimitFailsNamingTheFile() throws {
        let directory = try TemporaryDirectory()
        // About 2.4 MB over some 7,000 lines, against a 1 MiB limit.
        let input = try directory.write("big.json", page((1...7000).map { observationJSON(id: $0) }))
        #expect(try size(input) > 2 << 20)
        let error = try #require(throws: FieldpackError.self) { try ingest([input], in: directory) { $0.maxDocumentBytes = 1 << 20 } }
        #expect(error.path == input)
        #expect(error.message == "document is larger than the 1 MiB limit for one JSON document")
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
    }

    // MARK: Satellites

    @Test func collapsingRepeatedSatellitesDoesNotChangeTheDedupedResult() throws {
        let directory = try TemporaryDirectory()
        // Four files of three observations of one user and one taxon (with its default photo); file
        // 2 has the user renamed in one observation; the newest observation of all is in file 3.
        let defaultPhoto = "\"rank_level\":10,\"default_photo\":{\"id\":900,\"url\":\"https://x/photos/900/square.jpg\",\"license_code\":\"cc0\"}}"
        let inputs = try (0..<4).map { file in
            try directory.write("in/p\(file).json", page((0..<3).map { index in
                var text = observationJSON(id: file * 10 + index + 1, updatedAt: "2024-0\(file + 1)-0\(index + 1)T10:00:00Z")
                    .replacingOccurrences(of: "\"rank_level\":10}", with: defaultPhoto)
                if file == 2 && index == 1 { text = text.replacingOccurrences(of: "\"login\":\"user7\"", with: "\"login\":\"renamed\"") }
                return text
            }))
        }
        var deduped: [String] = []
        var users: [Int] = []
        for chunk in [1, 2, 32] {
            var options = INatIngest.Options(inputs: inputs, output: directory.file("r\(chunk).jsonl"), rejects: directory.file("x\(chunk).jsonl"))
            options.filesPerChunk = chunk
            try INatIngest(options: options).run()
            users.append(try records(directory, "r\(chunk).jsonl").filter { $0["k"] as? String == "user" }.count)
            try Dedupe(options: .init(input: directory.file("r\(chunk).jsonl"), output: directory.file("d\(chunk).jsonl"),
                                      conflicts: directory.file("c\(chunk).json"))).run()
            deduped.append(try text(directory.file("d\(chunk).jsonl")))
        }
        // Per file: one user copy, two in file 2; per run of two files: 1 + 2; all together: the two variants.
        #expect(users == [5, 3, 2])
        #expect(deduped[0] == deduped[1])
        #expect(deduped[0] == deduped[2])
        let user = try #require(try recordLines(directory.file("d32.jsonl"), deduped: true).first { $0["k"] as? String == "user" })
        #expect(user["login"] as? String == "user7")
        #expect(user["seen"] as? Int == 1_712_138_400_000)  // 2024-04-03T10:00:00Z: `date -u -d … +%s`
    }

    // MARK: The executable

    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func theExecutableTakesThePipelinesNameAndThresholdAndTheFlagOverridesIt() throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let directory = try TemporaryDirectory()
        let input = try directory.write("in/a.jsonl", [observationJSON(id: 1), observationJSON(id: "x"), observationJSON(id: 2)]
            .joined(separator: "\n") + "\n")
        let pipeline = try directory.write("p.json", "{\"name\": \"exe-test\", \"inat\": [\"\(directory.file("in"))\"], \"max_reject_rate\": 0.5}")
        let name = try run("\(bin)/fieldpack-inat", ["--pipeline", pipeline, "--print-name"])
        #expect(name.status == 0)
        #expect(name.stdout == "exe-test\n")

        let output = directory.file("out/records.jsonl")
        let rejects = directory.file("out/rejects.jsonl")
        let depfile = directory.file("out/records.d")
        let passed = try run("\(bin)/fieldpack-inat", ["--pipeline", pipeline, "--output", output, "--rejects", rejects, "--depfile", depfile])
        #expect(passed.status == 0, "\(passed.stderr)")
        #expect(passed.stderr.contains("\(input):2: warning: id is a string, expected an integer id\n"))
        #expect(FileManager.default.fileExists(atPath: output))
        let folder = directory.file("in")
        let rules = try depfileRules(depfile)
        // The folder by its identity alone (the names a walk reads in it), not in the rule; the
        // pipeline by the keys ingest reads of it (`PipelineReader`), not in the rule either.
        #expect(rules.rules == "\(output): \\\n  \(input)\n\(input):\n")
        #expect(try text(depfile).contains("#@\tkeys\tinat\t"))
        #expect(rules.identified == [input, folder, pipeline])

        let strict = directory.file("out/strict.jsonl")
        let failed = try run("\(bin)/fieldpack-inat", ["--pipeline", pipeline, "--output", strict, "--rejects", rejects, "--max-reject-rate", "0.1"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains(
            "\(rejects): error: 1 of 3 records rejected (33.33%), over the --max-reject-rate of 10.0%; \(strict) was not written"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: strict))

        // One that make wrote from INAT=… is not to be edited: the hint says MAX_REJECT_RATE=.
        let written = directory.file("own/pipeline.json")
        try FileManager.default.createDirectory(atPath: directory.file("own"), withIntermediateDirectories: true)
        try PipelineTemplate(name: "exe-test", inat: [directory.file("in")], maxRejectRate: 0.2).write(to: written)
        let overWritten = try run("\(bin)/fieldpack-inat", ["--pipeline", written, "--output", strict, "--rejects", rejects])
        #expect(overWritten.stderr.contains("to allow more, run make bundle INAT=… again with MAX_REJECT_RATE=R (0 to 1)"), "\(overWritten.stderr)")

        // A Wikipedia dump that does not exist fails here, the first stage, not after dedupe.
        let noWiki = try directory.write("nowiki.json", "{\"name\": \"exe-test\", \"inat\": [\"\(directory.file("in"))\"], \"wikipedia\": [\"\(directory.file("wiki/none.ndjson"))\"]}")
        let missingWiki = try run("\(bin)/fieldpack-inat", ["--pipeline", noWiki, "--output", strict, "--rejects", rejects])
        #expect(missingWiki.status == 1)
        #expect(missingWiki.stderr.contains("\(noWiki): error: wikipedia: input \"\(directory.file("wiki/none.ndjson"))\" does not exist"), "\(missingWiki.stderr)")

        // Over the pipeline's own limit, the error says where to raise it.
        let tight = try directory.write("tight.json", "{\"name\": \"exe-test\", \"inat\": [\"\(directory.file("in"))\"], \"max_reject_rate\": 0.2}")
        let overPipeline = try run("\(bin)/fieldpack-inat", ["--pipeline", tight, "--output", strict, "--rejects", rejects])
        #expect(overPipeline.status == 1)
        #expect(overPipeline.stderr.contains(
            "over the pipeline's max_reject_rate of 20.0%; \(strict) was not written; to allow more, raise \"max_reject_rate\" in \(tight)"),
            "\(overPipeline.stderr)")

        let bad = try run("\(bin)/fieldpack-inat", ["--pipeline", pipeline, "--output", strict, "--rejects", rejects, "--max-reject-rate", "2"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--max-reject-rate must be between 0 and 1"))
    }
}
