import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct PipelineTests {
    @Test func theSamplePipelineReadsItsInputsTargetsAndLicences() throws {
        let pipeline = try Pipeline.load("\(repositoryRoot)/pipelines/sample.json")
        #expect(pipeline.name == "sample")
        #expect(pipeline.maxRejectRate == 0.2)
        #expect(pipeline.shipping.licenses == License.commercialDefault)
        #expect(pipeline.shipping.targets.map(\.name) == ["map-pin", "list-cell", "detail"])
        #expect(pipeline.shipping.targets[2].mode == .fit)
        #expect(pipeline.shipping.memoryBudget == 52_428_800)
    }

    @Test func foldersAreWalkedInByteOrderSkippingHiddenFilesAndNotes() throws {
        let directory = try TemporaryDirectory()
        for name in ["b.json", "a.json.gz", "B.jsonl", "README.md", ".hidden.json", "sub/c.json", "notes.txt"] {
            try directory.write("dumps/\(name)", "{}")
        }
        let resolved = try Pipeline.resolve([directory.file("dumps")], pipelinePath: "p.json")
        #expect(resolved.files.map { String($0.dropFirst(directory.file("dumps/").count)) } == ["B.jsonl", "a.json.gz", "b.json", "sub/c.json"])
        #expect(resolved.folders == [directory.file("dumps"), directory.file("dumps/sub")])
        let globbed = try Pipeline.resolve([directory.file("dumps/*.json*")], pipelinePath: "p.json")
        #expect(globbed.files.count == 3)  // B.jsonl, a.json.gz, b.json; not the hidden one
        // The folder whose listing decides the matches is watched: a file added to it rebuilds.
        #expect(globbed.folders == [directory.file("dumps")])
        // Every folder a wildcard part matches on the way down is watched too, one that holds
        // no match yet included (`empty/sub`: a page landing there was never read, make saying
        // "Nothing to be done").
        try FileSystem.makeDirectories(directory.file("empty/sub"))
        let deeper = try Pipeline.resolve([directory.file("*/sub/*.json")], pipelinePath: "p.json")
        #expect(deeper.folders == [
            directory.path, directory.file("dumps"), directory.file("empty"), directory.file("dumps/sub"), directory.file("empty/sub"),
        ])
    }

    /// The same input written another way (`./`, `//`, a trailing `/`) resolves to the same
    /// paths: they are recorded in the manifest and the reports, and the wiki stage breaks a tie
    /// between two copies of an article by them (`./sample-data/wiki` beside `sample-data/wiki-alt`
    /// shipped the other copy than `sample-data/wiki` did).
    @Test func anInputWrittenAnotherWayResolvesToTheSamePaths() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/sub/a.json", "{}")
        try directory.write("dumps/b.json", "{}")
        let plain = try Pipeline.resolve([directory.file("dumps")], pipelinePath: "p.json")
        for spelling in [directory.file("./dumps"), directory.file("dumps/"), directory.path + "//dumps/./", directory.path + "/./dumps//"] {
            let resolved = try Pipeline.resolve([spelling], pipelinePath: "p.json")
            #expect(resolved.files == plain.files, "\(spelling)")
            #expect(resolved.folders == plain.folders, "\(spelling)")
        }
        let globbed = try Pipeline.resolve([directory.path + "/./dumps//*.json"], pipelinePath: "p.json")
        #expect(globbed.files == [directory.file("dumps/b.json")])
        #expect(lexicallyNormal("./a//b/./c/") == "a/b/c")
        #expect(lexicallyNormal("../a/./b") == "../a/b")
        #expect(lexicallyNormal("./") == "." && lexicallyNormal("//") == "/" && lexicallyNormal("/./x") == "/x")
        // An empty entry names nothing (it walked the current folder).
        #expect(lexicallyNormal("") == "")
        #expect(throws: FieldpackError.self) { try Pipeline.resolve([""], key: "inat", pipelinePath: "p.json") }
    }

    /// A glob of several wildcard levels neither matches nor watches anything under a build
    /// folder inside the input folder: the depfile listed `dumps/build/inat`, which every build
    /// changes, so make re-ingested every time.
    @Test func aGlobNeitherReadsNorWatchesABuildFolderInsideTheInputs() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/2024/11/page.json", "{}")
        try directory.write("dumps/build/.pipeline", "dumps/pipeline.json\n")
        try directory.write("dumps/build/inat/page.json", "[]\n")
        let resolved = try Pipeline.resolve([directory.file("dumps/*/*/page.json")], pipelinePath: "p.json")
        #expect(resolved.files == [directory.file("dumps/2024/11/page.json")])
        #expect(resolved.folders == [directory.file("dumps"), directory.file("dumps/2024"), directory.file("dumps/2024/11")])
        // A glob naming a build folder in its fixed part reads it, as the plain path would.
        let named = try Pipeline.resolve([directory.file("dumps/build/inat/*.json")], pipelinePath: "p.json")
        #expect(named.files == [directory.file("dumps/build/inat/page.json")])
    }

    /// A pipeline's build inside its input folder (BUILD=dumps/build) is not walked for inputs:
    /// its records and bundle were read as dumps on the next night, which then refused to
    /// write over its own inputs.
    @Test func aBuildFolderInsideAnInputFolderIsNotReadAsInputs() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/page.json", "{}")
        try directory.write("dumps/build/own/.pipeline", "dumps/pipeline.json\n")
        try directory.write("dumps/build/own/inat/records.jsonl", "[]\n")
        try directory.write("dumps/build/own/bundle/manifest.json", "{}")
        let resolved = try Pipeline.resolve([directory.file("dumps")], pipelinePath: "p.json")
        #expect(resolved.files == [directory.file("dumps/page.json")])
        #expect(resolved.folders == [directory.file("dumps"), directory.file("dumps/build")])
    }

    @Test func inputsThatMatchNothingAreErrorsNamingThePipeline() throws {
        let directory = try TemporaryDirectory()
        let missing = try #require(throws: FieldpackError.self) { try Pipeline.resolve([directory.file("missing")], pipelinePath: "p.json") }
        #expect(missing.path == "p.json")
        #expect(missing.message == "input \"\(directory.file("missing"))\" does not exist")
        let unmatched = try #require(throws: FieldpackError.self) { try Pipeline.resolve([directory.file("*.none")], pipelinePath: "p.json") }
        #expect(unmatched.path == "p.json")
        #expect(unmatched.message == "\"\(directory.file("*.none"))\" matches no files")
    }

    /// An entry that gives no input file (an empty folder: a download that failed, a mount point
    /// not mounted; a glob matching only such folders) is refused naming it, where the build
    /// went on without it and, for `wikipedia`, published a guide without articles.
    @Test func anEntryThatGivesNoInputFileIsRefusedNamingIt() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/page.json", "{}")
        try directory.write("empty/README.md", "# notes: not read\n")
        try FileSystem.makeDirectories(directory.file("months/2024-12"))
        let empty = try #require(throws: FieldpackError.self) {
            try Pipeline.resolve([directory.file("dumps"), directory.file("empty")], key: "wikipedia", pipelinePath: "p.json")
        }
        #expect(empty.path == "p.json")
        #expect(empty.message == "wikipedia: \"\(directory.file("empty"))\" holds no input files (hidden files, *.md and *.txt are skipped)")
        let glob = try #require(throws: FieldpackError.self) {
            try Pipeline.resolve([directory.file("dumps"), directory.file("months/*")], key: "inat", pipelinePath: "p.json")
        }
        #expect(glob.message == "inat: \"\(directory.file("months/*"))\" matches no input files (hidden files, *.md and *.txt are skipped)")
        // A file named twice still gives a file each time.
        let twice = try Pipeline.resolve([directory.file("dumps"), directory.file("dumps/page.json")], pipelinePath: "p.json")
        #expect(twice.files == [directory.file("dumps/page.json")])
    }

    /// `make bundle INAT=…` (`fieldpack-pipeline init`) says what is wrong with an input that is
    /// there, as a pipeline file naming it is told, where every fault read "no such file".
    @Test func aTemplatesInputThatIsThereButGivesNothingIsToldWhy() throws {
        let directory = try TemporaryDirectory()
        try FileSystem.makeDirectories(directory.file("empty"))
        let error = try #require(throws: FieldpackError.self) {
            try PipelineTemplate(name: "mine", inat: [directory.file("empty")]).check()
        }
        #expect(error.description == "\(directory.file("empty")): error: given with --inat: the folder holds no input files (hidden files, *.md and *.txt are skipped)")
        let missing = try #require(throws: FieldpackError.self) {
            try PipelineTemplate(name: "mine", inat: [directory.file("gone")]).check()
        }
        #expect(missing.message == "given with --inat: no such file or folder, or a glob that matches nothing")
    }

    /// A folder a glob cannot read (its permissions, a failing disk) fails the glob naming it
    /// and why, as a walked folder's does, where its dumps were left out of the build in
    /// silence. Run as a user who may not read it (as root, through setpriv as nobody).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func aFolderAGlobCannotReadFailsTheGlobNamingIt() throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let directory = try TemporaryDirectory()
        try directory.write("dumps/a/obs.json", "{}")
        try directory.write("dumps/b/obs.json", "{}")
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(try run("/bin/chmod", ["-R", "a+rX", directory.file("dumps")]).status == 0)
        try FileSystem.makeDirectories(directory.file("out"))
        #expect(chmod(directory.file("out"), 0o777) == 0)
        #expect(chmod(directory.file("dumps/b"), 0) == 0)
        let arguments = ["init", "mine", "--inat", directory.file("dumps/*/obs.json"), "--output", directory.file("out/p.json")]
        func initialize() throws -> ProcessResult {
            getuid() == 0
                ? try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "\(bin)/fieldpack-pipeline"] + arguments)
                : try run("\(bin)/fieldpack-pipeline", arguments)
        }
        let refused = try initialize()
        #expect(refused.status == 1)
        #expect(refused.stderr.contains(
            "\(directory.file("dumps/*/obs.json")): error: given with --inat: \"\(directory.file("dumps/*/obs.json"))\": cannot enter the folder \"\(directory.file("dumps/b"))\": Permission denied"),
            "\(refused.stderr)")
        // A folder that may be entered but not listed serves a name looked up in it.
        #expect(chmod(directory.file("dumps/b"), 0o711) == 0)
        let entered = try initialize()
        #expect(entered.status == 0, "\(entered.stderr)")
        // One whose listing the pattern needs (`dumps/*/*.json`) may not be unlisted.
        #expect(chmod(directory.file("dumps/b"), 0o311) == 0)
        let listed = try run(getuid() == 0 ? "/usr/bin/setpriv" : "\(bin)/fieldpack-pipeline",
            (getuid() == 0 ? ["--reuid=65534", "--regid=65534", "--clear-groups", "\(bin)/fieldpack-pipeline"] : [])
                + ["init", "mine", "--inat", directory.file("dumps/*/*.json"), "--output", directory.file("out/q.json")])
        #expect(listed.status == 1 && listed.stderr.contains("cannot read the folder \"\(directory.file("dumps/b"))\": Permission denied"), "\(listed.stderr)")
    }

    /// A file whose name is not UTF-8 (a Latin-1 name from an old archive) was listed with its
    /// bytes lost, then could not be opened: "cannot open: No such file or directory", for a
    /// file that is there.
    @Test func aFileWhoseNameIsNotUTF8InAnInputFolderIsNamedByItsBytes() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/page.json", "{}")
        // A note of that kind is never read: it is no error.
        #expect(try run("/usr/bin/python3", ["-c", "open(b'\(directory.file("dumps"))/notes-caf\\xe9.txt', 'wb').close()"]).status == 0)
        #expect(try Pipeline.resolve([directory.file("dumps")], key: "inat", pipelinePath: "p.json").files == [directory.file("dumps/page.json")])
        #expect(try run("/usr/bin/python3", ["-c", "open(b'\(directory.file("dumps"))/caf\\xe9.json', 'wb').close()"]).status == 0)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.resolve([directory.file("dumps")], key: "inat", pipelinePath: "p.json") }
        #expect(error.path == directory.file("dumps"), "\(error)")
        #expect(error.message.hasPrefix("holds a file whose name is not UTF-8 (\"caf\\xE9.json\")"), "\(error)")
    }

    /// A link back to a folder being walked was followed 40 levels deep, every level the whole
    /// tree again, and then named as a path 40 folders long.
    @Test func aLinkBackToAFolderBeingWalkedIsALoopNamedWhereItIs() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/sub/page.json", "{}")
        try FileManager.default.createSymbolicLink(atPath: directory.file("dumps/sub/up"), withDestinationPath: "..")
        let error = try #require(throws: FieldpackError.self) { try Pipeline.resolve([directory.file("dumps")], key: "inat", pipelinePath: "p.json") }
        #expect(error.message == "inat: \"\(directory.file("dumps/sub/up"))\" leads back to \"\(directory.file("dumps"))\", which holds it: a loop of links (remove the link, or name the folders it should read)")
        // A link to a folder beside it, not above it, is read (once per path, as before).
        try FileManager.default.removeItem(atPath: directory.file("dumps/sub/up"))
        try directory.write("other/more.json", "{}")
        try FileManager.default.createSymbolicLink(atPath: directory.file("dumps/other"), withDestinationPath: "../other")
        let resolved = try Pipeline.resolve([directory.file("dumps")], pipelinePath: "p.json")
        #expect(resolved.files == [directory.file("dumps/other/more.json"), directory.file("dumps/sub/page.json")])
    }

    /// A named pipe in an input folder was opened as a dump and hung ingest with no word.
    @Test func aNamedPipeInAnInputFolderIsAnErrorNotAWaitWithoutEnd() throws {
        let directory = try TemporaryDirectory()
        try directory.write("dumps/sub/page.json", "{}")
        #expect(mkfifo(directory.file("dumps/sub/pipe.json"), 0o600) == 0)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.resolve([directory.file("dumps")], key: "inat", pipelinePath: "p.json") }
        #expect(error.path == "p.json")
        #expect(error.message == "inat: \"\(directory.file("dumps/sub/pipe.json"))\" is a named pipe, socket or device, not a file: a folder's inputs must be files (give such an input by its own path)")
    }

    @Test(arguments: [
        (#"{"inat": ["x"]}"#, #"pipeline needs a string "name""#),
        (#"{"name": "../escape", "inat": ["x"]}"#,
         #"pipeline name "../escape" must be letters, digits, '.', '-' or '_' (it names build/<name>/)"#),
        (#"{"name": "ok"}"#, #"pipeline needs "inat": paths, folders or globs of iNaturalist dumps"#),
        (#"{"name": "ok", "inat": ["x"], "max_reject_rate": 2}"#, #""max_reject_rate" must be a number between 0 and 1"#),
        (#"{"name": "ok", "inat": ["x"], "repeat_filter_bytes": 1000}"#,
         #""repeat_filter_bytes" must be a whole number of bytes from 1048576 (1 MiB) to 17179869184 (16 GiB)"#),
        (#"{"name": "ok", "inat": ["x"], "repeat_filter_bytes": "1G"}"#,
         #""repeat_filter_bytes" must be a whole number of bytes from 1048576 (1 MiB) to 17179869184 (16 GiB)"#),
        (#"{"name": "ok", "inat": ["x"], "licenses": ["cc-by", "all-mine"]}"#, #""licenses" holds an unknown licence code "all-mine""#),
        (#"{"name": "ok", "inat": ["x"], "licenses": [5]}"#, #""licenses" holds a value that is not a licence code (a string such as "cc-by")"#),
        // An empty code allowed every unlicensed (all rights reserved) photo, without a word.
        (#"{"name": "ok", "inat": ["x"], "licenses": ["cc-by", ""]}"#,
         #""licenses" holds an empty code: write "all-rights-reserved" to ship photos without a licence"#),
        // An empty list shipped no photo, without a word.
        (#"{"name": "ok", "inat": ["x"], "licenses": []}"#,
         #""licenses" is empty, so no photo could ship: list the licences to ship, or leave it out for the default"#),
        // A box under half a pixel was 0 × 0 and every cost 0; "either side reaches" it always.
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "pin", "width": 0.1, "height": 0.1, "scale": 1}]}"#,
         "targets[0]: 0.1 × 0.1 points at scale 1.0 is a box of 0 × 0 pixels: each side needs at least 1 pixel"),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60}, {"name": "b", "width": 0.2, "height": 300}]}"#,
         "targets[1]: 0.2 × 300.0 points at scale 1.0 is a box of 0 × 300 pixels: each side needs at least 1 pixel"),
        // "EN" or "english" matched no dump line: a guide without articles, exit 0.
        (#"{"name": "ok", "inat": ["x"], "wikipedia_language": "EN"}"#,
         #""wikipedia_language" "EN": give the code of a Wikipedia as in its address, in lower case (en, de, pt, zh-yue, be-tarask, simple)"#),
        (#"{"name": "ok", "inat": ["x"], "wikipedia_language": "english"}"#,
         #""wikipedia_language" "english": give the code of a Wikipedia as in its address, in lower case (en, de, pt, zh-yue, be-tarask, simple)"#),
        (#"{"name": "ok", "inat": ["x"], "wikipedia_language": 7}"#,
         #""wikipedia_language" is not a string: give the code of a Wikipedia as in its address, in lower case (en, de, pt, zh-yue, be-tarask, simple)"#),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 10, "height": 10, "mode": "stretch"}]}"#,
         #"targets[0].mode must be "fill" or "fit""#),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 0, "height": 10}]}"#,
         "targets[0] needs a name and a positive width and height in points"),
        // Every number is range-checked before it is used (issue 15, item 10: 1e300 crashed).
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 1e300, "height": 10}]}"#,
         "targets[0].width must be at most 10000 (is 1e+300)"),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 10, "height": 20000}]}"#,
         "targets[0].height must be at most 10000 (is 20000)"),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 10, "height": 10, "scale": 1e20}]}"#,
         "targets[0].scale must be at most 10 (is 1e+20)"),
        (#"{"name": "ok", "inat": ["x"], "memory_budget_bytes": 9007199254740993}"#,
         #""memory_budget_bytes" must be at most 1099511627776 (is 9007199254740993)"#),
        (#"{"name": "ok", "inat": ["x"], "costs": {"bytes_per_pixel": 1000000}}"#,
         "costs.bytes_per_pixel must be at most 16 (is 1000000)"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"row_alignment": 100000}}"#,
         "costs.row_alignment must be at most 4096 (is 100000)"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"assumed_original": [1, 1000000000]}}"#,
         "costs.assumed_original must be at most 100000 (is 1000000000)"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"download_bytes_per_pixel": {"small": 1e100}}}"#,
         "costs.download_bytes_per_pixel.small must be at most 16 (is 1e+100)"),
        // A key of the wrong type is refused, never taken for an absent one ("scale": "3" gave a
        // scale of 1, and the app fetched the 75-px square for a 180-px cell).
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60, "scale": "3"}]}"#,
         "targets[0].scale is a string, expected a positive number"),
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60, "mode": 0}]}"#,
         #"targets[0].mode must be "fill" or "fit""#),
        (#"{"name": "ok", "inat": ["x"], "costs": {"bytes_per_pixel": "8"}}"#,
         "costs.bytes_per_pixel is a string, expected a whole number"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"row_alignment": 64.5}}"#,
         "costs.row_alignment is a non-integer number, expected a whole number"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"assumed_original": ["4032", 3024, 2000]}}"#,
         "costs.assumed_original must be [width, height]"),
        (#"{"name": "ok", "inat": ["x"], "costs": {"download_bytes_per_pixel": 0.5}}"#,
         #"costs.download_bytes_per_pixel is a non-integer number, expected an object of tiers and bytes per pixel ({"small": 0.3})"#),
        // A misspelt key is an error, never a setting silently left out (a comment starts with _).
        (#"{"name": "ok", "inat": ["x"], "wikipdia": ["dumps"]}"#,
         #""wikipdia" is not a pipeline key (name, inat, max_reject_rate, licenses, targets, memory_budget_bytes, costs, wikipedia, destinations, wikipedia_language, wikipedia_skip_sections, wikipedia_summary_length, open_data_date, repeat_filter_bytes, select); a key starting with _ is a comment"#),
        (#"{"name": "ok", "inat": ["x"], "costs": {"measured_size": "sizes.csv"}}"#,
         "costs.measured_size is not a costs setting (bytes_per_pixel, row_alignment, assumed_original, download_bytes_per_pixel, measured_sizes); a key starting with _ is a comment"),
        // Inside a target ("scael" gave a scale of 1) and a destination too.
        (#"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60, "scael": 3}]}"#,
         "targets[0].scael is not a display target's key (name, width, height, scale, mode); a key starting with _ is a comment"),
        (#"{"name": "ok", "inat": ["x"], "destinations": [{"id": "d", "name": "D", "wikipedia": "D"}, {"id": "e", "name": "E", "wikidta": "Q1"}]}"#,
         "destinations[1].wikidta is not a destination's key (id, name, wikipedia, wikidata); a key starting with _ is a comment"),
        // Two pages when they disagreed: one linked, the other shipped with nothing linking it.
        (#"{"name": "ok", "inat": ["x"], "destinations": [{"id": "d", "name": "Dog park", "wikipedia": "Dog", "wikidata": "Q652941"}]}"#,
         #"destinations[0] gives both a "wikipedia" title and a "wikidata" QID: give one (the QID names the page whatever its title)"#),
        (#"{"name": "ok", "inat": ["x"], "open_data_date": "2024-02-30"}"#,
         #""open_data_date" is "2024-02-30", a day that does not exist"#),
        // A file the pipeline names is checked with the setting, not later by the stage that opens it.
        (#"{"name": "ok", "inat": ["x"], "costs": {"measured_sizes": "nowhere/sizes.csv"}}"#,
         #"costs.measured_sizes "nowhere/sizes.csv" is not a file (a path from where make runs, as the inputs' are)"#),
    ])
    func aBadPipelineIsRefusedWithItsPathAndTheReason(text: String, reason: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.json", text)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == path)
        #expect(error.message == reason)
    }

    /// Real wikis' codes as their addresses write them pass the language rule.
    @Test(arguments: ["en", "de", "pt", "ceb", "zh-yue", "zh-min-nan", "zh-classical", "be-tarask", "be-x-old", "map-bms", "roa-tara", "nds-nl", "cbk-zam", "simple"])
    func aWikipediaLanguageAsItsAddressWritesItIsRead(code: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("p.json", "{\"name\": \"ok\", \"inat\": [\"x\"], \"wikipedia_language\": \"\(code)\"}")
        #expect(try Pipeline.load(path).wikipediaLanguage == code)
    }

    /// A Wikipedia input that does not exist fails ingest, the first stage, naming the key: the
    /// wiki stage, which reads it, runs only after ingest and dedupe.
    @Test func anInputThatDoesNotExistIsNamedWithItsKey() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("p.json", #"{"name": "ok", "inat": ["\#(directory.path)"], "wikipedia": ["\#(directory.file("dumps/missing.ndjson"))"]}"#)
        let pipeline = try Pipeline.load(path)
        let error = try #require(throws: FieldpackError.self) { try pipeline.resolveWikipediaInputs() }
        #expect(error.message == "wikipedia: input \"\(directory.file("dumps/missing.ndjson"))\" does not exist")
    }

    /// A pipeline saved by Notepad starts with a byte order mark: read as every input is (it was
    /// "not valid JSON"). A key given twice is refused by its path (the first value counted,
    /// silently).
    @Test func aByteOrderMarkIsPassedOverAndAKeyGivenTwiceIsRefused() throws {
        let directory = try TemporaryDirectory()
        let marked = try directory.write("bom.json", "\u{FEFF}{\"name\": \"ok\", \"inat\": [\"x\"]}")
        #expect(try Pipeline.load(marked).name == "ok")
        let twice = try directory.write("twice.json", #"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60, "width": 90}], "name": "other"}"#)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(twice) }
        #expect(error.path == twice && error.message == "\"name\" is given 2 times: give each key once", "\(error)")
        let nested = try directory.write("nested.json", #"{"name": "ok", "inat": ["x"], "targets": [{"name": "a", "width": 60, "height": 60, "width": 90}]}"#)
        let inner = try #require(throws: FieldpackError.self) { try Pipeline.load(nested) }
        #expect(inner.message == "\"targets[0].width\" is given 2 times: give each key once", "\(inner)")
        // Comments may repeat, and so may keys inside what a comment holds.
        let comments = try directory.write("comments.json", #"{"_": "park guide", "name": "ok", "inat": ["x"], "_": "licences checked", "targets": [{"_n": 1, "_n": 2, "name": "a", "width": 60, "height": 60}], "_old": {"a": 1, "a": 2}}"#)
        #expect(try Pipeline.load(comments).name == "ok")
        // A GeoJSON file that select names, with a byte order mark too.
        let park = directory.file("park.geojson")
        try Data([0xEF, 0xBB, 0xBF] + Array(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#.utf8)).write(to: URL(fileURLWithPath: park))
        let selecting = try directory.write("select.json", #"{"name": "ok", "inat": ["x"], "select": {"geojson": "\#(park)"}}"#)
        #expect(try Pipeline.load(selecting).selection?.places.polygons.count == 1)
    }

    @Test func aKeyStartingWithAnUnderscoreIsAComment() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("commented.json", #"""
            {"_comment": "the park's guide", "name": "ok", "inat": ["x"], "costs": {"_note": "defaults", "download_bytes_per_pixel": {"_why": "measured", "small": 0.3}},
             "targets": [{"_why": "list", "name": "a", "width": 60, "height": 60}],
             "destinations": [{"_from": "tourism office", "id": "d", "name": "D", "wikipedia": "D"}],
             "select": {"_region": "Benelux", "taxa": {"_n": 1, "include": [3]}, "observed": {"_since": "spring", "from": "2024-01-01"},
                        "caps": {"_why": "size", "photos_per_taxon": 2}}}
            """#)
        let pipeline = try Pipeline.load(path)
        #expect(pipeline.name == "ok" && pipeline.shipping.targets.count == 1 && pipeline.destinations.count == 1)
        #expect(pipeline.selection?.caps.photosPerTaxon == 2 && pipeline.selection?.observedFrom == "2024-01-01")
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        ("2024-05-01T10:00:00Z", Int64(1_714_557_600_000)),
        ("2024-05-01T12:00:00+02:00", 1_714_557_600_000),
        ("2024-05-01T05:30:00-04:30", 1_714_557_600_000),
        ("2024-05-01T10:00:00.250Z", 1_714_557_600_250),
        ("2024-05-01", 1_714_521_600_000),
        ("2024-05-01 10:00:00", 1_714_557_600_000),
        ("1969-12-31T23:59:59Z", -1000),
        ("2024-05-01T10:00:00-18:00", Int64(1_714_557_600_000 + 18 * 3_600_000)),
    ])
    func isoTimestampsBecomeUnixMilliseconds(text: String, millis: Int64) {
        #expect(Timestamp.parse(text) == millis)
    }

    @Test(arguments: ["", "yesterday", "2024-13-01", "2024-05-01T25:00:00Z", "2024-05-01T10:00:00+0", "2024-05-01T10:00:00Zjunk",
                      "2024-05-01T10:00:00+99:00", "2024-05-01T10:00:00+18:59", "2024-05-01T10:00:00-19:00", "2024-05-01T10:00:00+05:60"])
    func malformedTimestampsAreRefused(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func secondsFormatBackAsUTC() {
        #expect(Timestamp.iso8601(seconds: 1_700_000_000) == "2023-11-14T22:13:20Z")
        #expect(Timestamp.iso8601(seconds: 0) == "1970-01-01T00:00:00Z")
    }
}

@Suite struct GzipTests {
    @Test func concatenatedGzipMembersReadAsOneStream() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.writeGzip("one.gz", observationJSON(id: 1) + "\n")
        let second = try directory.writeGzip("two.gz", observationJSON(id: 2) + "\n")
        let joined = directory.file("joined.jsonl.gz")
        var data = try Data(contentsOf: URL(fileURLWithPath: first))
        data.append(try Data(contentsOf: URL(fileURLWithPath: second)))
        try data.write(to: URL(fileURLWithPath: joined))
        var options = INatIngest.Options(inputs: [joined], output: directory.file("r.jsonl"), rejects: directory.file("x.jsonl"))
        options.maxRejectRate = 0
        let summary = try INatIngest(options: options).run()
        #expect(summary.accepted == 2)
        #expect(summary.files.first?.format == "gzip+json-lines")
        #expect(summary.files.first?.sha256 == (try SHA256.hex(ofFile: joined).digest))
    }

    /// `--print-name` (make reads it as it reads the Makefile, once per Slurm task too) reads the
    /// pipeline's name alone, not the files its settings name: a large GeoJSON was read each time.
    @Test func aPipelinesNameIsReadWithoutItsSettingsFiles() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try directory.write("p.json", #"{"name": "guide", "inat": ["x"], "select": {"geojson": "missing.geojson"}}"#)
        #expect(try Pipeline.name(at: pipeline) == "guide")
        #expect(throws: FieldpackError.self) { try Pipeline.load(pipeline) }
        let badName = try directory.write("q.json", #"{"name": "../guide", "inat": ["x"]}"#)
        #expect(throws: FieldpackError.self) { try Pipeline.name(at: badName) }
    }

    /// An output a walk of an input folder would read next time is refused; one beside a glob's
    /// matches is not (a glob's folders are watched, never walked: `"inat": ["dumps/obs-*.json"]`
    /// refused `dumps/records.jsonl`), nor one in a pipeline's build folder, nor a hidden one.
    @Test func onlyAnOutputAWalkWouldReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("dumps/obs-1.json", "{}")
        _ = try directory.write("walked/page.json", "{}")
        _ = try directory.write("walked/build/guide/.pipeline", "p.json\n")
        let globbed = try Pipeline.resolve([directory.file("dumps/obs-*.json")], pipelinePath: directory.file("p.json"))
        #expect(globbed.walked.isEmpty)
        try Pipeline.refuseOutputsInWalkedFolders([directory.file("dumps/records.jsonl")], folders: globbed.walked)
        let folder = try Pipeline.resolve([directory.file("walked")], pipelinePath: directory.file("p.json"))
        for refused in ["walked/records.jsonl", "walked/new/part/rejects.jsonl", "walked/build/records.jsonl"] {
            #expect(throws: FieldpackError.self, "\(refused)") {
                try Pipeline.refuseOutputsInWalkedFolders([directory.file(refused)], folders: folder.walked)
            }
        }
        for allowed in ["walked/build/guide/inat/records.jsonl", "walked/.cache/records.jsonl", "walked/notes.md", "out/records.jsonl"] {
            try Pipeline.refuseOutputsInWalkedFolders([directory.file(allowed)], folders: folder.walked)
        }
    }
}
