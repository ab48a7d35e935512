@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Synchronization
import Testing

/// `ReadAheadSource` reads a source on a thread of its own: whatever the blocks and buffers, its
/// reader sees exactly what reading the source directly gives, damage and errors in place.
@Suite(.timeLimit(.minutes(1))) struct ReadAheadSourceTests {
    /// What a source gives, read after read.
    enum Event: Equatable, CustomStringConvertible {
        case bytes([UInt8])
        /// A `StreamDamage`: a failed gzip member (reading goes on) or not (the stream ends).
        case damage(String, member: Bool)
        case failure(String)
        case end

        var description: String {
            switch self {
            case .bytes(let bytes): "\(bytes.count) bytes (\(bytes.reduce(into: UInt64(1469598103934665603)) { $0 = ($0 ^ UInt64($1)) &* 1099511628211 }))"
            case .damage(let message, let member): "damage\(member ? " of a member" : ""): \(message)"
            case .failure(let message): "failure: \(message)"
            case .end: "end"
            }
        }
    }

    /// A source that gives `events` in turn, then the end for ever (or, after a failure, the
    /// failure again), refusing to be read by two threads at once.
    final class Scripted: ByteSource, @unchecked Sendable {
        private var events: [Event]
        /// How much of the first event's bytes was given.
        private var offset = 0
        private let reading = Atomic<Bool>(false)
        private(set) var reads = 0

        init(_ events: [Event]) { self.events = events }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            precondition(reading.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged, "read by two threads at once")
            defer { reading.store(false, ordering: .releasing) }
            reads += 1
            guard let event = events.first else { return 0 }
            switch event {
            case .bytes(let bytes):
                // As much as fits: the rest stays for the next read.
                let count = min(buffer.count, bytes.count - offset)
                buffer.copyBytes(from: bytes[offset..<(offset + count)])
                offset += count
                if offset == bytes.count {
                    events.removeFirst()
                    offset = 0
                }
                return count
            case .damage(let message, let member):
                events.removeFirst()
                throw StreamDamage(FieldpackError(message), failedMember: member ? 0..<1 : nil)
            case .failure(let message):
                throw FieldpackError(message)
            case .end:
                events.removeFirst()
                return 0
            }
        }
    }

    /// Reads `source` with a buffer of `bufferSize` until the end or an error that ends it
    /// (`StreamDamage` without a member, or any other), then once more: the events, bytes merged.
    static func drain(_ source: ByteSource, bufferSize: Int) -> [Event] {
        var events: [Event] = []
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var stopped = false
        func flush() {
            if !bytes.isEmpty { events.append(.bytes(bytes)) }
            bytes = []
        }
        for _ in 0..<50_000 {
            do {
                let got = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if got > 0 {
                    bytes += buffer[0..<got]
                    continue
                }
                flush()
                events.append(.end)
            } catch let damage as StreamDamage {
                flush()
                events.append(.damage(damage.message, member: damage.failedMember != nil))
                if damage.failedMember != nil { continue }
            } catch {
                flush()
                events.append(.failure("\(error)"))
            }
            // One more read after the end or an ending error: what comes after it.
            if stopped { return events }
            stopped = true
        }
        Issue.record("the source never ended")
        return events
    }

    /// Seeded bytes, `count` of them from the `seed`th offset of one shared stream.
    static func bytes(_ count: Int, seed: Int) -> [UInt8] { Array(random[seed..<(seed + count)]) }

    private static let random: [UInt8] = {
        var random = SplitMix(seed: 17)
        return (0..<(1 << 20) + 16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }()

    @Test(arguments: [(1, 7), (2, 4096), (4, 1 << 16), (3, 100_003)])
    func itsReaderSeesWhatTheSourceGivesInOrder(blocks: Int, blockBytes: Int) {
        let scripts: [[Event]] = [
            // Blocks of 7 bytes hand over a block per thread switch: a shorter stream for them.
            [.bytes(Self.bytes(blockBytes < 4096 ? 5_000 : 300_000, seed: 1))],
            [],
            [.bytes(Self.bytes(10, seed: 2)), .damage("member 1 fails its CRC-32 check", member: true),
             .bytes(Self.bytes(5_000, seed: 3)), .damage("member 2 fails its length check", member: true),
             .damage("member 3 fails its CRC-32 check", member: true), .bytes(Self.bytes(5, seed: 4))],
            [.bytes(Self.bytes(5_000, seed: 5)), .damage("gzip stream is truncated", member: false)],
            [.bytes(Self.bytes(5_000, seed: 6)), .failure("read error: Input/output error")],
            [.failure("read error at once")],
        ]
        for (index, script) in scripts.enumerated() {
            // One byte at a time (slow in a debug build) only through the shorter scripts, in
            // blocks of 7 bytes.
            for bufferSize in [1, 1000, 1 << 20] where bufferSize > 1 || (index > 0 && blockBytes < 4096) {
                let direct = Self.drain(Scripted(script), bufferSize: bufferSize)
                let ahead = Self.drain(ReadAheadSource(Scripted(script), blocks: blocks, blockBytes: blockBytes), bufferSize: bufferSize)
                #expect(ahead == direct, "script \(index), buffer \(bufferSize)")
            }
        }
    }

    /// A reader that stops early takes its source back at once: the thread has stopped (the
    /// source is read by nobody else), and reading on gives the blocks read ahead, then the rest
    /// from the source itself: the same bytes in all. A reader freed unread leaves no thread
    /// holding its source.
    @Test func stoppingTakesTheSourceBackAndLosesNoByte() throws {
        let whole = Self.bytes(1 << 20, seed: 7)
        let source = Scripted([.bytes(whole), .damage("member 1 fails its CRC-32 check", member: true), .bytes(Self.bytes(10, seed: 9))])
        let ahead = ReadAheadSource(source, blocks: 2, blockBytes: 1 << 16)
        var buffer = [UInt8](repeating: 0, count: 100)
        var read = Array(buffer[0..<(try buffer.withUnsafeMutableBytes { try ahead.read(into: $0) })])
        ahead.stop()
        // At most the blocks it holds, and one being read when it was told to stop.
        #expect(source.reads <= 3)
        let events = Self.drain(ahead, bufferSize: 1000)
        guard case .bytes(let rest)? = events.first else {
            Issue.record("no bytes after stop: \(events)")
            return
        }
        read += rest
        // Bool comparisons: a failed `==` of two large arrays would be diffed element by element.
        #expect(read.elementsEqual(whole), "\(read.count) bytes read of \(whole.count)")
        #expect(Array(events.dropFirst()) == [.damage("member 1 fails its CRC-32 check", member: true), .bytes(Self.bytes(10, seed: 9)), .end, .end])

        weak var freed: Scripted? = nil
        for _ in 0..<20 {
            let unread = Scripted([.bytes(whole)])
            freed = unread
            _ = ReadAheadSource(unread, blocks: 1, blockBytes: 4096)
        }
        #expect(freed == nil)
    }

    /// Through ingest, a gzipped export table large enough to be read ahead
    /// (`ReadAheadSource.isWorthwhile`), of many blocks, gives the same records and rejects as the
    /// same table plain, and its `input` record the gzip file's own size and SHA-256 (read from
    /// the raw file once the thread has stopped).
    @Test func aGzippedTableIngestsAsItsPlainSelf() throws {
        let directory = try TemporaryDirectory()
        var table = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        var random = SplitMix(seed: 3)
        func hex(_ value: Int, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        for id in 1...90_000 {
            let link = "\(hex(id / 2, 8))-0000-4000-8000-\(hex(random.next() & 0xFFFF_FFFF_FFFF, 12))"
            // One row in 1,000 has no photo id: a reject, the same from both.
            table += "\(hex(id, 8))-1111-4111-8111-111111111111\t\(id % 1000 == 0 ? "" : String(id))\t\(link)\t\(id % 97 + 1)\tjpg\tCC-BY\t2048\t1536\t\(id % 3)\n"
        }
        let plain = try directory.write("photos.csv", table)
        let gzipped = directory.file("photos.csv.gz")
        // Stored, not deflated (zlib's level 0), so that the file is as large as the table.
        try run("/usr/bin/python3", ["-c", "import gzip, sys; open(sys.argv[2], 'wb').write(gzip.compress(open(sys.argv[1], 'rb').read(), 0))", plain, gzipped])
        #expect(ReadAheadSource.isWorthwhile(forGzip: gzipped))
        var outputs: [[String]] = []
        for input in [plain, gzipped] {
            var options = INatIngest.Options(inputs: [input], output: directory.file("r.jsonl"), rejects: directory.file("x.jsonl"))
            options.openDataDate = Timestamp.day("2024-11-27")
            options.maxRejectRate = 1
            _ = try INatIngest(options: options).run()
            // The records but their input line (its name, size and digest differ), and the rejects.
            let records = try lines(directory.file("r.jsonl"))
            outputs.append(records.filter { !$0.hasPrefix("[\"input\"") } + (try lines(directory.file("x.jsonl"))))
            // ["input", index, path, bytes, sha256, …]
            let line = try #require(records.first { $0.hasPrefix("[\"input\"") })
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any])
            #expect(record[3] as? Int == FileSystem.size(input))
            let digest = try run("/usr/bin/sha256sum", [input]).stdout.prefix(64)
            #expect(record[4] as? String == String(digest))
        }
        #expect(outputs[0].count > 90_000)
        let named = outputs[1].map { $0.replacingOccurrences(of: "photos.csv.gz", with: "photos.csv") }
        #expect(outputs[0].elementsEqual(named), "\(outputs[0].count) lines plain, \(named.count) gzipped")
    }
}
