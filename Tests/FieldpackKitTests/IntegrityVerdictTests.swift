@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// fieldpack-manifest's integrity check, run on the database while it is copied: taken for the
/// copy only when it was run on the very bytes the copy read.
@Suite struct IntegrityVerdictTests {
    /// A bundle of one observation in `directory`: its database `content.sqlite`, published in
    /// `bundle/`.
    private func bundle(in directory: TemporaryDirectory) throws -> String {
        let input = try directory.write("page.json", page([observationJSON(id: 1, photos: [(11, "cc-by", 2048)])]))
        return try buildBundle(inputs: [input], in: directory)
    }

    private func sha256(_ path: String) throws -> String { try SHA256.hex(ofFile: path).digest }

    /// The verdict of `path`, with the copy said to have ended there having read `sha256`.
    private func verdict(of path: String, copied sha256: String? = nil) throws -> IntegrityVerdict {
        let verdict = IntegrityVerdict(checking: path)
        verdict.copyEnded(sha256: try sha256 ?? self.sha256(path))
        return verdict
    }

    @Test func aFileLeftAloneGetsItsIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        try bundle(in: directory)
        let sound = directory.file("content.sqlite")
        #expect(try verdict(of: sound).lines() == ["ok"])
        try swapObservationIndexes(of: sound)
        let lines = try #require(try verdict(of: sound).lines())
        #expect(lines != ["ok"] && !lines.isEmpty, "\(lines)")
    }

    @Test func aFileWrittenToOrReplacedWhileItIsCopiedGetsNoVerdict() throws {
        let directory = try TemporaryDirectory()
        try bundle(in: directory)
        let path = directory.file("content.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        // Past the clock's tick (a coarse one on older kernels), so the write moves the times.
        usleep(50_000)

        // Its own bytes written back in place, after the check began and before the copy ended.
        let written = IntegrityVerdict(checking: path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: bytes.prefix(4096))
        try handle.close()
        written.copyEnded(sha256: try sha256(path))
        #expect(written.lines() == nil)

        // The same bytes, renamed over it.
        usleep(50_000)
        let replaced = IntegrityVerdict(checking: path)
        try bytes.write(to: URL(fileURLWithPath: directory.file("content.sqlite.new")))
        #expect(rename(directory.file("content.sqlite.new"), path) == 0)
        replaced.copyEnded(sha256: try sha256(path))
        #expect(replaced.lines() == nil)

        // Left alone since: a verdict again.
        #expect(try verdict(of: path).lines() == ["ok"])
    }

    @Test func theVerifierTakesAVerdictOnlyForTheBytesItsManifestLists() throws {
        let directory = try TemporaryDirectory()
        let published = try bundle(in: directory)
        let sound = "\(published)/content.sqlite"
        let damaged = directory.file("damaged.sqlite")
        try FileManager.default.copyItem(atPath: sound, toPath: damaged)
        try swapObservationIndexes(of: damaged)
        var verifier = BundleVerifier(directory: published)
        #expect(verifier.verify() == [])

        // The damaged file's verdict, for a copy of other bytes than the manifest's: not taken.
        verifier.integrity = try verdict(of: damaged)
        #expect(verifier.verify() == [])
        // Said to be for the manifest's bytes, it is taken, not run again on the copy: its
        // problem is reported (what the publisher's own copy would report of these bytes).
        verifier.integrity = try verdict(of: damaged, copied: try sha256(sound))
        let problems = verifier.verify()
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("\(sound): error: integrity_check: ") ?? false, "\(problems)")
        // The app's depth runs its own quick_check on the copy.
        verifier.depth = .app
        #expect(verifier.verify() == [])
    }

    @Test func aDatabaseThatFailsTheIntegrityCheckRunWhileCopyingIsNotPublished() throws {
        let directory = try TemporaryDirectory()
        let published = try bundle(in: directory)
        let before = try Data(contentsOf: URL(fileURLWithPath: "\(published)/manifest.json"))
        try swapObservationIndexes(of: directory.file("content.sqlite"))
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: published)
        publisher.checksIntegrityWhileCopying = true
        let found = Mutex<(verdict: Bool, problems: [String])>((false, []))
        publisher.check = { staged, integrity in
            var verifier = BundleVerifier(directory: staged)
            verifier.checksDatabaseWhileHashing = true
            verifier.integrity = integrity
            let problems = verifier.verify()
            found.withLock { $0 = (integrity != nil, problems) }
            if !problems.isEmpty { throw FieldpackError(path: staged, "refused") }
        }
        #expect(throws: FieldpackError.self) { try publisher.publish() }
        let (verdict, problems) = found.withLock { $0 }
        #expect(verdict)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("/content.sqlite: error: integrity_check: ") ?? false, "\(problems)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(published)/manifest.json")) == before)
    }
}
