import FieldpackKit
import FieldpackTestSupport
import Foundation
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

    // MARK: Element starts from simdjson's structural positions

    /// The elements' starts read from the parse's structural positions, and from the byte scan.
    private func bothStarts(_ text: String, key: String?) throws -> (structural: [Int], bytes: [Int]) {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: Array(text.utf8))
        _ = try parser.parse(buffer)
        let structurals = try #require(parser.structurals(of: buffer.bytes))
        let whole = JSONScanner.elementStarts(named: key, in: buffer.bytes, structurals: structurals)
        // Read a record at a time, as ingest locates its findings: each step stops at the record
        // asked for, and the steps find the same starts as one whole walk.
        var scan = JSONScanner.ElementStartScan(named: key)
        var index = 0
        while !scan.finished {
            scan.advance(through: index, in: buffer.bytes, structurals: structurals)
            #expect(scan.starts.count == index + 1 || (scan.finished && scan.starts.count <= index + 1), "\(text) at \(index)")
            index += 1
        }
        #expect(scan.starts == whole, "\(text)")
        return (whole, JSONScanner.scanArray(named: key, in: buffer.bytes).elements.map(\.lowerBound))
    }

    @Test(arguments: [
        (#"{"total_results":2,"results":[{"id":1,"d":"say \"hi\\\""},{"id":2,"d":"\\"}],"page":1}"#, "results"),
        (#"{"page":1, "results" : [ {"a":[1,{"b":"]},{"}]}, 7 , "x,y" ,null,true, [ [ ] ] , -1.5e3 ] , "tail":{"results":[9]}}"#, "results"),
        (#"{"result":[1],"resultsx":[2],"results":[3, 4]}"#, "results"),
        (#"{"results":"not an array","other":[1,2]}"#, "results"),
        (#"{"results":[]}"#, "results"),
        (#"{"nested":{"results":[1,2]},"results":[{"k":"\u0022"}, "é", 3]}"#, "results"),
        (#"  [ {"id":1} ,{"id":2},  3, "s", [4] ]  "#, nil),
        (#"[]"#, nil),
        ("{\n  \"results\": [\n    {\"id\": 1},\n    {\"id\": 2}\n  ]\n}\n", "results"),
    ] as [(String, String?)])
    func structuralStartsAreTheByteScansStarts(text: String, key: String?) throws {
        let (structural, bytes) = try bothStarts(text, key: key)
        #expect(structural == bytes, "\(text)")
    }

    @Test(arguments: IngestSalvageTests.realPages)
    func structuralStartsAreTheByteScansStartsOnRealPages(page: String) throws {
        let text = try String(contentsOfFile: "\(samplesRoot)/\(page)", encoding: .utf8)
        let parser = JSONParser()
        let root = try parser.parse(PaddedBuffer(copying: Array(text.utf8)))
        let records = root.isArray ? root : root["results"]
        let key: String? = root.isArray ? nil : "results"
        let (structural, bytes) = try bothStarts(text, key: key)
        #expect(structural == bytes)
        #expect(structural.count == (records?.isArray == true ? Array(records!.elements).count : 0))
    }

    @Test func structuralStartsAreTheByteScansStartsOnRandomPages() throws {
        var random = SortInPlaceTests.SplitMix64(state: 5)
        let pieces = [#"{"a":"x,]}"}"#, "1", #""s\"[""#, "[]", #"{"b":[1,{"c":null}]}"#, "true", "-0.5", #""\\""#, "{}", #"[[["]"]]]"#]
        for _ in 0..<2_000 {
            let count = Int(random.next() % 6)
            let elements = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
            let space = [" ", "", "\n", "\t "][Int(random.next() % 4)]
            let text = #"{"before":[1,2],"results":["# + space + elements.joined(separator: space + "," + space) + space + #"],"after":{"results":[0]}}"#
            let (structural, bytes) = try bothStarts(text, key: "results")
            #expect(structural == bytes, "\(text)")
            #expect(structural.count == count, "\(text)")
        }
    }

    @Test func aCopyParsedInsteadHasNoStructuralsForTheOriginal() throws {
        let parser = JSONParser()
        let page = PaddedBuffer(copying: Array(#"{"results":[{"v":NaN}]}"#.utf8))
        _ = try parser.parseQuotingNonFinite(page.bytes)
        #expect(parser.structurals(of: page.bytes) == nil)
        let clean = PaddedBuffer(copying: Array(#"{"results":[1]}"#.utf8))
        _ = try parser.parse(clean)
        #expect(parser.structurals(of: clean.bytes) != nil)
        #expect(parser.structurals(of: page.bytes) == nil)
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
