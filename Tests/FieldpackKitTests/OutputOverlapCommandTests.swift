import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A sample build's files in one folder: the pipeline (with measured sizes and a GeoJSON
/// selection), ingest's records, dedupe's, the wiki stage's articles, the bundle database.
struct SampleStageBuild {
    let directory: TemporaryDirectory
    var pipeline: String { directory.file("p.json") }
    func file(_ name: String) -> String { directory.file(name) }

    init(bin: String) throws {
        directory = try TemporaryDirectory()
        let sizes = try directory.write("sizes.csv", try String(contentsOfFile: "\(repositoryRoot)/sample-data/costs/measured-sizes.csv", encoding: .utf8))
        let places = try directory.write("park.geojson", try String(contentsOfFile: "\(repositoryRoot)/sample-data/select/madeira.geojson", encoding: .utf8))
        _ = try directory.write("p.json", """
            {"name": "overlap", "inat": ["\(repositoryRoot)/sample-data/inat"], "max_reject_rate": 0.2,
             "wikipedia": ["\(repositoryRoot)/sample-data/wiki"],
             "destinations": [{"id": "serengeti", "name": "Serengeti National Park", "wikidata": "Q5094612"}],
             "costs": {"measured_sizes": "\(sizes)"},
             "select": {"bbox": [-180, -90, 180, 90], "geojson": "\(places)", "obscured": "point"}}
            """)
        let steps: [(String, [String])] = [
            ("inat", ["--pipeline", pipeline, "--output", directory.file("records.jsonl"), "--rejects", directory.file("rejects.jsonl")]),
            ("dedupe", [directory.file("records.jsonl"), "--pipeline", pipeline, "--output", directory.file("deduped.jsonl"),
                        "--conflicts", directory.file("conflicts.json")]),
            ("wiki", ["--pipeline", pipeline, "--records", directory.file("deduped.jsonl"), "--output", directory.file("articles.jsonl"),
                      "--report", directory.file("wiki-report.json"), "--rejects", directory.file("wiki-rejects.jsonl")]),
            ("bundle", [directory.file("deduped.jsonl"), "--pipeline", pipeline, "--articles", directory.file("articles.jsonl"),
                        "--output", directory.file("content.sqlite")]),
        ]
        for (stage, arguments) in steps {
            let result = try run("\(bin)/fieldpack-\(stage)", arguments)
            try #require(result.status == 0, "fieldpack-\(stage): \(result.stderr)")
        }
    }

    /// Every file's bytes, by its path in the folder (its subfolders' too).
    func contents() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) where !FileSystem.isDirectory(file(name)) {
            files[name] = try Data(contentsOf: URL(fileURLWithPath: file(name)))
        }
        return files
    }
}


/// No executable writes over a file its run reads, whichever of its outputs names it: the
/// depfile and the stamp are outputs like the others, and the pipeline file, its GeoJSON and
/// measured sizes, the wiki stage's records and the report's database are inputs like the
/// dumps. Each of these runs replaced the file and most exited 0 (the depfiles were written
/// before any check). Runs the built executables (`FIELDPACK_BIN`).
@Suite struct OutputOverlapCommandTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    @Test(.enabled(if: binaries != nil))
    func anOutputOrADepfileOrAStampNamingAnInputOfTheRunIsRefusedBeforeAnythingIsWritten() throws {
        let bin = try #require(Self.binaries)
        let build = try SampleStageBuild(bin: bin)
        let f = build.file
        let timings = build.file("timings")
        try FileManager.default.createDirectory(atPath: timings, withIntermediateDirectories: true)
        _ = try build.directory.write("timings/bundle.json", "{}\n")
        let inat = ["--pipeline", build.pipeline]
        let dedupe = [f("records.jsonl"), "--pipeline", build.pipeline]
        let wiki = ["--pipeline", build.pipeline, "--records", f("deduped.jsonl")]
        let wikiOutputs = ["--output", f("a2.jsonl"), "--report", f("w2.json"), "--rejects", f("r2.jsonl")]
        let bundle = [f("deduped.jsonl"), "--pipeline", build.pipeline, "--articles", f("articles.jsonl")]
        let input = "is also an input of this run"
        let cases: [(stage: String, arguments: [String], refused: String, reason: String)] = [
            ("inat", inat + ["--output", build.pipeline, "--rejects", f("r.jsonl")], build.pipeline, input),
            ("inat", inat + ["--output", f("o.jsonl"), "--rejects", f("r.jsonl"), "--depfile", f("sizes.csv")], f("sizes.csv"), input),
            ("dedupe", dedupe + ["--output", f("d.jsonl"), "--conflicts", f("c.json"), "--depfile", f("records.jsonl")], f("records.jsonl"), input),
            ("dedupe", dedupe + ["--output", f("d.jsonl"), "--conflicts", build.pipeline], build.pipeline, input),
            ("dedupe", dedupe + ["--output", f("park.geojson"), "--conflicts", f("c.json")], f("park.geojson"), input),
            ("wiki", wiki + ["--output", f("deduped.jsonl"), "--report", f("w2.json"), "--rejects", f("r2.jsonl")], f("deduped.jsonl"), input),
            ("wiki", wiki + wikiOutputs + ["--depfile", f("deduped.jsonl")], f("deduped.jsonl"), input),
            ("wiki", wiki + wikiOutputs + ["--stamp", build.pipeline], build.pipeline, input),
            ("bundle", bundle + ["--output", f("c2.sqlite"), "--depfile", f("deduped.jsonl")], f("deduped.jsonl"), input),
            ("bundle", bundle + ["--output", f("c2.sqlite"), "--costs-report", build.pipeline], build.pipeline, input),
            ("bundle", bundle + ["--output", f("c2.sqlite"), "--inputs", f("sizes.csv")], f("sizes.csv"), input),
            ("bundle", bundle + ["--output", f("c2.sqlite"), "--depfile", f("c2.sqlite")], f("c2.sqlite"), "is named by two outputs of this run"),
            ("report", [f("content.sqlite"), "--output", f("content.sqlite")], f("content.sqlite"), input),
            ("report", [f("content.sqlite"), "--output", f("rejects.jsonl"), "--rejects", f("rejects.jsonl")], f("rejects.jsonl"), input),
            ("report", ["--timings", timings, "--output", "\(timings)/bundle.json"], "\(timings)/bundle.json", "is inside \(timings), which this run reads"),
            ("pipeline", ["init", "mine", "--inat", f("records.jsonl"), "--output", f("records.jsonl")], f("records.jsonl"), input),
            // The previous bundle is an input of every output but --output.
            ("bundle", bundle + ["--output", f("c2.sqlite"), "--previous", f("content.sqlite"), "--delta", f("d.json"), "--depfile", f("content.sqlite")],
             f("content.sqlite"), input),
            // Files inside a folder input: a sharded ingest's parts (also through a link to the
            // folder), a folder of wiki parts.
            ("dedupe", [f("shards"), "--shard", "0/1", "--output", f("d.jsonl"), "--conflicts", f("shards/shard-0-of-1/part-0.jsonl")],
             f("shards/shard-0-of-1/part-0.jsonl"), "is inside \(f("shards")), which this run reads"),
            ("dedupe", [f("shards-link"), "--shard", "0/1", "--output", f("d.jsonl"), "--conflicts", f("shards/shard-0-of-1/part-0.jsonl")],
             f("shards/shard-0-of-1/part-0.jsonl"), "is inside \(f("shards-link")), which this run reads"),
            ("bundle", [f("deduped.jsonl"), "--pipeline", build.pipeline, "--articles", f("wparts"), "--output", f("c2.sqlite"), "--depfile", f("wparts/articles.jsonl")],
             f("wparts/articles.jsonl"), "is inside \(f("wparts")), which this run reads"),
            // Through a folder not made yet: `new/../x` is `./x` (it was compared by its spelling,
            // and the input was replaced, exit 0).
            ("dedupe", dedupe + ["--output", "\(f("nosuch"))/../records.jsonl", "--conflicts", f("c.json")], "\(f("nosuch"))/../records.jsonl", input),
            ("report", [f("content.sqlite"), "--output", "\(f("q"))/../content.sqlite"], "\(f("q"))/../content.sqlite", input),
            ("dedupe", dedupe + ["--output", f("x.jsonl"), "--conflicts", "\(f("n"))/../x.jsonl"], "\(f("n"))/../x.jsonl", "is named by two outputs of this run"),
            // `-` as an output made a file named `-` in the working folder.
            ("report", [f("content.sqlite"), "--output", "-"], "-", "names standard input or output, and an output is a file"),
            // The merged rejects of a sharded ingest: not into the shards' folders it reads.
            ("inat", ["--merge-rejects", f("shards"), "--shards", "1", "--rejects", f("shards/shard-0-of-1/summary.json")],
             f("shards/shard-0-of-1/summary.json"), "is inside \(f("shards/shard-0-of-1")), which this run reads"),
            // Inside an input folder the run walks (the next run read it as a dump, or refused).
            ("inat", [f("pages"), "--output", f("pages/records.jsonl"), "--rejects", f("r.jsonl")], f("pages/records.jsonl"),
             "is inside the input folder \(f("pages")), which this run reads"),
            ("inat", [f("pages"), "--output", f("o.jsonl"), "--rejects", f("pages/new/rejects.jsonl")], f("pages/new/rejects.jsonl"),
             "is inside the input folder \(f("pages")), which this run reads"),
            ("pipeline", ["init", "mine", "--inat", f("pages"), "--output", f("pages/p.json")], f("pages/p.json"),
             "is inside the input folder \(f("pages")), which this run reads"),
        ]
        try FileManager.default.createDirectory(atPath: f("pages"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/inat/observations-page-1.json", toPath: f("pages/page-1.json"))
        try FileManager.default.createSymbolicLink(atPath: f("shards-link"), withDestinationPath: f("shards"))
        try FileManager.default.createDirectory(atPath: f("wparts"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f("articles.jsonl"), toPath: f("wparts/articles.jsonl"))
        let sharded = try run("\(bin)/fieldpack-inat", ["--pipeline", build.pipeline, "--shard", "0/1", "--output-folder", f("shards/shard-0-of-1")])
        try #require(sharded.status == 0, "\(sharded.stderr)")
        let before = try build.contents()
        let timing = try Data(contentsOf: URL(fileURLWithPath: "\(timings)/bundle.json"))
        for test in cases {
            let result = try run("\(bin)/fieldpack-\(test.stage)", test.arguments)
            let command = "fieldpack-\(test.stage) \(test.arguments.joined(separator: " "))"
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("\(test.refused): error: \(test.reason)"), "\(command): \(result.stderr)")
            #expect(try build.contents() == before, "\(command) changed the build's files")
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(timings)/bundle.json")) == timing)
        }
    }

    /// A shard's --output-folder holding one of its inputs: the shard would write over it. And
    /// an output ending in '/' names a folder: it was made, then refused mid-run.
    @Test(.enabled(if: binaries != nil))
    func anInputInsideAShardsOutputFolderAndAnOutputEndingInASlashAreRefused() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let page = try directory.write("od/summary.json", "{\"results\": [], \"total_results\": 0, \"page\": 1, \"per_page\": 30}\n")
        let before = try text(page)
        let inside = try run("\(bin)/fieldpack-inat", [page, "--output-folder", directory.file("od"), "--shard", "0/1"])
        #expect(inside.status == 1)
        #expect(inside.stderr.hasPrefix("\(page): error: is inside --output-folder \(directory.file("od")), which the shard writes"), "\(inside.stderr)")
        #expect(try text(page) == before)
        let slash = try run("\(bin)/fieldpack-inat", [page, "--output", directory.file("newdir/"), "--rejects", directory.file("r.jsonl")])
        #expect(slash.status == 1)
        #expect(slash.stderr.hasPrefix("\(directory.file("newdir/")): error: names a folder (it ends in '/')"), "\(slash.stderr)")
        #expect(!FileSystem.exists(directory.file("newdir")))
    }

    /// `migrate --output` inside the bundle folder it migrates: the folder then held a file its
    /// manifest does not list, failed its check, and was refused as --previous from then on.
    @Test(.enabled(if: binaries != nil))
    func migratingIntoTheSourceBundlesFolderIsRefused() throws {
        let bin = try #require(Self.binaries)
        let build = try SampleStageBuild(bin: bin)
        let bundle = build.file("bundle")
        let published = try run("\(bin)/fieldpack-manifest", [build.file("content.sqlite"), "--output", bundle])
        try #require(published.status == 0, "\(published.stderr)")
        try FileManager.default.createSymbolicLink(atPath: build.file("to-database.sqlite"), withDestinationPath: "\(bundle)/content.sqlite")
        for (source, output) in [
            (bundle, "\(bundle)/migrated.sqlite"), (bundle, "\(bundle)/new/migrated.sqlite"),
            ("\(bundle)/content.sqlite", "\(bundle)/migrated.sqlite"),  // the database named, in its bundle's folder
            (build.file("to-database.sqlite"), "\(bundle)/migrated.sqlite"),  // through a link to it
            (bundle, "\(build.file("new"))/../bundle/migrated.sqlite"),  // through a folder not made yet
        ] {
            let result = try run("\(bin)/fieldpack-bundle", ["migrate", source, "--output", output])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("\(output): error: is inside the bundle folder \(bundle) it migrates"), "\(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted() == ["content.sqlite", "manifest-sha256.txt", "manifest.json"])
        #expect(try run("\(bin)/fieldpack-verify", [bundle]).status == 0)
        #expect(try run("\(bin)/fieldpack-bundle", ["migrate", bundle, "--output", build.file("migrated.sqlite")]).status == 0)
        // A link to a previous bundle's database is read as the database (make follows it too).
        try FileManager.default.createSymbolicLink(atPath: build.file("previous-link.sqlite"), withDestinationPath: "\(bundle)/content.sqlite")
        let linked = try run("\(bin)/fieldpack-bundle", [
            build.file("deduped.jsonl"), "--pipeline", build.pipeline, "--articles", build.file("articles.jsonl"),
            "--output", build.file("c3.sqlite"), "--previous", build.file("previous-link.sqlite"), "--delta", build.file("d3.json"),
        ])
        #expect(linked.status == 0, "\(linked.stderr)")
        // An output inside the previous bundle's folder (every output but --output) is refused.
        let inside = try run("\(bin)/fieldpack-bundle", [
            build.file("deduped.jsonl"), "--pipeline", build.pipeline, "--articles", build.file("articles.jsonl"),
            "--output", build.file("c4.sqlite"), "--previous", bundle, "--delta", "\(bundle)/delta.json",
        ])
        #expect(inside.status == 1)
        #expect(inside.stderr.hasPrefix("\(bundle)/delta.json: error: is inside \(bundle), which this run reads"), "\(inside.stderr)")
        // The same with the previous bundle named by its database.
        let byDatabase = try run("\(bin)/fieldpack-bundle", [
            build.file("deduped.jsonl"), "--pipeline", build.pipeline, "--articles", build.file("articles.jsonl"),
            "--output", build.file("c4.sqlite"), "--previous", "\(bundle)/content.sqlite", "--delta", "\(bundle)/delta.json",
        ])
        #expect(byDatabase.status == 1)
        #expect(byDatabase.stderr.hasPrefix("\(bundle)/delta.json: error: is inside \(bundle), which this run reads"), "\(byDatabase.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted() == ["content.sqlite", "manifest-sha256.txt", "manifest.json"])
    }

    /// A FIFO named by the wiki stage's stamp was refused only after its three outputs were
    /// published.
    @Test(.enabled(if: binaries != nil))
    func aStampThatIsAFIFOIsRefusedBeforeTheOutputsArePublished() throws {
        let bin = try #require(Self.binaries)
        let build = try SampleStageBuild(bin: bin)
        #expect(mkfifo(build.file("stamp"), 0o644) == 0)
        let result = try run("\(bin)/fieldpack-wiki", [
            "--pipeline", build.pipeline, "--records", build.file("deduped.jsonl"), "--output", build.file("a2.jsonl"),
            "--report", build.file("w2.json"), "--rejects", build.file("r2.jsonl"), "--stamp", build.file("stamp"),
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(build.file("stamp")): error: is not a regular file"), "\(result.stderr)")
        for name in ["a2.jsonl", "w2.json", "r2.jsonl"] { #expect(!FileSystem.exists(build.file(name)), "\(name) was published") }
    }

    /// `fieldpack-pipeline init --output` replaced any file there that had no record of being
    /// written by it: a pipeline written by hand was lost, also one with only init's keys. One
    /// that is exactly what init writes (a file from before the records) is still written over.
    @Test(.enabled(if: binaries != nil))
    func pipelineInitDoesNotWriteOverAPipelineItDidNotWrite() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let dumps = "\(repositoryRoot)/sample-data/inat"
        // One with other keys, and one with only init's keys but written by hand.
        for handWritten in [
            "{\"name\": \"mine\", \"inat\": [\"dumps\"], \"licenses\": [\"cc0\"]}\n",
            "{\"name\": \"mine\", \"inat\": [\"dumps\"], \"wikipedia\": [\"wiki\"]}\n",
        ] {
            let hand = try directory.write("hand.json", handWritten)
            let refused = try run("\(bin)/fieldpack-pipeline", ["init", "mine", "--inat", dumps, "--output", hand])
            #expect(refused.status == 1)
            #expect(refused.stderr.hasPrefix("\(hand): error: is a pipeline file this command did not write"), "\(refused.stderr)")
            #expect(try String(contentsOfFile: hand, encoding: .utf8) == handWritten)
        }
        // What init wrote before it kept records (its own layout), without the record.
        let printed = try run("\(bin)/fieldpack-pipeline", ["init", "mine", "--inat", "\(repositoryRoot)/sample-data/open-data"])
        try #require(printed.status == 0, "\(printed.stderr)")
        let old = try directory.write("old.json", printed.stdout)
        let written = try run("\(bin)/fieldpack-pipeline", ["init", "mine", "--inat", dumps, "--output", old])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try String(contentsOfFile: old, encoding: .utf8).contains(dumps))
    }
}

/// A write that cannot start names the output the user gave, not the hidden temp file it is
/// written to first (`/out/.o.jsonl.tmp-22399@host-…: error: cannot create` named a file the user
/// never heard of). Runs as nobody (as root, through setpriv: root writes anywhere).
@Suite struct OutputCreateErrorTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func anOutputWhoseFolderCannotBeWrittenIsNamedNotItsTempFile() throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let input = try directory.write("page.json", page([observationJSON(id: 1)]))
        #expect(chmod(input, 0o644) == 0)
        let locked = directory.file("locked")
        #expect(mkdir(locked, 0o555) == 0)
        let open = directory.file("open")
        #expect(mkdir(open, 0o777) == 0)
        #expect(chmod(open, 0o777) == 0)
        let output = "\(locked)/o.jsonl"
        let arguments = [input, "--output", output, "--rejects", "\(open)/r.jsonl"]
        let inat = "\(bin)/fieldpack-inat"
        let result = getuid() == 0
            ? try run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", inat] + arguments)
            : try run(inat, arguments)
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(output): error: cannot write it: its temp file cannot be created in \(locked) (Permission denied)"), "\(result.stderr)")
        #expect(!result.stderr.contains(".o.jsonl.tmp-"), "\(result.stderr)")
    }
}

/// Several pipelines built as the tasks of one array job (`sbatch --array`, an Indexed Job) run
/// unsharded inside the engine's variables: the wiki stage took them for its shard and refused
/// ("shard 0/3 writes a part"), where ingest and dedupe read them only when sharded.
@Suite struct ArrayJobEnvironmentTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIELDPACK_BIN"] != nil))
    func anUnshardedWikiStageInsideAnArrayJobIsWhole() throws {
        let bin = try #require(ProcessInfo.processInfo.environment["FIELDPACK_BIN"])
        let build = try SampleStageBuild(bin: bin)
        let engines = [
            ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "3"],
            ["JOB_COMPLETION_INDEX": "2", "FIELDPACK_SHARDS": "4"],
            ["AWS_BATCH_JOB_ARRAY_INDEX": "1", "FIELDPACK_SHARDS": "2"],
        ]
        let whole = try Data(contentsOf: URL(fileURLWithPath: build.file("articles.jsonl")))
        for environment in engines {
            let result = try run("\(bin)/fieldpack-wiki", [
                "--pipeline", build.pipeline, "--records", build.file("deduped.jsonl"), "--output", build.file("a2.jsonl"),
                "--report", build.file("w2.json"), "--rejects", build.file("r2.jsonl"),
            ], environment: environment)
            #expect(result.status == 0, "\(environment): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: build.file("a2.jsonl"))) == whole, "\(environment)")
        }
    }
}
