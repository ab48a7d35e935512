import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The nameless scratch file stages keep data in until their end.
struct SpillFileTests {
    @Test func bytesReadBackByTheirLocationWhetherBufferedOrWritten() throws {
        let directory = try TemporaryDirectory()
        let spill = try SpillFile(in: directory.path, bufferSize: 16)
        let small = try spill.append("robin")
        let large = try spill.append(String(repeating: "é", count: 40))  // more than the buffer
        let after = try spill.append("")
        let last = try spill.append("wren")
        #expect(try spill.string(at: last) == "wren")  // still in the buffer
        #expect(try spill.string(at: small) == "robin")
        #expect(try spill.string(at: large) == String(repeating: "é", count: 40))
        #expect(try spill.string(at: after) == "")
        #expect(spill.count == 5 + 80 + 4)
    }

    @Test func theFileHasNoNameWhileItIsUsed() throws {
        let directory = try TemporaryDirectory()
        let spill = try SpillFile(in: directory.path)
        try spill.append(String(repeating: "x", count: 3 << 20))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(try spill.string(at: .init(offset: (3 << 20) - 2, count: 2)) == "xx")
    }

    @Test func aLocationPastTheEndIsAnErrorNotShortText() throws {
        let directory = try TemporaryDirectory()
        let spill = try SpillFile(in: directory.path)
        try spill.append("abc")
        #expect(throws: FieldpackError.self) { try spill.string(at: .init(offset: 1, count: 10)) }
    }

    @Test func aFolderNotYetMadeIsMadeAndOneThatCannotBeIsAnError() throws {
        let directory = try TemporaryDirectory()
        let spill = try SpillFile(in: directory.file("wiki/later"))
        #expect(try spill.string(at: spill.append("ok")) == "ok")
        #expect(throws: FieldpackError.self) { try SpillFile(in: "/proc/no-folder-here") }
    }
}
