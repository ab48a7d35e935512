import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `AtomicOutput` publishes a file only on `commit()`: before it, and if the output is
/// abandoned, the destination keeps whatever it held, and no temp file is left behind.
@Suite struct AtomicOutputTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("atomic-output")
    }

    private var destination: String { directory.file("out.txt") }

    private func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// More than the output keeps in memory, so some of it has reached the temp file.
    private static let large: [UInt8] = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) }

    @Test func nothingAppearsAtTheDestinationUntilCommit() throws {
        let output = try AtomicOutput(path: destination)
        try output.write("hello ")
        try output.write(Array("bytes ".utf8))
        try Array("raw".utf8).withUnsafeBytes { try output.write($0) }
        try output.flush()
        #expect(!FileManager.default.fileExists(atPath: destination))
        let pending = try entries()
        #expect(pending.count == 1)
        #expect(pending.allSatisfy { $0.hasPrefix(".") && $0 != "out.txt" })

        try output.commit()
        #expect(try text(destination) == "hello bytes raw")
        #expect(try entries() == ["out.txt"])
    }

    @Test func anExistingDestinationStaysIntactUntilCommit() throws {
        try directory.write("out.txt", "old")
        let output = try AtomicOutput(path: destination)
        try output.write("new")
        try Self.large.withUnsafeBytes { try output.write($0) }
        #expect(try text(destination) == "old")
        try output.commit()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Array("new".utf8) + Self.large)
    }

    /// Writes part of an output and lets it go without committing.
    private func abandon(_ path: String) throws {
        let output = try AtomicOutput(path: path)
        try output.write("partial")
        try output.write(Self.large)
        try output.flush()
    }

    @Test func anAbandonedOutputLeavesAnExistingDestinationAndNoTempFile() throws {
        try directory.write("out.txt", "old")
        try abandon(destination)
        #expect(try text(destination) == "old")
        #expect(try entries() == ["out.txt"])
    }

    @Test func anAbandonedNewOutputLeavesNothing() throws {
        try abandon(destination)
        #expect(try entries() == [])
    }

    @Test func appendCopiesAnotherFileInOrderWithTheWritesAroundIt() throws {
        let part = directory.file("part.bin")
        try Data(Self.large).write(to: URL(fileURLWithPath: part))
        let output = try AtomicOutput(path: destination)
        try output.write("head\n")
        try output.append(contentsOf: part)
        try output.write("tail\n")
        try output.append(contentsOf: try directory.write("short.txt", "short\n"))
        try output.commit()
        let expected = Array("head\n".utf8) + Self.large + Array("tail\nshort\n".utf8)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == expected)
    }

    /// `appendHashing` (the manifest's copy of the database) copies the file whole, across its
    /// 4 MiB reads, and its digest and count are those of the bytes it wrote.
    @Test(arguments: [0, 1, (4 << 20) - 1, 4 << 20, (4 << 20) + 1, 9_000_001])
    func aFileAppendedWhileHashedIsCopiedWholeWithTheDigestOfItsBytes(size: Int) throws {
        // Bytes that never repeat in a pattern a chunk's size divides (a stale or reordered
        // chunk would change the file and the digest).
        let bytes = (0..<size).map { index -> UInt8 in
            var mixed = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            mixed ^= mixed >> 29
            mixed = mixed &* 0xBF58_476D_1CE4_E5B9
            return UInt8(truncatingIfNeeded: mixed >> 56)
        }
        let part = directory.file("part-\(size).bin")
        try Data(bytes).write(to: URL(fileURLWithPath: part))
        let output = try AtomicOutput(path: destination)
        try output.write("head\n")
        let (digest, count) = try output.appendHashing(contentsOf: part)
        try output.write("tail\n")
        try output.commit()
        #expect(count == size)
        #expect(digest == SHA256.hex(of: bytes))
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Array("head\n".utf8) + bytes + Array("tail\n".utf8))
    }

    @Test func appendingAMissingFileNamesIt() throws {
        let output = try AtomicOutput(path: destination)
        let missing = directory.file("missing.part")
        let error = try #require(throws: FieldpackError.self) { try output.append(contentsOf: missing) }
        #expect(error.path == missing)
        let hashing = try #require(throws: FieldpackError.self) { _ = try output.appendHashing(contentsOf: missing) }
        #expect(hashing.path == missing)
    }

    @Test func largeWritesKeepTheirPlaceAmongBufferedOnes() throws {
        let output = try AtomicOutput(path: destination)
        try output.write("a")
        try Self.large.withUnsafeBytes { try output.write($0) }
        try output.write("z")
        try output.commit()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == Array("a".utf8) + Self.large + Array("z".utf8))
    }

    @Test(arguments: [true, false])
    func commitPublishesDurableOrNot(durable: Bool) throws {
        let output = try AtomicOutput(path: destination)
        try output.write("done")
        try output.commit(durable: durable)
        #expect(try text(destination) == "done")
        #expect(try entries() == ["out.txt"])
    }

    @Test func writeToReplacesAFileAndCreatesItsFolders() throws {
        let nested = directory.file("a/b/report.json")
        try AtomicOutput.write("{}\n", to: nested)
        #expect(try text(nested) == "{}\n")
        try AtomicOutput.write("{\"v\":2}\n", to: nested)
        #expect(try text(nested) == "{\"v\":2}\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("a/b")) == ["report.json"])
    }

    @Test func anOutputInAFolderThatCannotBeMadeNamesThePath() throws {
        try directory.write("file", "not a folder")
        let error = try #require(throws: FieldpackError.self) { _ = try AtomicOutput(path: directory.file("file/out.txt")) }
        #expect(error.path?.hasPrefix(directory.file("file")) == true)
    }

    /// `keepsIdenticalFile`: the same bytes leave the file there as it was, its time included,
    /// and no temp file behind; different bytes of the same length, or no file yet, are written.
    @Test func theSameBytesLeaveTheFileAndItsTimeAsTheyWere() throws {
        func publish(_ bytes: [UInt8]) throws -> Bool {
            let output = try AtomicOutput(path: destination, keepsIdenticalFile: true)
            try output.write(bytes)
            try output.commit()
            return output.keptIdenticalFile
        }
        func modified() throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: destination)[.modificationDate] as? Date)
        }
        #expect(try publish(Self.large) == false, "nothing was there to keep")
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: destination)

        #expect(try publish(Self.large) == true)
        #expect(try modified() == past)
        #expect(try entries() == ["out.txt"])

        var changed = Self.large
        changed[changed.count - 1] &+= 1   // the last byte, past the first chunk compared
        #expect(try publish(changed) == false)
        #expect(try modified() != past)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: destination))) == changed)
        #expect(try publish(Array(changed.dropLast())) == false, "a shorter file is a change")
        #expect(try FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int == changed.count - 1)
    }
}

/// An output never replaces what it must not: an input of the same run, another output of it,
/// or a device, FIFO or folder under its name (the rename that publishes an output replaced
/// them all: as root, `--output /dev/null` turned the device into a file).
@Suite struct OutputTargetTests {
    @Test func anOutputThatIsAnInputOfTheRunIsRefusedAndTheInputKept() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("page.json", page([observationJSON(id: 1)]))
        let before = try text(input)
        // The same file under another name, through a link to its folder.
        try FileManager.default.createSymbolicLink(atPath: directory.file("alias"), withDestinationPath: directory.path)
        for output in [input, directory.file("alias/page.json")] {
            let options = INatIngest.Options(inputs: [input], output: output, rejects: directory.file("rejects.jsonl"))
            let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
            #expect(error.path == output && error.message.hasPrefix("is also an input of this run"))
        }
        #expect(try text(input) == before)
        // A link to the input under the output's name: the rename replaces only the link.
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.json"), withDestinationPath: input)
        var linked = INatIngest.Options(inputs: [input], output: directory.file("link.json"), rejects: directory.file("rejects.jsonl"))
        linked.maxRejectRate = 1
        try INatIngest(options: linked).run()
        #expect(try text(input) == before && FileSystem.isRegularFile(directory.file("link.json")))
        // The other way round: the input is a link, the output names the file it points at.
        try FileManager.default.createSymbolicLink(atPath: directory.file("to-page.json"), withDestinationPath: input)
        let through = INatIngest.Options(inputs: [directory.file("to-page.json")], output: input, rejects: directory.file("rejects.jsonl"))
        #expect(throws: FieldpackError.self) { try INatIngest(options: through).run() }
        #expect(try text(input) == before)
        // Dedupe's input as its output.
        var ingest = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        ingest.maxRejectRate = 1
        try INatIngest(options: ingest).run()
        let dedupe = Dedupe.Options(input: directory.file("records.jsonl"), output: directory.file("records.jsonl"), conflicts: directory.file("c.json"))
        #expect(throws: FieldpackError.self) { try Dedupe(options: dedupe).run() }
    }

    @Test func twoOutputsUnderOneNameAreRefused() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("page.json", page([observationJSON(id: 1)]))
        let options = INatIngest.Options(inputs: [input], output: directory.file("out.jsonl"), rejects: directory.file("./out.jsonl"))
        let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(error.message.hasPrefix("is named by two outputs of this run"), "\(error)")
    }

    @Test func aFIFOOrAFolderUnderTheOutputsNameIsRefusedAndLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        try FileManager.default.createDirectory(atPath: directory.file("folder"), withIntermediateDirectories: false)
        for path in [fifo, directory.file("folder")] {
            let error = try #require(throws: FieldpackError.self) { try AtomicOutput(path: path) }
            #expect(error.path == path && error.message.hasPrefix("is not a regular file"))
        }
        var info = stat()
        #expect(stat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
    }
}

@Suite struct BrokenLinkInputTests {
    /// An input that is a link to a file that is gone says so, and where it points.
    @Test func aBrokenLinkInputNamesWhereItPoints() throws {
        let directory = try TemporaryDirectory()
        let link = directory.file("page.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/nonexistent/page.json")
        let error = try #require(throws: FieldpackError.self) { try ReadableFile(path: link) }
        #expect(error.description == "\(link): error: cannot open: it is a link to /nonexistent/page.json, which does not exist")
    }
}
