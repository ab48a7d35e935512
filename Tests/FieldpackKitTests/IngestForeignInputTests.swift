import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A file that is not iNaturalist JSON stops ingest with one error that names it and says what
/// it looks like (README, "Input formats"); and how inputs are given on the command line.
@Suite struct IngestForeignInputTests {
    private func ingestError(_ inputs: [String], in directory: TemporaryDirectory) throws -> FieldpackError {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
        return error
    }

    /// The open-data export's tables are inputs now (see `OpenDataIngestTests`); a table of
    /// its columns that is comma-separated is still a foreign file, named as such.
    @Test func anOpenDataTableWrittenWithCommasIsToldAsNotTheExport() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("observations.csv", "observation_uuid,observer_id,latitude,longitude\n526ababd,505,38.6,-122.7\n")
        let error = try ingestError([path], in: directory)
        #expect(error.path == path)
        #expect(error.message.hasPrefix(
            "not iNaturalist JSON: this looks like comma-separated text, columns of the iNaturalist open-data export, but not tab-separated as its tables are"))
    }

    /// Each kind of foreign file, as its first bytes show it, and what the error calls it.
    static let kinds: [(name: String, bytes: [UInt8], says: String)] = [
        ("observations-123.csv", Array("id,observed_on_string,observed_on,time_observed_at,user_id,user_login,quality_grade,url,image_url\n1,2020-01-01,2020-01-01,,5,k,research,u,i\n".utf8),
         "comma-separated text, an iNaturalist CSV export, which fieldpack does not read; download API JSON instead (header: id, observed_on_string, observed_on, time_observed_at, …)"),
        ("occurrence.txt", Array("gbifID\tdatasetKey\toccurrenceID\tscientificName\n1\t2\t3\tApis\n".utf8),
         "tab-separated text, a Darwin Core occurrence table, which fieldpack does not read (header: gbifID, datasetKey, occurrenceID, scientificName)"),
        ("meta.xml", Array(#"<?xml version="1.0" encoding="UTF-8"?><archive xmlns="http://rs.tdwg.org/dwc/text/"><core rowType="http://rs.tdwg.org/dwc/terms/Occurrence"/></archive>"#.utf8),
         "a Darwin Core Archive descriptor (meta.xml), which fieldpack does not read"),
        ("dwca.zip", Array("PK\u{3}\u{4}\u{14}\u{0}\u{0}\u{0}\u{8}\u{0}".utf8) + [UInt8](repeating: 1, count: 16) + Array("\u{8}\u{0}\u{0}\u{0}meta.xml".utf8),
         "a Darwin Core Archive (a zip holding meta.xml), which fieldpack does not read"),
        ("observations.json", Array("<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body></body></html>\n".utf8),
         "an HTML page"),
        ("photo.json", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], "an image"),
        ("dump.json", [0x01, 0x00, 0x7B, 0x22, 0xFE, 0xFF, 0x00, 0x10], "binary data"),
        // Text but for one NUL deep inside (read eight bytes at a time), or in the last few bytes.
        ("deep.json", Array((String(repeating: "observations ", count: 40) + "\u{0}" + String(repeating: "é", count: 20)).utf8), "binary data"),
        ("tail.json", Array((String(repeating: "observations ", count: 40) + "ab\u{0}").utf8), "binary data"),
        // Control bytes (not tab, line feed, form feed or carriage return) in more than 1 byte of 20.
        ("controls.json", Array((0..<100).map { $0 % 16 == 9 ? "\u{1}" : "a" }.joined().utf8), "binary data"),
        ("page.json", [0xFF, 0xFE] + Array("{}".utf16).flatMap { [UInt8($0), 0] },
         "UTF-16 text; fieldpack reads UTF-8 (convert it with iconv -f UTF-16 -t UTF-8)"),
        // Without a byte order mark: NUL is half its bytes, which a file that starts like JSON
        // may hold as damage (it is not called binary for that).
        ("bare16.json", Array("{\"results\": []}".utf16).flatMap { [UInt8($0), 0] },
         "UTF-16 text (without a byte order mark); fieldpack reads UTF-8 (convert it with iconv -f UTF-16LE -t UTF-8)"),
        ("notes", Array("Observations from the 2024 bioblitz.\nSee the portal.\n".utf8),
         "plain text (first line: \"Observations from the 2024 bioblitz.\")"),
    ]

    @Test(arguments: kinds.indices)
    func eachForeignKindGetsOneErrorSayingWhatItLooksLike(index: Int) throws {
        let kind = Self.kinds[index]
        let directory = try TemporaryDirectory()
        let path = directory.file(kind.name)
        try Data(kind.bytes).write(to: URL(fileURLWithPath: path))
        let error = try ingestError([path], in: directory)
        #expect(error.path == path)
        #expect(error.message == "not iNaturalist JSON: this looks like \(kind.says)")
    }

    /// Stray files among the inputs are named in one error, each with what it looks like (four
    /// took four runs, one error each, to find); the first one stopped the run and is its path.
    @Test func everyForeignInputIsNamedInTheOneError() throws {
        let directory = try TemporaryDirectory()
        let page1 = try directory.write("a-page.json", page([observationJSON(id: 1)]))
        let notes = try directory.write("b-notes", "Downloaded from the API on Monday.\n")
        let error = try directory.write("c-error.html", "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>502</body></html>\n")
        let archive = try directory.writeGzip("d-notes.gz", "more notes, compressed\n")
        let page2 = try directory.write("e-page.json", page([observationJSON(id: 2)]))
        let failure = try ingestError([page1, notes, error, archive, page2], in: directory)
        #expect(failure.path == notes, "\(failure)")
        #expect(failure.message.hasPrefix("not iNaturalist JSON: this looks like plain text (first line: \"Downloaded from the API on Monday.\"); "
            + "and 2 more inputs are not iNaturalist's either: "), "\(failure)")
        #expect(failure.message.contains("\(error) (an HTML page"), "\(failure)")
        #expect(failure.message.contains("\(archive) (gzip-compressed plain text"), "\(failure)")
        #expect(!failure.message.contains(page1) && !failure.message.contains(page2), "\(failure)")
    }

    @Test func aGzipCompressedExportIsToldAsCompressedText() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.writeGzip("occurrence.txt.gz", "gbifID\tdatasetKey\toccurrenceID\n1\t2\t3\n")
        let error = try ingestError([path], in: directory)
        #expect(error.message.hasPrefix("not iNaturalist JSON: this looks like gzip-compressed tab-separated text, a Darwin Core occurrence table"))
    }

    @Test(arguments: [
        (#"{"error":"Not found","status":404}"#, #"the first record is an object with keys "error", "status"; this looks like an API error response"#),
        ("[1, 2, 3]\n", "the first record is an integer"),
        (#"["user",7,"kestrel_k",null,1714557600000,"0#0"]"# + "\n" + #"["obs",1,"u-1",7,null,"research","2024-04-30",null,null,null,50.5,4.25,null,null,null,null,null,[],1714557600000,"0#0"]"# + "\n",
         "the first record is an array; this looks like a fieldpack records file (give it to fieldpack-dedupe)"),
        ("{\"name\":\"Dog\",\"identifier\":1,\"is_part_of\":{\"identifier\":\"enwiki\"}}\n{\"name\":\"Cat\",\"identifier\":2,\"is_part_of\":{\"identifier\":\"enwiki\"}}\n",
         #"the first record is an object with keys "name", "identifier", "is_part_of"; this looks like a Wikipedia article (give it to fieldpack-wiki)"#),
        (#"{"total_results":1,"results":[{"id":97,"name":"Belgium","place_type":12}]}"#, #"the first record is an object with keys "id", "name", "place_type""#),
        (#"{"total_results":1,"page":1,"per_page":1,"results":[{"uuid":"3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"}]}"#,
         #"the first record is an object with keys "uuid"; this looks like an API v2 response, which gives only the fields its request names: "#
            + "request fields=all, or at least id, uuid, quality_grade, observed_on, user, taxon, location, observation_photos and photos"),
    ])
    func aValidJSONFileOfNoINaturalistShapeIsAnError(text: String, detail: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("thing.json", text)
        let error = try ingestError([path], in: directory)
        #expect(error.path == path)
        let shapes = " (an API page of observations, taxa or species counts, an observation or a taxon)"
        #expect(error.message == "valid JSON, but not an iNaturalist shape\(shapes): \(detail)")
    }

    @Test func aResultOfNoShapeAmongRecordsIsRejectedNotAnError() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("page.json", page([observationJSON(id: 3), #"{"id":1,"name":"Aves"}"#]))
        var options = INatIngest.Options(inputs: [path], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        let summary = try INatIngest(options: options).run()
        #expect(summary.accepted == 1)
        #expect(summary.rejected == 1)
    }

    // MARK: The command line: folders and standard input

    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    private func inat(_ arguments: [String], stdin: String? = nil, in directory: TemporaryDirectory) throws -> ProcessResult {
        let tool = "\(try #require(Self.binaries))/fieldpack-inat"
        let all = arguments + ["--output", directory.file("records.jsonl"), "--rejects", directory.file("rejects.jsonl")]
        guard let stdin else { return try run(tool, all) }
        let quoted = ([tool] + all).map { "'\($0)'" }.joined(separator: " ")
        return try run("/bin/sh", ["-c", "\(quoted) < '\(stdin)'"])
    }

    private func inputPaths(_ directory: TemporaryDirectory) throws -> [String] {
        try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "input" }.compactMap { $0["path"] as? String }
    }

    @Test(.enabled(if: binaries != nil))
    func aFolderOnTheCommandLineIsWalkedLikeAPipelineFolder() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("dumps")
        try directory.write("dumps/b-page.json", page([observationJSON(id: 2)]))
        try directory.write("dumps/a/updates.jsonl", observationJSON(id: 1) + "\n")
        try directory.write("dumps/README.md", "# notes\n")
        try directory.write("dumps/notes.txt", "not read\n")
        try directory.write("dumps/.hidden.json", "{")
        let result = try inat([folder], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try inputPaths(directory) == ["\(folder)/a/updates.jsonl", "\(folder)/b-page.json"])
    }

    @Test(.enabled(if: binaries != nil))
    func aFolderWithNoInputsIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("empty/README.md", "# notes\n")
        let result = try inat([directory.file("empty")], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(directory.file("empty")): error: the folder holds no input files"))
    }

    @Test(.enabled(if: binaries != nil))
    func aDashReadsStandardInput() throws {
        let directory = try TemporaryDirectory()
        let piped = try directory.write("piped.json", page([observationJSON(id: 7)]))
        let file = try directory.write("file.jsonl", observationJSON(id: 8) + "\n")
        let result = try inat(["-", file], stdin: piped, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try inputPaths(directory) == ["<stdin>", file])
        let observations = try recordLines(directory.file("records.jsonl")).filter { $0["k"] as? String == "obs" }
        #expect(observations.compactMap { $0["id"] as? Int } == [7, 8])
    }

    @Test(.enabled(if: binaries != nil))
    func aForeignFileExitsOneWithOneErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("page.json", page([observationJSON(id: 2)]))
        let path = try directory.write("occurrence.tsv", "gbifID\tdatasetKey\toccurrenceID\n1\t2\t3\n")
        let result = try inat([good, path], in: directory)
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains("error:") }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("\(path): error: not iNaturalist JSON: this looks like tab-separated text") ?? false,
                "\(result.stderr)")
    }
}
