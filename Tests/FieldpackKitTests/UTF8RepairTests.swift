import FieldpackKit
import Testing

/// The repair `HTMLDocument` makes of a page with NUL bytes or bad UTF-8 before libxml2 reads it
/// (`repairedUTF8WithoutNUL`): one pass over the bytes, giving what the repair through `String`
/// gave before, byte for byte, so no blurb changes.
@Suite struct UTF8RepairTests {
    /// The repair as it was made through `String`: Swift's decoding (one U+FFFD per maximal
    /// ill-formed subpart), then each NUL scalar replaced.
    private func throughString(_ bytes: [UInt8]) -> [UInt8] {
        let decoded = String(decoding: bytes, as: UTF8.self)
        return Array(String(String.UnicodeScalarView(decoded.unicodeScalars.map { $0 == "\0" ? "\u{FFFD}" : $0 })).utf8)
    }

    private func repaired(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { repairedUTF8WithoutNUL($0) }
    }

    @Test(arguments: [
        ([0x61, 0x00, 0x62], [0x61, 0xEF, 0xBF, 0xBD, 0x62]),
        // Eight ASCII bytes with a NUL among them: the word-at-a-time path must see it.
        (Array("abcdefg\0hijklmno".utf8), Array("abcdefg\u{FFFD}hijklmno".utf8)),
        // A lone continuation byte, an overlong lead, a byte never in UTF-8: one U+FFFD each.
        ([0x80, 0xC0, 0xFF], Array("\u{FFFD}\u{FFFD}\u{FFFD}".utf8)),
        // A truncated three-byte sequence is one U+FFFD, and the byte after it is read again.
        ([0xE2, 0x82, 0x41], Array("\u{FFFD}A".utf8)),
        // A surrogate (ED A0 80) is three ill-formed subparts; E0 80 is two (overlong).
        ([0xED, 0xA0, 0x80], Array("\u{FFFD}\u{FFFD}\u{FFFD}".utf8)),
        ([0xE0, 0x80, 0x41], Array("\u{FFFD}\u{FFFD}A".utf8)),
        // Past U+10FFFF (F4 90), and a four-byte sequence cut by the end.
        ([0xF4, 0x90, 0x80, 0x80], Array("\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}".utf8)),
        ([0x41, 0xF0, 0x9F, 0x98], Array("A\u{FFFD}".utf8)),
        // Well-formed text is kept as it is, NUL aside.
        (Array("Forêt \u{1F98B} 東京\0".utf8), Array("Forêt \u{1F98B} 東京\u{FFFD}".utf8)),
    ] as [([UInt8], [UInt8])])
    func eachNulAndEachIllFormedSubpartBecomesOneReplacementCharacter(input: [UInt8], expected: [UInt8]) {
        #expect(repaired(input) == expected)
        #expect(throughString(input) == expected)
    }

    /// Many short inputs drawn from the bytes where UTF-8's rules change (a fixed seed, so the
    /// same inputs every run), and a long page with damage scattered through it.
    @Test func theRepairGivesTheBytesTheRepairThroughStringGave() {
        let edges: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1,
                              0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var state: UInt64 = 15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var differing: [[UInt8]] = []
        for _ in 0..<20_000 {
            let bytes = (0..<Int(next() % 20)).map { _ in
                next() % 4 == 0 ? UInt8(truncatingIfNeeded: next()) : edges[Int(next() % UInt64(edges.count))]
            }
            if repaired(bytes) != throughString(bytes) { differing.append(bytes) }
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")

        var page = Array(String(repeating: "<p>Danaus plexippus, le monarque, 東京 \u{1F98B}.</p>\n", count: 2_000).utf8)
        for index in stride(from: 7, to: page.count, by: 301) { page[index] = next() % 2 == 0 ? 0 : UInt8(truncatingIfNeeded: next()) }
        #expect(repaired(page) == throughString(page))
    }
}
