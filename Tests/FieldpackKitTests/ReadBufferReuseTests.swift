@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// Ingest's workers read file after file into one buffer each: a 1 MiB buffer allocated and freed
/// per file cost a page fault per page of it, and with glibc's default heap the freed blocks
/// fragmented it, so ingest's memory grew with the number of files.
@Suite struct ReadBufferReuseTests {
    private func lines(_ reader: LineReader) throws -> [String] {
        var lines: [String] = []
        while let line = try reader.next() { lines.append(String(decoding: line.bytes, as: UTF8.self)) }
        return lines
    }

    @Test func aReaderGivenAnotherFilesBufferReadsOnlyItsOwnLines() throws {
        let buffer = PaddedBuffer(capacity: 64)
        let long = String(repeating: "x", count: 1000)
        let first = LineReader(source: MemorySource(Array("\(long)\nan unterminated tail".utf8)), buffer: buffer)
        #expect(try lines(first) == [long, "an unterminated tail"])
        #expect(buffer.capacity >= 1000)

        let second = LineReader(source: MemorySource(Array("a\nb".utf8), chunk: 1), buffer: buffer)
        #expect(second.buffer === buffer)
        #expect(try lines(second) == ["a", "b"])
    }

    /// The wiki stage gives back what a multi-megabyte article's line grew the buffer to, in the
    /// middle of a file: the lines read ahead of it are kept.
    @Test(arguments: [1, 4096, 64 << 10])
    func aReaderThatGaveBackALongLinesBufferReadsTheSameLinesAfterIt(chunk: Int) throws {
        let long = String(repeating: "y", count: 3 << 20)
        let after = (0..<2000).map { "line \($0) after the long one" }
        let text = (["first", long] + after).joined(separator: "\n") + "\nunterminated"
        let reader = LineReader(source: MemorySource(Array(text.utf8), chunk: chunk))
        #expect(try reader.next().map { String(decoding: $0.bytes, as: UTF8.self) } == "first")
        #expect(try reader.next()?.bytes.count == long.utf8.count)
        #expect(reader.buffer.capacity >= 3 << 20)
        reader.shrinkBuffer(toAtMost: 1 << 20)
        #expect(reader.buffer.capacity == 1 << 20)
        #expect(try lines(reader) == after + ["unterminated"])
        #expect(reader.linesRead == 2 + after.count + 1)
    }

    @Test func aWorkerReadsEveryFileIntoOneBufferAndDropsOneGrownForALargeDocument() throws {
        let ingest = FileIngest(maxDocumentBytes: 64 << 20)
        let part = PartBuffer(spillPath: "/nonexistent/fieldpack-read-buffer.spill")
        let small = Array(page([observationJSON(id: 1)]).utf8)
        let kept = ingest.readBuffer()

        var result = try ingest.ingest(MemorySource(small), path: "a.json", index: 0, gzip: false, output: part)
        #expect(result.accepted == 1)
        #expect(ingest.readBuffer() === kept)

        // One page past the kept size (a long description): read whole, then not kept.
        let description = String(repeating: "d", count: FileIngest.keptReadBufferBytes + 1)
        let large = Array(page([observationJSON(id: 2, extra: #","description":"\#(description)""#)]).utf8)
        result = try ingest.ingest(MemorySource(large), path: "b.json", index: 1, gzip: false, output: part)
        #expect(result.accepted == 1)
        let fresh = ingest.readBuffer()
        #expect(fresh !== kept)
        #expect(fresh.capacity == 1 << 20)

        result = try ingest.ingest(MemorySource(small), path: "c.json", index: 2, gzip: false, output: part)
        #expect(result.accepted == 1)
        #expect(ingest.readBuffer() === fresh)
    }
}
