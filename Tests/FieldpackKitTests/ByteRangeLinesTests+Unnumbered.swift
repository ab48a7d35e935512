@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A plain file's byte ranges read without numbering the lines before them
/// (`ByteRangeLines.reader(numbered: false)`, ingest's plan of the export): together they give every
/// line once, in order, and only the file's first line (a table's header) is numbered 1.
extension ByteRangeLinesTests {
    @Test func unnumberedRangesGiveEveryLineOnceAndOnlyTheFirstAsLineOne() throws {
        let directory = try TemporaryDirectory()
        var generator = SplitMix(seed: 11)
        for trial in 0..<40 {
            // Lines of random lengths (some empty), with or without a final newline.
            var lines: [String] = ["header"]
            for index in 0..<(generator.next() % 40) {
                lines.append(String(repeating: "x", count: generator.next() % 30) + "\(index)")
            }
            let text = lines.joined(separator: "\n") + (trial % 3 == 0 ? "" : "\n")
            let path = try directory.write("t\(trial).tsv", text)
            let size = text.utf8.count
            for count in 1...9 {
                var read: [String] = []
                var ones = 0
                for range in ByteRangeLines.cuts(size: size, count: count) {
                    let reader = try ByteRangeLines.reader(path: path, range: range, numbered: false)
                    while let line = try reader.next() {
                        read.append(String(decoding: line.bytes, as: UTF8.self))
                        if line.number == 1 { ones += 1 }
                        #expect(line.number == 1 ? line.offset == 0 : line.offset > 0)
                    }
                }
                #expect(read == lines, "trial \(trial), \(count) ranges of \(size) bytes")
                #expect(ones == 1, "trial \(trial), \(count) ranges")
            }
        }
    }
}
