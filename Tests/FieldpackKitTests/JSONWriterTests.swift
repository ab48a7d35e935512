@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct JSONWriterTests {
    /// What `body` writes, as text; a tiny starting capacity so the buffer has to grow.
    private func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: 1)
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Whether Foundation (an independent reader) accepts `text` as one JSON value.
    private func isJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil
    }

    /// `text` read back by fieldpack's own parser and copied out as a string.
    private func parsedString(_ text: String) throws -> String? {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: Array(text.utf8))
        return try parser.parse(buffer).string
    }

    // MARK: Strings

    @Test(arguments: [
        ("plain", #""plain""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\temp\"#, #""C:\\temp\\""#),
        ("line\nfeed\rreturn\ttab", #""line\nfeed\rreturn\ttab""#),
        ("\u{0}", #""\u0000""#),
        ("\u{8}\u{C}", #""\u0008\u000c""#),
        ("\u{1B}[0m", #""\u001b[0m""#),
        ("\u{1F}", #""\u001f""#),
        ("", #""""#),
    ])
    func stringsEscapeQuotesBackslashesAndControlCharacters(value: String, expected: String) {
        #expect(written { $0.string(value) } == expected)
    }

    @Test(arguments: [
        "Zoë Brontë", "蝶", "🦋 monarch", "\u{7F}", "e\u{301}",
        // Valid in JSON strings, so the writer leaves them as they are.
        "\u{2028}\u{2029}",
    ])
    func nonASCIIAndLineSeparatorsPassThroughAsUTF8(value: String) throws {
        let text = written { $0.string(value) }
        #expect(Array(text.utf8) == [UInt8(ascii: "\"")] + Array(value.utf8) + [UInt8(ascii: "\"")])
        #expect(try parsedString(text) == value)
    }

    @Test func everyControlCharacterRoundTripsThroughBothParsers() throws {
        let value = String((0..<0x20).map { Character(UnicodeScalar(UInt8($0))) }) + #""\"#
        let text = written { $0.string(value) }
        #expect(!text.utf8.dropFirst().dropLast().contains { $0 < 0x20 })
        #expect(try parsedString(text) == value)
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? String
        #expect(foundation == value)
    }

    @Test func everyStringFlavourEscapesTheSameWay() throws {
        let value = "a\"b\\c\nd"
        let escaped = written { $0.string(value) }
        #expect(written { $0.string(Optional(value)) } == escaped)
        #expect(written { $0.string("a\"b\\c\nd" as StaticString) } == escaped)
        #expect(written { $0.string(parts: ["a\"", "b\\c", "", "\nd"]) } == escaped)
        let fromBytes = Array(value.utf8).withUnsafeBytes { raw in written { $0.string(raw) } }
        #expect(fromBytes == escaped)
        let parser = JSONParser()
        let document = PaddedBuffer(copying: Array(escaped.utf8))
        let text = try #require(try parser.parse(document).text)
        #expect(written { $0.string(text) } == escaped)
        #expect(written { $0.string(Optional(text)) } == escaped)
    }

    /// The escaping as the JSON grammar states it, a byte at a time: the reference for the
    /// writer, which reads eight bytes at a time.
    private func referenceEscaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    @Test func bytesToEscapeAreFoundAtEveryPositionOfLongStrings() {
        // Bytes next to the escaped ones in value, and bytes whose bits differ from theirs by the
        // high bit (0xA2, 0xDC, 0x9F, 0x80): a word-at-a-time search must neither miss the first
        // nor stop early.
        let alphabet: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x61, 0x7F,
                                 0x80, 0x9F, 0xA0, 0xA2, 0xDC, 0xFF]
        var random = SortInPlaceTests.SplitMix64(state: 11)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 40)
            // Mostly plain bytes, as in real text, with a special one here and there.
            let bytes: [UInt8] = (0..<length).map { _ in
                random.next() % 4 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(ascii: "a") + UInt8(random.next() % 26)
            }
            let written = bytes.withUnsafeBytes { raw in
                var writer = JSONWriter(capacity: 1)
                writer.string(raw)
                return Array(writer.bytes)
            }
            #expect(written == referenceEscaped(bytes), "\(bytes)")
            // The word search stops exactly at the first byte to escape, or where fewer than
            // eight bytes are left before it.
            for start in 0...bytes.count {
                let first = bytes[start...].firstIndex { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
                let found = bytes.withUnsafeBytes { JSONWriter.firstToEscape(in: $0, from: start) }
                if let first, first + 8 <= bytes.count || found == first {
                    #expect(found == first, "\(bytes) from \(start)")
                } else {
                    #expect(found <= (first ?? bytes.count) && found + 8 > bytes.count, "\(bytes) from \(start)")
                }
            }
        }
    }

    @Test func missingStringsAreNull() {
        #expect(written { $0.string(nil as String?) } == "null")
        #expect(written { $0.string(nil as JSONText?) } == "null")
    }

    @Test func dynamicKeysAreEscaped() {
        let text = written {
            $0.beginObject()
            $0.key(dynamic: "say \"hi\"\n")
            $0.int(1)
            $0.endObject()
        }
        #expect(text == #"{"say \"hi\"\n":1}"#)
        #expect(isJSON(text))
    }

    // MARK: Numbers

    @Test(arguments: [
        (Int64(0), "0"), (7, "7"), (-1, "-1"), (-42, "-42"), (1_000_000, "1000000"),
        (1_234_567_890_123, "1234567890123"),
        (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
    ])
    func integersAreWrittenInDecimal(value: Int64, expected: String) {
        #expect(written { $0.int(value) } == expected)
        #expect(written { $0.int(Optional(value)) } == expected)
    }

    @Test func intAndMissingIntegers() {
        #expect(written { $0.int(-123 as Int) } == "-123")
        #expect(written { $0.int(nil as Int64?) } == "null")
    }

    @Test(arguments: [
        (0.1, "0.1"), (1.5, "1.5"), (-2.25, "-2.25"), (0.1 + 0.2, "0.30000000000000004"),
        (1.0 / 3.0, "0.3333333333333333"), (Double.leastNonzeroMagnitude, "5e-324"), (1e-7, "1e-07"),
        (1e21, "1e+21"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        // Integral values below 1e15 are written as integers…
        (3.0, "3"), (-10.0, "-10"), (999_999_999_999_999.0, "999999999999999"), (0.0, "0"),
        // …which drops the sign of negative zero (it reads back as the integer 0).
        (-0.0, "0"),
        // …and from 1e15 on as Swift describes them (decimal up to 2^53, then exponent form).
        (1e15, "1000000000000000.0"), (-1e16, "-1e+16"),
    ])
    func doublesAreWrittenShortestRoundTrip(value: Double, expected: String) {
        let text = written { $0.double(value) }
        #expect(text == expected)
        #expect(isJSON(text))
    }

    @Test func everyWrittenDoubleReadsBackToTheSameValue() {
        var values: [Double] = (1...2000).map { Double($0) * 0.1 }
        values += (-30...30).map { pow(10, Double($0)) }
        values += (-30...30).map { -Double.pi * pow(10, Double($0)) }
        values += [.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 2.0.squareRoot()]
        for value in values {
            let text = written { $0.double(value) }
            #expect(Double(text) == value, "\(value) written as \(text)")
            #expect(isJSON(text), "\(value) written as \(text)")
            #expect(text.utf8.count <= value.description.utf8.count, "\(text) is longer than \(value)")
        }
    }

    @Test func missingDoublesAreNull() {
        #expect(written { $0.double(nil as Double?) } == "null")
    }

    /// JSON has no NaN or infinity; a writer that promises JSON writes them as null.
    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteDoublesAreWrittenAsNull(value: Double) {
        let text = written {
            $0.beginArray()
            $0.double(value)
            $0.endArray()
        }
        #expect(text == "[null]")
        #expect(isJSON(text), "written as \(text)")
    }

    // MARK: Other scalars

    @Test func booleansAndNull() {
        #expect(written { $0.bool(true) } == "true")
        #expect(written { $0.bool(false) } == "false")
        #expect(written { $0.bool(Optional(true)) } == "true")
        #expect(written { $0.bool(nil as Bool?) } == "null")
        #expect(written { $0.null() } == "null")
    }

    // MARK: Containers

    @Test func arrayValuesAreSeparatedByCommas() {
        let text = written {
            $0.beginArray()
            $0.int(1); $0.string("a"); $0.null(); $0.bool(true); $0.bool(false); $0.double(2.5)
            $0.endArray()
        }
        #expect(text == #"[1,"a",null,true,false,2.5]"#)
    }

    @Test func objectMembersAreSeparatedByCommasInTheOrderWritten() {
        let text = written {
            $0.beginObject()
            $0.key("z"); $0.int(1)
            $0.key("a"); $0.beginArray(); $0.endArray()
            $0.key("m"); $0.beginObject(); $0.endObject()
            $0.key(dynamic: "d"); $0.string("x")
            $0.endObject()
        }
        #expect(text == #"{"z":1,"a":[],"m":{},"d":"x"}"#)
    }

    @Test func nestedContainersGetCommasAfterTheyClose() {
        let text = written {
            $0.beginArray()
            $0.beginArray(); $0.endArray()
            $0.beginArray(); $0.int(1); $0.endArray()
            $0.beginObject()
            $0.key("k"); $0.beginArray(); $0.beginObject(); $0.key("x"); $0.null(); $0.endObject(); $0.int(2); $0.endArray()
            $0.key("l"); $0.beginObject(); $0.endObject()
            $0.endObject()
            $0.string("end")
            $0.endArray()
        }
        #expect(text == #"[[],[1],{"k":[{"x":null},2],"l":{}},"end"]"#)
        #expect(isJSON(text))
    }

    @Test func newlineEndsARecordWithoutAComma() {
        let text = written {
            for id in [1, 2] {
                $0.beginArray(); $0.string("user"); $0.int(id); $0.endArray(); $0.newline()
            }
        }
        #expect(text == "[\"user\",1]\n[\"user\",2]\n")
    }

    @Test func rawIsOneValueAmongOthers() {
        let text = written {
            $0.beginArray()
            $0.int(1)
            $0.raw(Array(#"{"a":[1,2]}"#.utf8))
            $0.int(2)
            $0.endArray()
        }
        #expect(text == #"[1,{"a":[1,2]},2]"#)
    }

    // MARK: Buffer handling

    @Test func truncateDropsABadRecordAndTheNextStartsClean() {
        var writer = JSONWriter(capacity: 1)
        writer.beginArray(); writer.int(1); writer.endArray(); writer.newline()
        let good = writer.count
        writer.beginArray(); writer.int(2); writer.string("half a record")
        writer.truncate(to: good)
        #expect(writer.count == good)
        writer.beginArray(); writer.int(3); writer.endArray(); writer.newline()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "[1]\n[3]\n")
    }

    @Test func takeHandsTheBytesOverAndGoesOnEmpty() {
        var writer = JSONWriter()
        writer.beginArray(); writer.int(1)
        let taken = writer.take()
        #expect(String(decoding: taken.bytes, as: UTF8.self) == "[1")
        #expect(writer.count == 0)
        writer.int(2)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "2")
        let replacement = ByteBuffer()
        replacement.append(Array("junk".utf8))
        _ = writer.take(replacement: replacement)
        writer.null()
        #expect(String(decoding: replacement.bytes, as: UTF8.self) == "null")
    }

    @Test func resetEmptiesTheWriter() {
        var writer = JSONWriter()
        writer.beginArray(); writer.int(1)
        writer.reset()
        writer.int(2)
        #expect(writer.bytes == Array("2".utf8))
    }

    // MARK: Copying parsed values

    private func rewritten(_ document: String) throws -> String {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: Array(document.utf8))
        let value = try parser.parse(buffer)
        return written { $0.value(value) }
    }

    @Test func valueRewritesACompactDocumentByteForByte() throws {
        let document = #"{"b":1,"a":[true,false,null,-7,0.5,"x\"y\\z\n",{"":[]},[[]]],"#
            + #""max":9223372036854775807,"min":-9223372036854775808,"zoë":"蝶","e":1e+21,"o":{"k":{"k":[1,{}]}}}"#
        #expect(try rewritten(document) == document)
    }

    @Test(arguments: [
        (" [ 1 , 2 ]\n", "[1,2]"),
        (#"{"a" : 1.0, "b": 1E2, "c": 2.50}"#, #"{"a":1,"b":100,"c":2.5}"#),
        (#""\u00e9\/\u0001""#, #""é/\u0001""#),
        (#"{"k":1,"k":2}"#, #"{"k":1,"k":2}"#),
        ("[]", "[]"), ("{}", "{}"), ("null", "null"), ("-0", "0"),
    ])
    func valueWritesAParsedDocumentCompactly(document: String, expected: String) throws {
        #expect(try rewritten(document) == expected)
    }

    @Test func valueAfterOtherValuesGetsItsComma() throws {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: Array(#"{"a":[1,2]}"#.utf8))
        let value = try parser.parse(buffer)
        let text = written {
            $0.beginArray(); $0.int(0); $0.value(value); $0.value(value); $0.endArray()
        }
        #expect(text == #"[0,{"a":[1,2]},{"a":[1,2]}]"#)
    }
}
