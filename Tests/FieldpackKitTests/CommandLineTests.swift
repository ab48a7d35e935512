import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The command-line contract every `fieldpack-*` executable shares (README, "Exit codes and
/// diagnostics"): `--help` and `--version` exit 0 on stdout; bad usage exits 64 with the reason
/// and the usage line on stderr; a failure exits 1 with `path: error: …` on stderr; nothing but
/// data goes to stdout. Runs the built executables: needs `FIELDPACK_BIN`, skipped otherwise.
@Suite struct CommandLineTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]
    static let stages = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify", "synth", "sanitize", "pipeline"]

    /// One run of an executable: its arguments and what it must say.
    struct Case: Sendable, CustomTestStringConvertible {
        var stage: String
        var arguments: [String]
        var expected: String
        init(_ stage: String, _ arguments: [String], _ expected: String) {
            self.stage = stage
            self.arguments = arguments
            self.expected = expected
        }
        var testDescription: String { "fieldpack-\(stage) \(arguments.joined(separator: " "))" }
    }

    private func tool(_ stage: String) throws -> String {
        "\(try #require(Self.binaries))/fieldpack-\(stage)"
    }

    /// The usage block `--help` prints (everything before its first blank line).
    private func usageBlock(_ stage: String) throws -> String {
        let help = try run(try tool(stage), ["--help"])
        try #require(help.status == 0)
        let range = try #require(help.stdout.range(of: "\n\n"))
        return String(help.stdout[..<range.lowerBound])
    }

    /// The options the README gives each executable: its inputs and outputs, and the flags of
    /// its flag table ("all listed by `--help`"), and the two every executable has.
    static let documentedOptions: [String: [String]] = [
        "inat": ["--pipeline", "--print-name", "--output", "--rejects", "--max-reject-rate", "--workers", "--depfile", "--help", "--version", "--quiet"],
        "dedupe": ["--output", "--conflicts", "--examples", "--help", "--version", "--quiet"],
        "wiki": ["--pipeline", "--records", "--output", "--report", "--rejects", "--depfile", "--max-reject-rate", "--help", "--version", "--quiet"],
        "bundle": ["--pipeline", "--output", "--articles", "--source-date-epoch", "--costs-report", "--depfile", "--inputs",
                   "--previous", "--delta", "migrate", "--help", "--version", "--quiet"],
        "manifest": ["--output", "--include", "--inputs", "--sign", "--bagit", "--sha256", "--help", "--version", "--quiet"],
        "report": ["--output", "--rejects", "--wiki-report", "--timings", "--help", "--version", "--quiet"],
        "verify": ["--public-key", "--help", "--version", "--quiet"],
        "synth": ["--observations", "--seed", "--output", "--wiki-articles", "--parse-only", "--help", "--version", "--quiet"],
        "sanitize": ["--max-bytes", "--article", "--help", "--version", "--quiet"],
        "pipeline": ["init", "--inat", "--wikipedia", "--max-reject-rate", "--output", "--help", "--version"],
    ]

    @Test(.enabled(if: binaries != nil), arguments: stages)
    func helpPrintsTheUsageAndEveryDocumentedOptionOnStdoutAndNothingOnStderr(stage: String) throws {
        let help = try run(try tool(stage), ["--help"])
        #expect(help.status == 0)
        #expect(help.stderr == "")
        #expect(help.stdout.hasPrefix("usage: fieldpack-\(stage) "))
        // A usage block, a blank line, then the description.
        #expect(help.stdout.components(separatedBy: "\n\n").count >= 2)
        for option in try #require(Self.documentedOptions[stage]) {
            #expect(help.stdout.contains(option), "fieldpack-\(stage) --help does not mention \(option)")
        }
    }

    @Test(.enabled(if: binaries != nil), arguments: stages)
    func versionPrintsTheToolVersionAndTheLibrariesItRunsOn(stage: String) throws {
        let version = try run(try tool(stage), ["--version"])
        #expect(version.status == 0)
        #expect(version.stderr == "")
        // The executable links the same SQLite as this test process: ask SQLite itself.
        let directory = try TemporaryDirectory()
        let sqlite = try #require(try Database(path: directory.file("v.sqlite")).scalar("SELECT sqlite_version()"))
        #expect(version.stdout.hasPrefix("fieldpack-\(stage) 0.1.0 (SQLite \(sqlite), libxml2 "), "\(version.stdout)")
        #expect(version.stdout.hasSuffix(")\n"))
        #expect(version.stdout.split(separator: "\n").count == 1)
        // Every C library it reads its inputs or writes its outputs with, as loaded.
        let libarchive = try run("/bin/sh", ["-c", "dpkg-query -W -f='${Version}' libarchive13 | cut -d- -f1"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        for library in ["simdjson ", "libarchive \(libarchive)", "OpenSSL 3.", "ISA-L 2."] {
            #expect(version.stdout.contains(library), "\(library): \(version.stdout)")
        }
    }

    @Test(.enabled(if: binaries != nil), arguments: stages)
    func dashHIsHelp(stage: String) throws {
        let short = try run(try tool(stage), ["-h"])
        let long = try run(try tool(stage), ["--help"])
        #expect(short.status == 0)
        #expect(short.stderr == "")
        #expect(short.stdout == long.stdout)
    }

    @Test(.enabled(if: binaries != nil), arguments: stages)
    func anUnknownShortOptionExits64AndIsNotReadAsAFile(stage: String) throws {
        let bad = try run(try tool(stage), ["-x"])
        #expect(bad.status == 64)
        #expect(bad.stdout == "")
        #expect(bad.stderr == "fieldpack-\(stage): error: unknown option -x\n\(try usageBlock(stage))\n")
    }

    @Test(.enabled(if: binaries != nil), arguments: stages)
    func anUnknownOptionExits64WithTheReasonThenTheUsageOnStderr(stage: String) throws {
        let bad = try run(try tool(stage), ["--no-such-option"])
        #expect(bad.status == 64)
        #expect(bad.stdout == "")
        #expect(bad.stderr == "fieldpack-\(stage): error: unknown option --no-such-option\n\(try usageBlock(stage))\n")
    }

    /// Bad usage of each kind, in each executable: the exact reason, then the usage line.
    static let badUsage: [Case] = [
        // A required option is missing.
        Case("inat", ["in.json", "--rejects", "r.jsonl"], "--output is required"),
        Case("dedupe", ["records.jsonl", "--output", "out.jsonl"], "--conflicts is required"),
        Case("wiki", ["--records", "r.jsonl", "--output", "a.jsonl", "--report", "w.json", "--rejects", "j.jsonl"], "--pipeline is required"),
        Case("bundle", ["deduped.jsonl", "--output", "content.sqlite"], "--pipeline is required"),
        Case("manifest", ["content.sqlite"], "--output is required"),
        Case("report", ["content.sqlite"], "--output is required"),
        Case("report", ["a.sqlite", "b.sqlite", "--output", "report.html"], "give exactly one bundle database"),
        Case("synth", ["--seed", "1", "--output", "dir"], "--observations is required"),
        // The positional arguments are wrong.
        Case("verify", [], "give exactly one bundle folder"),
        Case("dedupe", ["a.jsonl", "b.jsonl", "--output", "o", "--conflicts", "c"], "give exactly one records file"),
        Case("bundle", ["migrate", "--output", "content.sqlite"], "give exactly one previous bundle to migrate"),
        Case("manifest", ["--sha256"], "give the files to hash"),
        Case("sanitize", ["stray.jsonl"], "reads standard input; give no files"),
        // An option without its value, a flag with one, a value that is not a number.
        Case("dedupe", ["records.jsonl", "--output"], "--output needs a value"),
        Case("verify", ["--help=yes"], "--help takes no value"),
        Case("dedupe", ["records.jsonl", "--output", "o", "--conflicts", "c", "--examples", "many"], "--examples must be an integer, not \"many\""),
        Case("inat", ["in.json", "--output", "o", "--rejects", "r", "--max-reject-rate", "2"], "--max-reject-rate must be between 0 and 1, not 2.0"),
        // The wiki stage took -1 (a limit of -100%) and 5 as they came.
        Case("wiki", ["--pipeline", "p.json", "--records", "r", "--output", "a", "--report", "w", "--rejects", "j", "--max-reject-rate", "5"],
             "--max-reject-rate must be between 0 and 1, not 5.0"),
        // --delta alone wrote no delta, with exit 0; migrate took and ignored the pipeline.
        Case("bundle", ["d.jsonl", "--pipeline", "p.json", "--output", "c.sqlite", "--delta", "delta.json"], "--delta compares with a previous bundle: give --previous FILE"),
        Case("bundle", ["migrate", "old.sqlite", "--output", "c.sqlite", "--pipeline", "p.json"], "migrate takes only --output: --pipeline has nothing to do with it"),
        Case("dedupe", ["--merge-conflicts", "part.jsonl", "--conflicts", "c.json", "--shard", "0/2"], "--merge-conflicts writes only --conflicts: --shard has nothing to do with it"),
        Case("sanitize", ["--max-bytes", "0"], "--max-bytes must be positive"),
        // Numbers out of range ran as if they made sense (no examples, one worker).
        Case("dedupe", ["records.jsonl", "--output", "o", "--conflicts", "c", "--examples", "-1"], "--examples must be at least 0, not -1"),
        Case("inat", ["in.json", "--output", "o", "--rejects", "r", "--workers", "0"], "--workers must be at least 1, not 0"),
        Case("synth", ["--observations", "10", "--seed", "1", "--output", "o", "--workers", "-3"], "--workers must be at least 1, not -3"),
        // A build date past 9999 was published ("3170843-11-07…"), one before 1970 too; a shard
        // count past the Makefile's crashed allocating its shards.
        Case("bundle", ["d.jsonl", "--pipeline", "p.json", "--output", "c.sqlite", "--source-date-epoch", "99999999999999"],
             "--source-date-epoch must be Unix seconds from 0 (1970-01-01) to 253402300799 (9999-12-31), not 99999999999999"),
        Case("bundle", ["d.jsonl", "--pipeline", "p.json", "--output", "c.sqlite", "--source-date-epoch", "-5"],
             "--source-date-epoch must be Unix seconds from 0 (1970-01-01) to 253402300799 (9999-12-31), not -5"),
        Case("inat", ["in.json", "--output-folder", "o", "--shard", "1/99999999999"],
             "a shard count must be at most 999999 (the Makefile's SHARDS too), not 99999999999"),
        Case("pipeline", ["init", "mine"], "give the iNaturalist dumps with --inat (make: INAT=…)"),
        Case("pipeline", ["init", "my data", "--inat", "dumps"], "the pipeline name \"my data\" must be letters, digits, '.', '-' or '_' (it names build/<name>/)"),
    ]

    @Test(.enabled(if: binaries != nil), arguments: badUsage)
    func badUsageExits64WithTheReasonAndTheUsageLine(_ usage: Case) throws {
        let (stage, arguments, reason) = (usage.stage, usage.arguments, usage.expected)
        let directory = try TemporaryDirectory()
        let result = try run(try tool(stage), arguments, directory: directory.path)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stdout == "")
        #expect(result.stderr == "fieldpack-\(stage): error: \(reason)\n\(try usageBlock(stage))\n")
        // Nothing was written.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    /// A failure in each executable: exit 1, the first diagnostic is `path: error: reason`,
    /// nothing on stdout, no usage line, and nothing written.
    static let failures: [Case] = [
        Case("inat", ["/nonexistent/in.json", "--output", "records.jsonl", "--rejects", "rejects.jsonl"], "/nonexistent/in.json: error: cannot open: No such file or directory"),
        Case("dedupe", ["/nonexistent/records.jsonl", "--output", "out.jsonl", "--conflicts", "c.json"], "/nonexistent/records.jsonl: error: cannot open: No such file or directory"),
        Case("wiki", ["--pipeline", "/nonexistent/p.json", "--records", "r", "--output", "a.jsonl", "--report", "w.json", "--rejects", "j.jsonl"], "/nonexistent/p.json: error: cannot open: No such file or directory"),
        Case("bundle", ["deduped.jsonl", "--pipeline", "/nonexistent/p.json", "--output", "content.sqlite"], "/nonexistent/p.json: error: cannot open: No such file or directory"),
        Case("manifest", ["/nonexistent/content.sqlite", "--output", "bundle"], "/nonexistent/content.sqlite: error: cannot open: No such file or directory"),
        Case("manifest", ["--sha256", "/nonexistent/file"], "/nonexistent/file: error: cannot open: No such file or directory"),
        Case("sanitize", ["--article", "/nonexistent/a.html"], "/nonexistent/a.html: error: cannot open: No such file or directory"),
        Case("synth", ["--parse-only", "/nonexistent/in.json"], "/nonexistent/in.json: error: cannot open: No such file or directory"),
        Case("verify", ["/nonexistent/bundle"], "/nonexistent/bundle: error: does not exist"),
        Case("pipeline", ["init", "mine", "--inat", "/nonexistent/dumps", "--output", "p.json"],
             "/nonexistent/dumps: error: given with --inat: no such file or folder, or a glob that matches nothing"),
        Case("report", ["/nonexistent/content.sqlite", "--output", "report.html"], "/nonexistent/content.sqlite: error: cannot open: No such file or directory"),
        Case("report", ["--timings", "/nonexistent/timings", "--output", "run.html"], "/nonexistent/timings: error: cannot list directory: No such file or directory"),
    ]

    @Test(.enabled(if: binaries != nil), arguments: failures)
    func aFailureExits1NamingThePathOnStderr(_ failure: Case) throws {
        let (stage, arguments, diagnostic) = (failure.stage, failure.arguments, failure.expected)
        let directory = try TemporaryDirectory()
        let result = try run(try tool(stage), arguments, directory: directory.path)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout == "")
        let first = try #require(result.stderr.split(separator: "\n").first.map(String.init))
        #expect(first == diagnostic, "\(result.stderr)")
        #expect(!result.stderr.contains("usage:"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
    }

    /// `--sha256` goes on past a file it cannot read, as `sha256sum` does: it stopped at the
    /// first, and the files after it were not hashed.
    @Test(.enabled(if: binaries != nil))
    func sha256HashesEveryReadableFileAndNamesTheOthers() throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.txt", "abc")
        let b = try directory.write("b.txt", "")
        let result = try run(try tool("manifest"), ["--sha256", a, "/nonexistent/file", b])
        #expect(result.status == 1)
        #expect(result.stdout == """
            ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  \(a)
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  \(b)

            """)
        #expect(result.stderr.hasPrefix("/nonexistent/file: error: cannot open: No such file or directory\n"), "\(result.stderr)")
        #expect(result.stderr.contains("error: 1 of 3 file(s) could not be hashed"), "\(result.stderr)")
    }

    @Test(.enabled(if: binaries != nil))
    func optionsMayBeSpelledWithEqualsTheLastValueWinsAndAfterTwoDashesAllArePositional() throws {
        let directory = try TemporaryDirectory()
        // `--examples=3` then `--examples many`: the last value is read, and it is not a number.
        let last = try run(
            try tool("dedupe"), ["r.jsonl", "--output=o", "--conflicts", "c", "--examples=3", "--examples", "many"],
            directory: directory.path)
        #expect(last.status == 64)
        #expect(last.stderr.hasPrefix("fieldpack-dedupe: error: --examples must be an integer, not \"many\"\n"))
        // The other way round the last value is a number: the usage is good, and the run fails
        // only because the records file does not exist.
        let first = try run(
            try tool("dedupe"), ["r.jsonl", "--output=o", "--conflicts", "c", "--examples", "many", "--examples=3"],
            directory: directory.path)
        #expect(first.status == 1)
        #expect(first.stderr.hasPrefix("r.jsonl: error: cannot open"), "\(first.stderr)")
        // `--help` after `--` is a file to hash, not the flag.
        try directory.write("--help", "not a flag\n")
        let hashed = try run(try tool("manifest"), ["--sha256", "--", "--help"], directory: directory.path)
        #expect(hashed.status == 0, "\(hashed.stderr)")
        #expect(hashed.stdout == (try run("/usr/bin/sha256sum", ["--", "--help"], directory: directory.path).stdout))
    }

    /// What a run prints that cannot be written (a full disk, here /dev/full) is an error, exit
    /// 1 naming standard output: `fieldpack-pipeline init > p.json` on a full disk, and
    /// `--print-name`, which the Makefile names the build folder by, exited 0 with nothing
    /// written.
    @Test(.enabled(if: binaries != nil), arguments: [
        ["pipeline", "init", "x", "--inat", "sample-data/inat"], ["inat", "--pipeline", "pipelines/sample.json", "--print-name"],
        ["manifest", "--help"], ["verify", "--version"],
    ])
    func aRunWhoseStandardOutputCannotBeWrittenFails(command: [String]) throws {
        let result = try run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", try tool(command[0])] + command.dropFirst(), directory: repositoryRoot)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("fieldpack-\(command[0]): error: cannot write to standard output: "), "\(result.stderr)")
    }
}
