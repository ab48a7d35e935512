@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
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
        private var reading = false
        private(set) var reads = 0

        init(_ events: [Event]) { self.events = events }

        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            precondition(!reading, "read by two threads at once")
            reading = true
            defer { reading = false }
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

    /// A reader that stops early frees the source at once: the thread is stopped, the source
    /// is not read again, and reading on gives what was read ahead, then the end.
    @Test func stoppingTakesTheSourceBackAndReadsNoFurther() throws {
        let source = Scripted([.bytes(Self.bytes(1 << 20, seed: 7))])
        let ahead = ReadAheadSource(source, blocks: 2, blockBytes: 1 << 16)
        var buffer = [UInt8](repeating: 0, count: 100)
        #expect(try buffer.withUnsafeMutableBytes { try ahead.read(into: $0) } == 100)
        ahead.stop()
        let reads = source.reads
        // At most the blocks it holds, and one being read when it was told to stop.
        #expect(reads <= 3)
        var total = 100
        while true {
            let got = try buffer.withUnsafeMutableBytes { try ahead.read(into: $0) }
            if got == 0 { break }
            total += got
        }
        #expect(source.reads == reads)
        #expect(total <= 3 << 16)
        // Freed without being read: no thread is left waiting.
        let long = Self.bytes(1 << 20, seed: 8)
        for _ in 0..<50 { _ = ReadAheadSource(Scripted([.bytes(long)]), blocks: 1, blockBytes: 4096) }
    }

    /// Through ingest, a gzipped export table gives the same records and rejects as the same
    /// table plain (ingest reads every gzip input ahead).
    @Test func aGzippedTableIngestsAsItsPlainSelf() throws {
        let directory = try TemporaryDirectory()
        let table = directory.file("photos.csv")
        try FileManager.default.copyItem(atPath: "\(repositoryRoot)/sample-data/open-data/photos.csv", toPath: table)
        let gzipped = directory.file("photos.csv.gz")
        try run("/bin/sh", ["-c", "gzip -c '\(table)' > '\(gzipped)'"])
        var outputs: [[String]] = []
        for input in [table, gzipped] {
            var options = INatIngest.Options(inputs: [input], output: directory.file("r.jsonl"), rejects: directory.file("x.jsonl"))
            options.openDataDate = OpenDataDate.parse("2024-11-27")
            options.maxRejectRate = 1
            _ = try INatIngest(options: options).run()
            // The records but their input line (its name, size and digest differ), and the rejects.
            outputs.append(try lines(directory.file("r.jsonl")).filter { !$0.hasPrefix("[\"input\"") } + (try lines(directory.file("x.jsonl"))))
        }
        #expect(outputs[0].count > 10)
        #expect(outputs[0] == outputs[1].map { $0.replacingOccurrences(of: "photos.csv.gz", with: "photos.csv") })
    }
}
