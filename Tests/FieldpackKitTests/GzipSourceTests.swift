import Foundation
@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// Every gzip input is inflated by `GzipSource` (ISA-L's igzip): checked here against GNU gzip,
/// member by member, for intact streams and for each kind of damage it must tell apart.
@Suite struct GzipSourceTests {
    /// What reading `path` to its end gave: the bytes, and each damage met, in order.
    private struct Reading {
        var bytes: [UInt8] = []
        var damages: [StreamDamage] = []
    }

    private func read(_ path: String, bufferSize: Int = 1 << 16) throws -> Reading {
        let source = try GzipSource(source: try RawFileSource(path: path, hashing: false))
        var reading = Reading()
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            do {
                let got = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if got == 0 { return reading }
                reading.bytes += buffer[0..<got]
            } catch let damage as StreamDamage {
                reading.damages.append(damage)
                // Only a failed check lets reading go on (the next member).
                if damage.failedMember == nil { return reading }
            }
        }
    }

    /// Seeded members, some of text and some of noise, of 20 to 300 KB (the third empty), compressed by GNU gzip at
    /// levels 1 and 9, with and without the file's name in the header; and their plain bytes.
    private func members(seed: UInt64, count: Int, in directory: TemporaryDirectory) throws -> [(gzip: [UInt8], plain: [UInt8])] {
        var random = SeededBytes(seed: seed)
        var members: [(gzip: [UInt8], plain: [UInt8])] = []
        for index in 0..<count {
            let size = index == 2 ? 0 : 20_000 + random.next() % 280_000
            let noise = random.next() % 3 == 0
            var plain: [UInt8] = []
            plain.reserveCapacity(size)
            while plain.count < size {
                if noise {
                    plain.append(UInt8(truncatingIfNeeded: random.next()))
                } else {
                    plain += Array("observation \(random.next() % 5000)\tCC-BY-NC\t'Quercus robur'\n".utf8)
                }
            }
            plain = Array(plain.prefix(size))
            let name = directory.file("member-\(seed)-\(index)")
            try Data(plain).write(to: URL(fileURLWithPath: name))
            let flags = (index % 2 == 0 ? "-1" : "-9") + (index % 3 == 0 ? "" : " -n")
            try run("/bin/sh", ["-c", "gzip \(flags) -c '\(name)' > '\(name).gz'"])
            members.append((Array(try Data(contentsOf: URL(fileURLWithPath: name + ".gz"))), plain))
        }
        return members
    }

    private func write(_ bytes: [UInt8], _ name: String, in directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [1 as UInt64, 2, 3])
    func concatenatedMembersInflateToWhatGNUGzipGives(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: seed, count: 5, in: directory)
        let path = try write(members.flatMap(\.gzip), "joined.gz", in: directory)
        let expected = members.flatMap(\.plain)
        let oracle = try run("/bin/sh", ["-c", "gzip -dc '\(path)' | sha256sum"])
        #expect(oracle.stdout.hasPrefix(SHA256.hex(of: expected)))
        for bufferSize in [7, 4096, 1 << 20] {
            let reading = try read(path, bufferSize: bufferSize)
            #expect(reading.damages.isEmpty, "\(reading.damages.map(\.message))")
            // Compared outside the macro: its diff of two large arrays takes minutes.
            let same = reading.bytes == expected
            #expect(same, "buffer of \(bufferSize) bytes: \(reading.bytes.count) bytes for \(expected.count)")
        }
    }

    @Test(arguments: [(8, "CRC-32"), (3, "length")])
    func aMemberWhoseCheckFailsIsNamedAndTheNextMemberIsRead(fromEnd: Int, check: String) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 7, count: 3, in: directory)
        var bytes = members.flatMap(\.gzip)
        // A byte of the first member's trailer: its CRC-32, or its length (ISIZE).
        bytes[members[0].gzip.count - fromEnd] ^= 0x01
        let path = try write(bytes, "broken.gz", in: directory)
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        let reading = try read(path)
        #expect(reading.damages.count == 1)
        let damage = try #require(reading.damages.first)
        #expect(damage.message.contains("fails its \(check) check"), "\(damage.message)")
        #expect(damage.failedMember == 0..<members[0].plain.count)
        // The member's bytes were given (the caller rejects them), and every member after it.
        let same = reading.bytes == members.flatMap(\.plain)
        #expect(same, "\(reading.bytes.count) bytes")
    }

    @Test(arguments: [10, 5_000, 60_000, -9, -1])
    func aStreamCutShortGivesWhatCameBeforeAndSaysItIsTruncated(cut: Int) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 11, count: 2, in: directory)
        let whole = members.flatMap(\.gzip)
        let keep = cut > 0 ? members[0].gzip.count + cut : whole.count + cut
        let path = try write(Array(whole.prefix(keep)), "cut.gz", in: directory)
        let reading = try read(path)
        let damage = try #require(reading.damages.last)
        #expect(reading.damages.count == 1)
        #expect(damage.failedMember == nil)
        #expect(damage.message.contains("gzip stream is truncated"), "\(damage.message)")
        let expected = members.flatMap(\.plain)
        #expect(reading.bytes.count >= members[0].plain.count)
        let prefix = expected.starts(with: reading.bytes)
        #expect(prefix)
    }

    @Test func bytesAfterAMemberThatAreNotGzipAreCorruptAfterEveryByteOfTheMember() throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 13, count: 1, in: directory)
        let path = try write(members[0].gzip + Array("this is not a gzip member".utf8), "trailing.gz", in: directory)
        let reading = try read(path)
        let same = reading.bytes == members[0].plain
        #expect(same, "\(reading.bytes.count) bytes for \(members[0].plain.count)")
        let damage = try #require(reading.damages.first)
        #expect(damage.failedMember == nil)
        #expect(damage.message.contains("gzip data is corrupt") && damage.message.contains("not a gzip member"), "\(damage.message)")
    }

    @Test func deflateDataThatIsNoiseIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        var random = SeededBytes(seed: 17)
        let noise = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let path = try write([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03] + noise, "noise.gz", in: directory)
        let reading = try read(path)
        let damage = try #require(reading.damages.first)
        #expect(damage.failedMember == nil)
        #expect(damage.message.contains("gzip data is corrupt") || damage.message.contains("truncated"), "\(damage.message)")
    }
}

/// SplitMix64, for seeded test bytes.
private struct SeededBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
    }
}
