import FieldpackKit
import Testing

/// `JSONScanner`, which finds a page's records without a full parse (a bad record's line, the
/// records of a truncated page): its string skipping against the byte-at-a-time rule it replaced.
@Suite struct JSONScannerTests {
    /// The rule as a loop over every byte: a backslash escapes the byte after it; the first
    /// unescaped quote ends the string (`count` or past it: never closed).
    private func referenceEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") { index += 1 }
            index += 1
        }
        return min(index, bytes.count)
    }

    private func end(_ bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBytes { JSONScanner.stringEnd(in: $0, from: start) }
    }

    @Test func aStringEndsAtTheFirstQuoteNotEscapedByAnOddRunOfBackslashes() {
        #expect(end(Array(#""plain" x"#.utf8), from: 1) == 6)
        #expect(end(Array(#""a\"b" x"#.utf8), from: 1) == 5)
        #expect(end(Array(#""a\\" x"#.utf8), from: 1) == 4)
        #expect(end(Array(#""a\\\"b" x"#.utf8), from: 1) == 7)
        #expect(end(Array(#""\"" x"#.utf8), from: 1) == 3)
        #expect(end(Array(#""never closed\"#.utf8), from: 1) == 14)
        #expect(end(Array(#""""#.utf8), from: 1) == 1)
    }

    @Test func stringEndsAgreeWithTheByteAtATimeRuleOnRandomQuotesAndBackslashes() {
        var random = SortInPlaceTests.SplitMix64(state: 11)
        let alphabet: [UInt8] = [UInt8(ascii: "a"), UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "\\")]
        for _ in 0..<5_000 {
            let length = Int(random.next() % 24)
            let bytes = (0..<length).map { _ in alphabet[Int(random.next() % 4)] }
            for start in 0...length {
                #expect(end(bytes, from: start) == referenceEnd(bytes, from: start), "\(String(decoding: bytes, as: UTF8.self)) from \(start)")
            }
        }
    }

    @Test func recordsWithEscapedQuotesAndBackslashesAreFoundWhole() {
        let page = #"{"total_results":2,"results":[{"id":1,"d":"say \"hi\\\""},{"id":2,"d":"\\"}],"page":1}"#
        let bytes = Array(page.utf8)
        let scan = bytes.withUnsafeBytes { JSONScanner.scanArray(named: "results", in: $0) }
        #expect(scan.closed)
        #expect(scan.elements.map { String(decoding: bytes[$0], as: UTF8.self) }
            == [#"{"id":1,"d":"say \"hi\\\""}"#, #"{"id":2,"d":"\\"}"#])
    }
}
