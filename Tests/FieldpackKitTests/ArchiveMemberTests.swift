@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// An archive member read as lines names itself in its errors (`archive#member`).
@Suite struct ArchiveMemberTests {
    /// A wiki dump's line over the limit was "error: line 1 is longer than 256 MiB", naming no
    /// file: with several dumps, the operator could not tell which.
    @Test func aLineOverTheLimitInAMemberIsNamedByTheArchiveAndMember() throws {
        let directory = try TemporaryDirectory()
        try directory.write("tar/dump_0.ndjson", String(repeating: "a", count: 4096) + "\n")
        #expect(try run("/bin/tar", ["-cf", directory.file("dump.tar"), "-C", directory.file("tar"), "dump_0.ndjson"]).status == 0)
        let archive = try ArchiveReader(memory: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("dump.tar")))), name: "dump.tar")
        let member = try #require(try archive.nextMember())
        let reader = LineReader(source: archive.memberSource(named: "dump.tar#\(member)"), chunkSize: 512, maxLineBytes: 1024)
        let error = try #require(throws: FieldpackError.self) { _ = try reader.next() }
        #expect(error.path == "dump.tar#dump_0.ndjson", "\(error)")
        #expect(error.message.hasPrefix("line 1 is longer than"), "\(error)")
    }

    /// A sparse member stores fewer bytes than its size says: last in an intact archive, it was
    /// taken for an archive cut at a member's end.
    @Test func aSparseLastMemberOfAnIntactTarIsNoCut() throws {
        let directory = try TemporaryDirectory()
        try directory.write("tar/first.ndjson", "{}\n")
        // 64 KiB of holes, then one line.
        #expect(try run("/usr/bin/python3", ["-c", "f = open('\(directory.file("tar/holes.ndjson"))', 'wb'); f.seek(65536); f.write(b'x\\n'); f.close()"]).status == 0)
        #expect(try run("/bin/tar", ["--sparse", "-cf", directory.file("sparse.tar"), "-C", directory.file("tar"), "first.ndjson", "holes.ndjson"]).status == 0)
        let archive = try ArchiveReader(memory: Array(try Data(contentsOf: URL(fileURLWithPath: directory.file("sparse.tar")))), name: "sparse.tar")
        var members: [String] = []
        while let member = try archive.nextMember() { members.append(member) }
        #expect(members == ["first.ndjson", "holes.ndjson"])
    }
}
