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
        // As every stage opens a file: its magic peeked first, so the first read gives 2 bytes
        // and the first member's header comes in two reads.
        let (source, _, gzip) = try openInput(path, hashing: false)
        #expect(gzip && source is GzipSource)
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
        var random = SplitMix(seed: seed)
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

    /// Zero bytes after the last member (a tape's or disk image's padding) end the stream, as
    /// `gzip -t` takes them: refused as "damaged … rows lost", nothing was lost. Anything after
    /// the padding is damage.
    @Test(arguments: [512, 300_000])
    func zeroPaddingAfterTheLastMemberEndsTheStream(padding: Int) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 4, count: 2, in: directory)
        let padded = try write(members.flatMap(\.gzip) + [UInt8](repeating: 0, count: padding), "padded.gz", in: directory)
        #expect(try run("/bin/gzip", ["-t", padded]).status == 0)
        let reading = try read(padded)
        #expect(reading.damages.isEmpty, "\(reading.damages.map(\.message))")
        let same = reading.bytes == members.flatMap(\.plain)
        #expect(same)
        let trailing = try write(members.flatMap(\.gzip) + [UInt8](repeating: 0, count: padding) + [0x41], "trailing.gz", in: directory)
        #expect(try read(trailing).damages.map(\.message).first?.contains("bytes after the zero padding") == true)
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

    /// What zlib (Python's, member after member) inflates of `path` before it fails: the oracle
    /// for a damaged stream's intact bytes.
    private func zlibInflates(_ path: String, in directory: TemporaryDirectory) throws -> [UInt8] {
        let output = directory.file("zlib.out")
        let script = """
            import sys, zlib
            data, out = open(sys.argv[1], 'rb').read(), bytearray()
            while data:
                d = zlib.decompressobj(31)
                try:
                    out += d.decompress(data)
                except zlib.error:
                    break
                if not d.eof:
                    break
                data = d.unused_data
            open(sys.argv[2], 'wb').write(out)
            """
        let result = try run("/usr/bin/python3", ["-c", script, path, output])
        #expect(result.status == 0, "\(result.stderr)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    @Test(arguments: [10, 5_000, 60_000, -9, -1])
    func aStreamCutShortGivesEveryByteBeforeTheCutAndSaysItIsTruncated(cut: Int) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 11, count: 2, in: directory)
        let whole = members.flatMap(\.gzip)
        let keep = cut > 0 ? members[0].gzip.count + cut : whole.count + cut
        let path = try write(Array(whole.prefix(keep)), "cut.gz", in: directory)
        let expected = try zlibInflates(path, in: directory)
        #expect(expected.count >= members[0].plain.count)
        // igzip inflates ahead of a small buffer: what it holds is given before the damage.
        for bufferSize in [7, 4096, 1 << 20] {
            let reading = try read(path, bufferSize: bufferSize)
            #expect(reading.damages.count == 1)
            let damage = try #require(reading.damages.last)
            #expect(damage.failedMember == nil)
            #expect(damage.message.contains("gzip stream is truncated"), "\(damage.message)")
            let same = reading.bytes == expected
            #expect(same, "buffer of \(bufferSize) bytes: \(reading.bytes.count) bytes, zlib \(expected.count)")
        }
    }

    @Test func corruptDeflateDataGivesTheSameIntactBytesWhateverTheBuffer() throws {
        let directory = try TemporaryDirectory()
        // Text compresses into Huffman-coded blocks, where a changed byte is an invalid code.
        let plain = (0..<40_000).map { "observation \($0 % 977)\tCC-BY\t'Quercus robur'\n" }.joined()
        let clean = try directory.writeGzip("clean.gz", plain)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: clean)))
        for offset in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[offset] = 0xFF }
        let path = try write(bytes, "corrupt.gz", in: directory)
        let readings = try [7, 4096, 1 << 20].map { try read(path, bufferSize: $0) }
        for reading in readings {
            let damage = try #require(reading.damages.last)
            #expect(reading.damages.count == 1 && damage.failedMember == nil)
            #expect(damage.message.contains("gzip data is corrupt") || damage.message.contains("fails its"), "\(damage.message)")
            let prefix = Array(plain.utf8).starts(with: reading.bytes)
            #expect(prefix)
            #expect(reading.bytes.count == readings[2].bytes.count, "\(reading.bytes.count) bytes, \(readings[2].bytes.count) with 1 MiB")
        }
        #expect(readings[2].bytes.count > 100_000)
    }

    @Test func anEmptyMemberWhoseCheckFailsIsNamedAndTheNextMemberIsRead() throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 19, count: 4, in: directory)
        #expect(members[2].plain.isEmpty)
        var bytes = members.flatMap(\.gzip)
        let emptyEnd = members[0].gzip.count + members[1].gzip.count + members[2].gzip.count
        bytes[emptyEnd - 8] ^= 0x01
        let path = try write(bytes, "empty-broken.gz", in: directory)
        let reading = try read(path)
        let start = members[0].plain.count + members[1].plain.count
        #expect(reading.damages.map(\.failedMember) == [start..<start])
        let same = reading.bytes == members.flatMap(\.plain)
        #expect(same, "\(reading.bytes.count) bytes")
    }

    @Test func aHeaderWithItsOwnCRCNameAndExtraFieldIsRead() throws {
        let directory = try TemporaryDirectory()
        let plain = String(repeating: "Parus major\t", count: 20_000)
        let gnu = Array(try Data(contentsOf: URL(fileURLWithPath: try directory.writeGzip("plain.gz", plain))))
        // The same deflate data and trailer behind a header with every optional field: FEXTRA,
        // FNAME, FCOMMENT and FHCRC (the low 16 bits of the header's CRC-32), which GNU gzip
        // never writes.
        let script = """
            import sys, zlib
            header = bytes([0x1F, 0x8B, 8, 2 | 4 | 8 | 16, 0, 0, 0, 0, 0, 3])
            header += (6).to_bytes(2, 'little') + b'AB\\x02\\x00hi' + b'observations.csv\\x00' + b'a comment\\x00'
            header += (zlib.crc32(header) & 0xFFFF).to_bytes(2, 'little')
            open(sys.argv[1], 'wb').write(header)
            """
        let headerPath = directory.file("header.bin")
        let built = try run("/usr/bin/python3", ["-c", script, headerPath])
        #expect(built.status == 0, "\(built.stderr)")
        let member = Array(try Data(contentsOf: URL(fileURLWithPath: headerPath))) + gnu[10...]
        let path = try write(member + member, "hcrc.gz", in: directory)
        #expect(try run("/bin/gzip", ["-t", path]).status == 0)
        // The header split over reads too: the first read of a file gives 2 bytes (its magic).
        for bufferSize in [7, 1 << 20] {
            let reading = try read(path, bufferSize: bufferSize)
            #expect(reading.damages.isEmpty, "\(reading.damages.map(\.message))")
            let same = reading.bytes == Array((plain + plain).utf8)
            #expect(same, "\(reading.bytes.count) bytes")
        }
    }

    @Test(arguments: ["\n", "\u{0}\u{0}\u{0}\u{0}x", "this is not a gzip member"])
    func bytesAfterTheLastMemberThatAreNotGzipAreCorrupt(trailing: String) throws {
        let directory = try TemporaryDirectory()
        let members = try members(seed: 23, count: 1, in: directory)
        let path = try write(members[0].gzip + Array(trailing.utf8), "trailing.gz", in: directory)
        let reading = try read(path)
        let same = reading.bytes == members[0].plain
        #expect(same, "\(reading.bytes.count) bytes for \(members[0].plain.count)")
        let damage = try #require(reading.damages.first)
        #expect(damage.failedMember == nil)
        #expect(damage.message.contains("gzip data is corrupt") && damage.message.contains("incorrect header check"), "\(damage.message)")
    }

    @Test func deflateDataThatIsNoiseIsCorrupt() throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix(seed: 17)
        let noise = (0..<3000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let path = try write([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03] + noise, "noise.gz", in: directory)
        let reading = try read(path)
        let damage = try #require(reading.damages.first)
        #expect(damage.failedMember == nil)
        #expect(damage.message.contains("gzip data is corrupt"), "\(damage.message)")
    }
}

@Suite struct StreamDamageTests {
    /// A damaged archive refused whole reaches the command line's error printer as itself: it
    /// prints as its error does, not as a Swift value dump (`StreamDamage(error: …)`).
    @Test func damagePrintsAsItsError() {
        let damage = StreamDamage(FieldpackError(path: "export.tar.gz", "cannot read as a tar archive: Unrecognized archive format"))
        #expect("\(damage)" == "export.tar.gz: error: cannot read as a tar archive: Unrecognized archive format")
    }
}

@Suite struct GzipCorruptionPlaceTests {
    /// Damage near the start of a large member is named near where it is, not at the end of
    /// what was read ahead (the whole file's size for a small one).
    @Test func corruptionIsNamedNearWhereItIs() throws {
        let directory = try TemporaryDirectory()
        var generator = SplitMix(seed: 5)
        let text = (0..<40_000).map { _ in "{\"id\":\(generator.next() % 1_000_000),\"name\":\"\(generator.next())\"}" }.joined(separator: "\n")
        let path = try directory.writeGzip("big.jsonl.gz", text)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count > 300_000)
        for index in 2_000..<2_064 { bytes[index] ^= 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        let source = try GzipSource(source: RawFileSource(file: ReadableFile(path: path)))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        var message = ""
        do {
            while try source.read(into: buffer) > 0 {}
        } catch let damage as StreamDamage {
            message = damage.message
        }
        let place = try #require(message.split(separator: " ").first { Int($0.dropLast()) != nil }.flatMap { Int($0.dropLast()) }, "\(message)")
        #expect(place >= 2_000 && place < 100_000, "\(message)")
    }
}
