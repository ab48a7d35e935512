import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// Publishing touches only what is fieldpack's: it never follows a link out of the build tree,
/// never writes through a planted temp name, never replaces what is not a bundle, and never
/// swaps in a bundle the app would refuse (issue 15, "Losing or exposing data").
@Suite struct PublishSafetyTests {
    static let binaries = ProcessInfo.processInfo.environment["FIELDPACK_BIN"]

    /// A small real bundle in `directory/bundle` (and its database at `directory/content.sqlite`).
    private func publishedBundle(in directory: TemporaryDirectory) throws -> String {
        let input = try directory.write("page.json", page([observationJSON(id: 1, photos: [(11, "cc-by", 2048)])]))
        return try buildBundle(inputs: [input], in: directory)
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    private func hiddenLeftovers(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter {
            $0.contains(".staging-") || $0.contains(".retired-") || $0.contains(".tmp-")
        }
    }

    /// The inputs of a failing ingest: a file whose last line is over a 1 MiB document limit
    /// (an error that stops the run, after 5,000 good lines), and one of 100,000 observations
    /// whose records pass 16 MiB, so its part is spilled to a file beside the output.
    private func failingIngest(in directory: TemporaryDirectory) throws -> INatIngest.Options {
        let long = try directory.write(
            "a-long.jsonl",
            (1...5_000).map { observationJSON(id: 100_000 + $0) }.joined(separator: "\n") + "\n{\"id\": 1, \"x\": \""
                + String(repeating: "a", count: 2 << 20) + "\"}\n")
        let big = try directory.write("b-big.jsonl", (1...100_000).map { observationJSON(id: $0) }.joined(separator: "\n") + "\n")
        var options = INatIngest.Options(inputs: [long, big], output: directory.file("out/records.jsonl"), rejects: directory.file("out/rejects.jsonl"))
        options.maxDocumentBytes = 1 << 20
        options.filesPerChunk = 1
        options.workers = 2
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        return options
    }

    /// An ingest that fails leaves nothing behind: the part another worker spilled to disk while
    /// an earlier chunk failed (a whole file's records, gigabytes for an export) goes with the
    /// run's temp files, not at the next run on this host.
    /// A stage whose writing fails at its last output (a file-size limit stands for a full
    /// disk: EFBIG where it would be ENOSPC) leaves every output as it was: dedupe had put its
    /// new conflicts report beside the previous records, and the wiki stage its new rejects and
    /// report beside the previous articles.
    @Test(.enabled(if: binaries != nil))
    func aStageThatFailsWritingAnOutputLeavesEveryOutputAsItWas() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        func limited(_ tool: String, _ arguments: [String]) throws -> ProcessResult {
            // SIGXFSZ ignored (and so in the tool): a write past the limit fails, as on a full disk.
            let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
            return try run("/bin/sh", ["-c", "trap '' XFSZ; ulimit -f 20; exec '\(bin)/\(tool)' \(quoted)"], directory: repositoryRoot)
        }
        let records = directory.file("records.jsonl"), deduped = directory.file("deduped.jsonl")
        let ingest = try run("\(bin)/fieldpack-inat", ["--pipeline", "pipelines/sample.json", "--output", records, "--rejects", directory.file("rejects.jsonl")],
                             directory: repositoryRoot)
        #expect(ingest.status == 0, "\(ingest.stderr)")
        #expect(try run("\(bin)/fieldpack-dedupe", [records, "--output", deduped, "--conflicts", directory.file("c.json")]).status == 0)
        let outputs = ["d.jsonl", "conflicts.json", "articles.jsonl", "wiki-report.json", "wiki-rejects.jsonl"].map(directory.file)
        for path in outputs { try "previous\n".write(toFile: path, atomically: true, encoding: .utf8) }
        let dedupe = try limited("fieldpack-dedupe", [records, "--output", outputs[0], "--conflicts", outputs[1]])
        #expect(dedupe.status == 1 && dedupe.stderr.contains("File too large"), "\(dedupe.stderr)")
        let wiki = try limited(
            "fieldpack-wiki", ["--pipeline", "pipelines/sample.json", "--records", deduped, "--output", outputs[2], "--report", outputs[3], "--rejects", outputs[4]])
        #expect(wiki.status == 1 && wiki.stderr.contains("File too large"), "\(wiki.stderr)")
        for path in outputs { #expect(try text(path) == "previous\n", "\(path) was replaced by a run that failed") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test func aFailedIngestLeavesNoSpilledPartBehind() throws {
        let directory = try TemporaryDirectory()
        let options = try failingIngest(in: directory)
        #expect(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("out")) == [])
    }

    /// A line over the document limit is an error naming its file, and the line.
    @Test func aLineOverTheDocumentLimitIsAnErrorNamingItsFile() throws {
        let directory = try TemporaryDirectory()
        let options = try failingIngest(in: directory)
        let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(error.path == options.inputs[0], "\(error.description)")
        #expect(error.message.contains("line 5001"), "\(error.description)")
    }

    /// `--output bundle/` is the folder `bundle`, whether it is there yet or not: the slash
    /// once made the folder to assemble in inside the destination, and the swap failed after
    /// all the work.
    @Test func aDestinationWrittenWithATrailingSlashIsPublishedLikeWithout() throws {
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        try FileManager.default.removeItem(atPath: bundle)
        let database = directory.file("content.sqlite")
        try BundlePublisher(database: database, destination: bundle + "/").publish()
        try BundlePublisher(database: database, destination: bundle + "//").publish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted() == ["content.sqlite", "manifest-sha256.txt", "manifest.json"])
        #expect(try hiddenLeftovers(directory.path).isEmpty && hiddenLeftovers(bundle).isEmpty)
        #expect(BundleVerifier(directory: bundle).verify() == [])
    }

    @Test func republishingRemovesALinkInTheOldBundleButNeverWhatItPointsAt() throws {
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        let elsewhere = try TemporaryDirectory("fieldpack-elsewhere")
        let precious = try elsewhere.write("precious/keep.txt", "not fieldpack's\n")
        // Under names the bundle holds (its database, its checksum file), so that the folder is
        // still taken for a bundle and replaced.
        try FileManager.default.removeItem(atPath: "\(bundle)/content.sqlite")
        try FileManager.default.createSymbolicLink(atPath: "\(bundle)/content.sqlite", withDestinationPath: elsewhere.file("precious"))
        try FileManager.default.removeItem(atPath: "\(bundle)/manifest-sha256.txt")
        try FileManager.default.createSymbolicLink(atPath: "\(bundle)/manifest-sha256.txt", withDestinationPath: precious)

        try BundlePublisher(database: directory.file("content.sqlite"), destination: bundle).publish()
        #expect(try text(precious) == "not fieldpack's\n")
        #expect(FileManager.default.fileExists(atPath: elsewhere.file("precious/keep.txt")))
        #expect(BundleVerifier(directory: bundle).verify() == [])
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    @Test func removeTreeUnlinksLinksWithoutEnteringThem() throws {
        let directory = try TemporaryDirectory()
        let kept = try directory.write("outside/kept.txt", "kept\n")
        try directory.write("tree/inner/file.txt", "gone\n")
        try FileManager.default.createSymbolicLink(atPath: directory.file("tree/inner/link"), withDestinationPath: directory.file("outside"))
        FileSystem.removeTree(directory.file("tree"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("tree")))
        #expect(try text(kept) == "kept\n")
    }

    @Test func aLinkPlantedAtTheOldTempNameIsNeverWrittenThrough() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.write("victim.txt", "victim\n")
        // The name every earlier version used: .<name>.tmp-<pid>.
        try FileManager.default.createSymbolicLink(
            atPath: directory.file(".out.txt.tmp-\(getpid())"), withDestinationPath: victim)
        let output = try AtomicOutput(path: directory.file("out.txt"))
        try output.write("published\n")
        try output.commit()
        #expect(try text(victim) == "victim\n")
        #expect(try text(directory.file("out.txt")) == "published\n")
    }

    @Test func twoOutputsForOnePathNeverShareATempFile() throws {
        let directory = try TemporaryDirectory()
        let first = try AtomicOutput(path: directory.file("out.txt"))
        let second = try AtomicOutput(path: directory.file("out.txt"))
        try first.write("first\n")
        try second.write("second\n")
        try first.commit()
        #expect(try text(directory.file("out.txt")) == "first\n")
        try second.commit()
        #expect(try text(directory.file("out.txt")) == "second\n")
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    @Test(arguments: ["file", "folder", "link"])
    func anOutputThatIsNotABundleIsRefusedAndKept(kind: String) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        switch kind {
        case "file": try directory.write("target", "a user's file\n")
        case "folder": try directory.write("target/notes.txt", "a user's file\n")
        default: try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: directory.file("bundle"))
        }
        #expect(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        }
        switch kind {
        case "file": #expect(try text(target) == "a user's file\n")
        case "folder": #expect(try text("\(target)/notes.txt") == "a user's file\n")
        default: #expect(FileSystem.isRegularFile(directory.file("bundle/manifest.json")))
        }
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    /// A folder of the user's is kept whole even when it holds a `manifest.json` (a web app's,
    /// or fieldpack's with a file of the user's beside it, hidden ones too: a `.git` folder was
    /// deleted with the old bundle when every hidden name was taken for a desktop's litter).
    @Test(arguments: [
        "web app", "bundle with a user's file", "bag with a user's file in data", "bundle with a user's hidden file",
        "bundle with a user's .git", "bag with a user's hidden file in data",
        "bundle with a user's folder under a listed name", "bundle with a user's folder under a litter name",
    ])
    func aFolderWithAManifestThatIsNotOnlyABundleIsRefusedAndKept(kind: String) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        let kept: String
        if kind == "web app" {
            try directory.write("target/manifest.json", #"{"name": "My app", "start_url": "index.html"}"# + "\n")
            try directory.write("target/index.html", "<!doctype html>\n")
            kept = "target/index.html"
        } else if kind.hasPrefix("bundle") {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
            // A folder under a name the bundle lists, or under a desktop's litter name: the
            // user's, deleted with the bundle it was swapped out with.
            if kind.hasSuffix("listed name") { try FileManager.default.removeItem(atPath: "\(target)/content.sqlite") }
            kept = "target/" + (kind.hasSuffix(".git") ? ".git/HEAD" : kind.hasSuffix("hidden file") ? ".notes"
                : kind.hasSuffix("listed name") ? "content.sqlite/thesis.txt" : kind.hasSuffix("litter name") ? "._drafts/chapter1.txt" : "notes.txt")
            try directory.write(kept, "a user's file\n")
        } else {
            var bag = BundlePublisher(database: directory.file("content.sqlite"), destination: target)
            bag.bagIt = true
            try bag.publish()
            kept = kind.hasSuffix("hidden file in data") ? "target/data/.notes" : "target/data/notes.txt"
            try directory.write(kept, "a user's file\n")
        }
        let manifest = try bytes("\(target)/manifest.json")
        let error = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        }
        #expect(error.path == target)
        #expect(error.message.hasSuffix("refusing to replace it"), "\(error.message)")
        #expect(try text(directory.file(kept)) == (kind == "web app" ? "<!doctype html>\n" : "a user's file\n"))
        #expect(try bytes("\(target)/manifest.json") == manifest)
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    /// A bundle whose manifest.json was removed by hand is published again (the docs say a
    /// removed published file is): its checksum file, listing every file it holds, says it is a
    /// bundle. Every later build refused it as "a folder without fieldpack's manifest.json". Its
    /// checksum file not listing one of its files, it is still refused.
    @Test(arguments: [false, true])
    func aBundleWithoutItsManifestIsReplacedWhenItsChecksumFileListsEveryFile(bag: Bool) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: target)
        publisher.bagIt = bag
        try publisher.publish()
        let manifest = try bytes("\(target)/manifest.json")
        #expect(unlink("\(target)/manifest.json") == 0)
        try publisher.publish()
        #expect(try bytes("\(target)/manifest.json") == manifest)
        #expect(BundleVerifier(directory: target).verify() == [])
        // A file the checksum file does not list: not surely a bundle.
        #expect(unlink("\(target)/manifest.json") == 0)
        let kept = bag ? "target/data/notes.txt" : "target/notes.txt"
        try directory.write(kept, "a user's file\n")
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.message.hasSuffix("refusing to replace it"), "\(error.message)")
        #expect(try text(directory.file(kept)) == "a user's file\n")
    }

    /// A folder whose checksum file lists every file it holds is not a bundle for that alone: a
    /// folder of the user's files with their `sha256sum` output, another tool's bag, a web app
    /// with its own manifest.json and a checksum file were replaced (their files deleted).
    @Test(arguments: ["checksummed files", "another tool's bag", "web app"])
    func aFolderWithAChecksumFileThatIsNotFieldpacksIsNeverReplaced(kind: String) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        let kept: String
        func checksums(_ names: [String], in folder: String, prefix: String = "") throws {
            let lines = try names.map { "\(try SHA256.hex(ofFile: directory.file("\(folder)/\(prefix)\($0)")).0)  \(prefix)\($0)\n" }.joined()
            try directory.write("\(folder)/manifest-sha256.txt", lines)
        }
        switch kind {
        case "checksummed files":
            kept = try directory.write("target/notes.txt", "a user's file\n")
            try directory.write("target/photo.jpg", "jpeg")
            try checksums(["notes.txt", "photo.jpg"], in: "target")
        case "another tool's bag":
            try directory.write("target/bagit.txt", "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n")
            try directory.write("target/bag-info.txt", "Bag-Software-Agent: bagit.py\n")
            kept = try directory.write("target/data/thesis.csv", "a user's file\n")
            try checksums(["thesis.csv"], in: "target", prefix: "data/")
            try directory.write("target/tagmanifest-sha256.txt", "")
        default:
            try directory.write("target/manifest.json", #"{"name": "My app", "start_url": "index.html"}"# + "\n")
            kept = try directory.write("target/index.html", "a user's file\n")
            try checksums(["index.html"], in: "target")
        }
        let error = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        }
        #expect(error.message.hasSuffix("refusing to replace it"), "\(error.message)")
        #expect(try text(kept) == "a user's file\n")
    }

    /// A desktop's litter (`.DS_Store`, AppleDouble `._` files, KDE's `.directory`) is not the
    /// user's work: a bundle holding it is replaced.
    @Test(arguments: [".DS_Store", "._content.sqlite", ".directory"])
    func aBundleHoldingADesktopsLitterIsReplaced(name: String) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        try directory.write("target/\(name)", "litter\n")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        #expect(!FileManager.default.fileExists(atPath: "\(target)/\(name)"))
        #expect(FileSystem.isRegularFile("\(target)/manifest.json"))
    }

    /// A file named like the database's journal is never shipped beside it: SQLite takes
    /// `content.sqlite-journal` for the database's own and plays it back, or fails a read-only open.
    @Test(arguments: ["content.sqlite-journal", "content.sqlite-wal", "content.sqlite-shm"])
    func aFileNamedLikeTheDatabasesJournalIsNotPublished(name: String) throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let extra = try directory.write("extra/\(name)", "not a journal of this database\n")
        let error = try #require(throws: FieldpackError.self) {
            try BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("other"), extraFiles: [extra]).publish()
        }
        #expect(error.path == extra)
        #expect(error.message.contains("SQLite would take it for the database's journal"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("other")))
    }

    /// The published files' modes do not follow the caller's umask: 0644, folders 0755.
    @Test(.enabled(if: binaries != nil), arguments: [false, true])
    func thePublishedFilesAreReadableByOthersWhateverTheUmask(bag: Bool) throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let output = directory.file("private")
        let published = try run("/bin/sh", ["-c", "umask 077 && exec \"$0\" \"$1\" --output \"$2\" $3",
                                            "\(bin)/fieldpack-manifest", directory.file("content.sqlite"), output, bag ? "--bagit" : ""])
        #expect(published.status == 0, "\(published.stderr)")
        var modes: [String: Int] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: output))
        for case let name as String in walker {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(output)/\(name)")
            modes[name] = (attributes[.posixPermissions] as? Int) ?? -1
        }
        #expect(!modes.isEmpty)
        for (name, mode) in modes {
            let folder = FileSystem.isDirectory("\(output)/\(name)")
            #expect(mode == (folder ? 0o755 : 0o644), "\(name): \(String(mode, radix: 8))")
        }
    }

    /// An error about a file being assembled names the bundle and the file, never the hidden
    /// folder it is assembled in (`.bundle.staging-…`, gone by the time the error is read).
    @Test func anErrorWhileAssemblingNamesTheBundleNotItsStagingFolder() throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"))
        publisher.check = { staged, _ in throw FieldpackError(path: "\(staged)/content.sqlite", line: 3, "write failed: No space left on device") }
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.path == directory.file("bundle"))
        #expect(error.line == 3)
        #expect(error.message == "content.sqlite: write failed: No space left on device; nothing published (a bundle already there is kept)")
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    /// Something not a bundle put at the destination after the first look (here by the check,
    /// which runs just before the swap) is swapped back, whole, and nothing is published.
    @Test func aFolderPutInPlaceWhilePublishingIsPutBack() throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let target = directory.file("target")
        try BundlePublisher(database: directory.file("content.sqlite"), destination: target).publish()
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: target)
        publisher.check = { _, _ in
            try FileManager.default.removeItem(atPath: target)
            try directory.write("target/notes.txt", "a user's file\n")
        }
        let error = try #require(throws: FieldpackError.self) { try publisher.publish() }
        #expect(error.message.hasPrefix("was replaced while publishing by something that is not a bundle: put back"), "\(error.message)")
        #expect(try text("\(target)/notes.txt") == "a user's file\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == ["notes.txt"])
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    /// A BagIt bag is a bundle too: publishing over one replaces it.
    @Test func aBagIsReplaced() throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let bag = directory.file("bag")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: bag)
        publisher.bagIt = true
        try publisher.publish()
        try publisher.publish()
        #expect(BundleVerifier(directory: bag).verify() == [])
        try BundlePublisher(database: directory.file("content.sqlite"), destination: bag).publish()
        #expect(BundleVerifier(directory: bag).verify() == [])
        #expect(!FileManager.default.fileExists(atPath: "\(bag)/bagit.txt"))
    }

    @Test func anEmptyFolderOrABundleIsReplaced() throws {
        let directory = try TemporaryDirectory()
        _ = try publishedBundle(in: directory)
        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try BundlePublisher(database: directory.file("content.sqlite"), destination: empty).publish()
        #expect(BundleVerifier(directory: empty).verify() == [])
        try BundlePublisher(database: directory.file("content.sqlite"), destination: empty).publish()
        #expect(BundleVerifier(directory: empty).verify() == [])
    }

    @Test func aBundleThatFailsTheCheckIsNeverSwappedIn() throws {
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        let before = try bytes("\(bundle)/manifest.json")
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: bundle)
        publisher.extraFiles = [try directory.write("report.json", "{}\n")]
        publisher.check = { _, _ in throw FieldpackError("refused") }
        #expect(throws: FieldpackError.self) { try publisher.publish() }
        #expect(try bytes("\(bundle)/manifest.json") == before)
        #expect(!FileManager.default.fileExists(atPath: "\(bundle)/report.json"))
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    @Test func concurrentPublishesBothSucceedAndLeaveOneCompleteBundle() throws {
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        let failures = Mutex<[String]>([])
        let database = directory.file("content.sqlite")
        for _ in 0..<8 {
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    try BundlePublisher(database: database, destination: bundle).publish()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(BundleVerifier(directory: bundle).verify() == [])
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try hiddenLeftovers(directory.path) == [])
    }

    @Test func verifyRefusesAFileReplacedByALinkToIdenticalBytes() throws {
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        let copy = directory.file("costs-copy.sqlite")
        try FileManager.default.copyItem(atPath: "\(bundle)/content.sqlite", toPath: copy)
        try FileManager.default.removeItem(atPath: "\(bundle)/content.sqlite")
        try FileManager.default.createSymbolicLink(atPath: "\(bundle)/content.sqlite", withDestinationPath: copy)
        let problems = BundleVerifier(directory: bundle).verify()
        #expect(problems.contains { $0.contains("content.sqlite: error: not a regular file") }, "\(problems)")
    }

    /// The manifest stage checks the assembled folder with the app's key before the swap: a
    /// signing key and a public key that do not match publish nothing and keep the old bundle.
    @Test(.enabled(if: binaries != nil))
    func mismatchedKeysKeepThePreviousBundle() throws {
        let bin = try #require(Self.binaries)
        let directory = try TemporaryDirectory()
        let bundle = try publishedBundle(in: directory)
        let before = try bytes("\(bundle)/manifest.json")
        let key = directory.file("key.pem"), other = directory.file("other.pem"), otherPublic = directory.file("other.pub.pem")
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", key]).status == 0)
        #expect(try run("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", other]).status == 0)
        #expect(try run("/usr/bin/openssl", ["pkey", "-in", other, "-pubout", "-out", otherPublic]).status == 0)
        let result = try run("\(bin)/fieldpack-manifest", [
            directory.file("content.sqlite"), "--output", bundle, "--sign", key, "--public-key", otherPublic,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("manifest.json.sig: error:"), "\(result.stderr)")
        #expect(result.stderr.contains("\(bundle): error: not published"), "\(result.stderr)")
        #expect(try bytes("\(bundle)/manifest.json") == before)
        #expect(!FileManager.default.fileExists(atPath: "\(bundle)/manifest.json.sig"))
        #expect(try hiddenLeftovers(directory.path) == [])
    }
}
