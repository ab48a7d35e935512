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

    /// Waits until a file changed just now is known by its times (`FileIdentity.isSettled`).
    private func settle() { usleep(useconds_t(FileIdentity.settling / 1000 + 50_000)) }

    /// The verdict of `path`, with the copy said to have ended there having read `sha256`.
    private func verdict(of path: String, copied sha256: String? = nil) throws -> IntegrityVerdict {
        let verdict = IntegrityVerdict(checking: path)
        verdict.copyEnded(sha256: try sha256 ?? self.sha256(path))
        return verdict
    }

    @Test func aFileLeftAloneGetsItsIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        try bundle(in: directory)
        let path = directory.file("content.sqlite")
        settle()
        #expect(try verdict(of: path).lines() == ["ok"])
        try swapObservationIndexes(of: path)
        settle()
        let lines = try #require(try verdict(of: path).lines())
        #expect(lines != ["ok"] && !lines.isEmpty, "\(lines)")
    }

    @Test func aFileWrittenToReplacedOrChangedTooLatelyGetsNoVerdict() throws {
        let directory = try TemporaryDirectory()
        try bundle(in: directory)
        let path = directory.file("content.sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        // Changed just before the check began: a write in the same tick of the clock would not
        // move its times.
        let unsettled = IntegrityVerdict(checking: path)
        unsettled.copyEnded(sha256: try sha256(path))
        #expect(unsettled.lines() == nil)

        // Its own bytes written back in place, after the check began and before the copy ended.
        settle()
        let written = IntegrityVerdict(checking: path)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.write(contentsOf: bytes.prefix(4096))
        try handle.close()
        written.copyEnded(sha256: try sha256(path))
        #expect(written.lines() == nil)

        // The same bytes, renamed over it.
        settle()
        let replaced = IntegrityVerdict(checking: path)
        try bytes.write(to: URL(fileURLWithPath: directory.file("content.sqlite.new")))
        #expect(rename(directory.file("content.sqlite.new"), path) == 0)
        replaced.copyEnded(sha256: try sha256(path))
        #expect(replaced.lines() == nil)

        // Left alone since: a verdict again.
        settle()
        #expect(try verdict(of: path).lines() == ["ok"])
    }

    @Test func aVerdictStandsOnlyWhenTheFileIsTheSameBeforeAfterTheCheckAndAfterTheCopy() {
        let before = FileIdentity(device: 1, inode: 2, size: 4096, modified: 10, changed: 20)
        let written = FileIdentity(device: 1, inode: 2, size: 4096, modified: 30, changed: 30)
        let replaced = FileIdentity(device: 1, inode: 3, size: 4096, modified: 10, changed: 20)
        #expect(IntegrityVerdict.stands(before: before, checkEnded: before, copyEnded: before))
        for other in [written, replaced, nil] {
            #expect(!IntegrityVerdict.stands(before: before, checkEnded: other, copyEnded: before))
            #expect(!IntegrityVerdict.stands(before: before, checkEnded: before, copyEnded: other))
        }
        #expect(!IntegrityVerdict.stands(before: nil, checkEnded: before, copyEnded: before))
    }

    @Test func theVerifierTakesAVerdictOnlyForTheBytesItsManifestLists() throws {
        let directory = try TemporaryDirectory()
        let published = try bundle(in: directory)
        let sound = "\(published)/content.sqlite"
        let damaged = directory.file("damaged.sqlite")
        try FileManager.default.copyItem(atPath: sound, toPath: damaged)
        try swapObservationIndexes(of: damaged)
        settle()
        var verifier = BundleVerifier(directory: published)
        #expect(verifier.verify() == [])

        // The damaged file's verdict, for a copy of other bytes than the manifest's: not taken.
        let other = try verdict(of: damaged)
        verifier.integrityVerdict = other
        #expect(verifier.verify() == [])
        other.wait()
        // Said to be for the manifest's bytes, it is taken, not run again on the copy: its
        // problem is reported (what the publisher's own copy would report of these bytes).
        verifier.integrityVerdict = try verdict(of: damaged, copied: try sha256(sound))
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
        settle()
        var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: published)
        publisher.checksIntegrityWhileCopying = true
        let found = Mutex<(stood: Bool, problems: [String])>((false, []))
        publisher.check = { staged, integrity in
            var verifier = BundleVerifier(directory: staged)
            verifier.checksDatabaseWhileHashing = true
            verifier.integrityVerdict = integrity
            let problems = verifier.verify()
            // Taken: for the staged database's bytes, and standing for them.
            let copy = try SHA256.hex(ofFile: "\(staged)/\(Manifest.databaseName)").digest
            let stood = integrity.map { $0.copiedSHA256 == copy && $0.lines() != nil } ?? false
            found.withLock { $0 = (stood, problems) }
            if !problems.isEmpty { throw FieldpackError(path: staged, "refused") }
        }
        #expect(throws: FieldpackError.self) { try publisher.publish() }
        let (stood, problems) = found.withLock { $0 }
        #expect(stood)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("/content.sqlite: error: integrity_check: ") ?? false, "\(problems)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(published)/manifest.json")) == before)
    }
}
