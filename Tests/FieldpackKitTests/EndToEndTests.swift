import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Runs the built executables through the Makefile, as a user does. Needs `FIELDPACK_BIN`
/// (set by `make test`, which builds the tools first); skipped otherwise.
@Suite(.serialized) struct EndToEndTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    private func make(_ arguments: [String], build: String) throws -> ProcessResult {
        // The tools FIELDPACK_BIN names (make's BIN), as `make test` builds them.
        try run("/usr/bin/make", ["--no-print-directory", "SKIP_TOOLS=1", "BUILD=\(build)"] + (Self.binaries.map { ["BIN=\($0)"] } ?? []) + arguments,
                directory: repositoryRoot)
    }

    @Test(.enabled(if: binaries != nil))
    func makeBundleBuildsAVerifiedBundleAndASecondRunDoesNothing() throws {
        let directory = try TemporaryDirectory()
        let first = try make(["bundle"], build: directory.path)
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let bundle = directory.file("sample/bundle")
        #expect(BundleVerifier(directory: bundle).verify() == [])
        #expect(try run("/usr/bin/sha256sum", ["-c", "manifest-sha256.txt"], directory: bundle).status == 0)
        #expect(FileManager.default.fileExists(atPath: directory.file("sample/inat/rejects.jsonl")))
        #expect(FileManager.default.fileExists(atPath: directory.file("sample/dedupe/conflicts.json")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted()
                == ["content.sqlite", "costs-report.json", "manifest-sha256.txt", "manifest.json", "report.html"])
        // The run's timings are beside the bundle, never in it: one per stage that ran.
        #expect(try text(directory.file("sample/run-report.html")).contains("<td class=\"wrap\">fieldpack-verify</td>"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("sample/timings")).sorted()
                == ["bundle.json", "dedupe.json", "inat.json", "manifest.json", "report.json", "verify.json", "wiki.json"])

        let second = try make(["bundle"], build: directory.path)
        #expect(second.status == 0)
        #expect(!second.stdout.contains("fieldpack-"), "a second run ran: \(second.stdout)")

        // A newer intermediate reruns only the stages after it.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: directory.file("sample/dedupe/records.jsonl"))
        let third = try make(["bundle"], build: directory.path)
        #expect(third.status == 0)
        #expect(!third.stdout.contains("fieldpack-inat") && !third.stdout.contains("fieldpack-dedupe"))
        #expect(third.stdout.contains("fieldpack-bundle") && third.stdout.contains("fieldpack-wiki"))

        // The wiki stage's depfile names every dump; a newer articles file reruns only the bundle.
        #expect(try text(directory.file("sample/wiki/articles.d")).contains("sample-data/wiki/updates.ndjson"))
        // Give the deduped records their input's time back (the step above set it ahead), so that
        // the articles file is the only one newer than what was built from it.
        #expect(try run("/usr/bin/touch", ["-r", directory.file("sample/inat/records.jsonl"), directory.file("sample/dedupe/records.jsonl")]).status == 0)
        let evenLater = Date().addingTimeInterval(10)
        try FileManager.default.setAttributes([.modificationDate: evenLater], ofItemAtPath: directory.file("sample/wiki/articles.jsonl"))
        let fourth = try make(["bundle"], build: directory.path)
        #expect(fourth.status == 0)
        #expect(!fourth.stdout.contains("fieldpack-wiki") && !fourth.stdout.contains("fieldpack-dedupe"))
        #expect(fourth.stdout.contains("fieldpack-bundle"))
        // The rebuilt database is published again, with its manifest, and checked.
        #expect(fourth.stdout.contains("fieldpack-manifest") && fourth.stdout.contains("fieldpack-verify"), "\(fourth.stdout)")
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    @Test(.enabled(if: binaries != nil))
    func parallelBuildGivesTheSameBytesAsASerialOne() throws {
        let serial = try TemporaryDirectory()
        let parallel = try TemporaryDirectory()
        #expect(try make(["-j1", "bundle"], build: serial.path).status == 0)
        #expect(try make(["-j2", "bundle"], build: parallel.path).status == 0)
        for file in ["content.sqlite", "manifest.json", "manifest-sha256.txt", "report.html"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: serial.file("sample/bundle/\(file)")))
            let b = try Data(contentsOf: URL(fileURLWithPath: parallel.file("sample/bundle/\(file)")))
            #expect(a == b, "\(file) differs between -j1 and -j2")
        }
    }

    /// A team's data lives where it lives: the pipeline, its inputs, the signing key and the build
    /// folder all under folders named in other scripts, through make as a user runs it.
    @Test(.enabled(if: binaries != nil), arguments: ["Zürich", "北京"])
    func everyStageWorksUnderAFolderWithANonASCIIName(name: String) throws {
        let bin = try #require(Self.binaries)
        let temporary = try TemporaryDirectory("fieldpack-\(name)")
        let root = temporary.file("\(name)/données")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(try run("/bin/cp", ["-R", "\(repositoryRoot)/sample-data", "\(root)/sample-data"]).status == 0)
        let pipeline = try text("\(repositoryRoot)/pipelines/sample.json")
            .replacingOccurrences(of: "\"sample-data/", with: "\"\(root)/sample-data/")
        let pipelinePath = try temporary.write("\(name)/données/pipelines/sample.json", pipeline)
        let key = "\(root)/clé.pem", publicKey = "\(root)/clé.pub.pem"
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key]).status == 0)
        #expect(try run("/usr/bin/openssl", ["pkey", "-in", key, "-pubout", "-out", publicKey]).status == 0)

        let build = "\(root)/build"
        let made = try make(["bundle", "PIPELINE=\(pipelinePath)", "SIGNING_KEY=\(key)", "PUBLIC_KEY=\(publicKey)"], build: build)
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        // Every stage ran on paths under the folder, and the app's check accepts the bundle there.
        for stage in ["inat", "dedupe", "wiki", "bundle", "manifest", "verify"] {
            #expect(made.stdout.contains("fieldpack-\(stage) "), "fieldpack-\(stage) did not run")
        }
        let bundle = "\(build)/sample/bundle"
        #expect(made.stderr.contains("fieldpack-verify: \(bundle): ok"), "\(made.stderr)")
        #expect(BundleVerifier(directory: bundle).verify() == [])
        let verified = try run("\(bin)/fieldpack-verify", [bundle, "--public-key", publicKey])
        #expect(verified.status == 0, "\(verified.stderr)")
        // Findings and sources name the inputs by their real (UTF-8) paths.
        #expect(try text("\(build)/sample/inat/rejects.jsonl").contains("\(root)/sample-data/inat/"))
        #expect(try text("\(build)/sample/inputs.json").contains("\(root)/sample-data/inat/updates.jsonl.gz"))
        // The content is the content: the same database as the sample's, built under an ASCII path.
        let plain = try TemporaryDirectory()
        #expect(try make(["bundle"], build: plain.path).status == 0)
        let here = try Data(contentsOf: URL(fileURLWithPath: "\(bundle)/content.sqlite"))
        let there = try Data(contentsOf: URL(fileURLWithPath: plain.file("sample/bundle/content.sqlite")))
        #expect(here == there, "the database depends on the folder's name")

        // The one-page preview reads a page under such a folder too.
        let page = "\(root)/Dog.html"
        #expect(try run("/bin/cp", ["\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/wiki/Dog.html", page]).status == 0)
        let preview = try run("\(bin)/fieldpack-sanitize", ["--article", page])
        #expect(preview.status == 0, "\(preview.stderr)")
        #expect(preview.stdout.contains("domestic dog"))
    }

    @Test(.enabled(if: binaries != nil))
    func everyExecutableFollowsTheExitCodeContract() throws {
        let bin = try #require(Self.binaries)
        for stage in ["inat", "dedupe", "wiki", "bundle", "manifest", "verify", "synth", "sanitize"] {
            let help = try run("\(bin)/fieldpack-\(stage)", ["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.hasPrefix("usage: fieldpack-\(stage)"))
            let bad = try run("\(bin)/fieldpack-\(stage)", ["--no-such-option"])
            #expect(bad.status == 64, "fieldpack-\(stage) exits \(bad.status) on bad usage")
            #expect(bad.stderr.contains("usage: fieldpack-\(stage)"))
        }
        let directory = try TemporaryDirectory()
        let missing = try run("\(bin)/fieldpack-dedupe", ["/nonexistent/records.jsonl", "--output", directory.file("x"), "--conflicts", directory.file("y")])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("/nonexistent/records.jsonl: error: cannot open"))
    }
}
