@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A hand-edited pipeline or GeoJSON file that is not JSON is reported at the line and column
/// of its first mistake, in words a person can act on (simdjson gives neither).
@Suite struct JSONSyntaxLocationTests {
    static func locate(_ text: String) -> JSONSyntaxLocation? {
        Array(text.utf8).withUnsafeBytes { JSONSyntaxLocation.first(in: $0) }
    }

    @Test(arguments: [
        // A missing comma between two members: the next key, on its own line.
        ("{\n  \"name\": \"x\",\n  \"inat\": [\"a\"]\n  \"wikipedia\": []\n}\n", 4, 3, "expected ',' or '}' after an object's member, found a string (a missing comma?)"),
        ("[1 2]", 1, 4, "expected ',' or ']' after an array's element, found '2' (a missing comma?)"),
        ("{\"a\": 1,\n}", 2, 1, "a ',' right before '}': JSON allows no comma after the last member"),
        ("[1, 2,]", 1, 7, "a ',' right before ']': JSON allows no comma after the last element"),
        ("{name: \"x\"}", 1, 2, "expected a key in double quotes, found 'name'"),
        ("{'name': 'x'}", 1, 2, "expected a key in double quotes, found ''' (JSON strings take double quotes)"),
        ("{\"a\" 1}", 1, 6, "expected ':' after the key, found '1'"),
        ("{\"a\": True}", 1, 7, "expected a value, found 'True'"),
        ("{\"a\": }", 1, 7, "expected a value, found '}'"),
        ("{\n  // the park\n  \"a\": 1}", 2, 3, "expected a key in double quotes, found a comment (JSON has none; a key starting with \"_\" is one in a pipeline file)"),
        ("{\"a\": 01}", 1, 7, "'01' is not a JSON number"),
        ("{\"a\": 1.}", 1, 7, "'1.' is not a JSON number"),
        ("{\"a\": -}", 1, 7, "'-' is not a JSON number"),
        // JSON, but refused by simdjson with no place ("Problem while parsing a number").
        ("{\n  \"max_reject_rate\": 1e400\n}", 2, 22, "'1e400' is a number out of any 64-bit range (an integer beyond 64 bits, or past ±1.8e308)"),
        ("[18446744073709551616]", 1, 2, "'18446744073709551616' is a number out of any 64-bit range (an integer beyond 64 bits, or past ±1.8e308)"),
        ("{\"a\": 1}}", 1, 9, "'}' after the end of the document (a second document, or a stray character?)"),
        ("{\"a\": \"x\\qy\"}", 1, 9, "'\\q' is not an escape JSON knows (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"),
        ("{\"a\": \"x\\u12\"}", 1, 9, "'\\u' must be followed by four hexadecimal digits"),
        ("{\"a\": \"\\ud800x\"}", 1, 8, "a high surrogate '\\uD800' without its low half"),
        ("{\"a\": \"line\nbreak\"}", 1, 12, "a line break inside a string (write it as an escape, or is a closing '\"' missing?)"),
        ("{\"a\": \"open}", 1, 7, "a string that is never closed (a missing '\"')"),
        // Cut after a backslash (`"C:\`): the locator looped for ever.
        ("{\"inat\": [\"C:\\", 1, 11, "a string that is never closed (a missing '\"')"),
        ("{\"é\": 1, \"b\": 2 \"c\": 3}", 1, 17, "expected ',' or '}' after an object's member, found a string (a missing comma?)"),
        ("", 1, 1, "the file is empty"),
        ("  \n ", 2, 2, "the file holds no value"),
    ] as [(String, Int, Int, String)])
    func aMistakeIsNamedWhereItIs(text: String, line: Int, column: Int, reason: String) throws {
        let place = try #require(Self.locate(text))
        #expect(place.line == line && place.column == column, "\(place)")
        #expect(place.reason == reason)
    }

    /// Where the unclosed container opened is named, at the end of the file and at the other
    /// kind of closing bracket (which said only "found '}'").
    @Test func anUnclosedContainerIsReportedWithWhereItOpened() throws {
        let place = try #require(Self.locate("{\n  \"targets\": [\n    {\"name\": \"a\"}\n}\n"))
        #expect(place.line == 4 && place.column == 1)
        #expect(place.reason == "expected ',' or ']' after an array's element, found '}' (the '[' opened at line 2, column 14 is not closed)")
        let object = try #require(Self.locate("[{\"a\": 1]"))
        #expect(object.reason == "expected ',' or '}' after an object's member, found ']' (the '{' opened at line 1, column 2 is not closed)")
        let cut = try #require(Self.locate("{\n  \"targets\": [\n    {\"name\": \"a\"}\n"))
        #expect(cut.line == 4 && cut.column == 1)
        #expect(cut.reason == "the file ends inside an array opened at line 2, column 14 (a missing ']'?)")
    }

    @Test func nestingPastSimdjsonsLimitIsNamed() throws {
        let deep = String(repeating: "[", count: 1025) + String(repeating: "]", count: 1025)
        let place = try #require(Self.locate(deep))
        #expect(place.column == 1025 && place.reason == "nested deeper than 1024 levels")
        #expect(Self.locate(String(repeating: "[", count: 1024) + String(repeating: "]", count: 1024)) == nil)
    }

    /// simdjson is the judge: every document it refuses has a place, and none it accepts has one.
    /// The documents are the sample pipelines with each byte deleted in turn, and with a comma,
    /// a quote, a brace or a bracket inserted at each place.
    @Test(.timeLimit(.minutes(1)))
    func everyDocumentSimdjsonRefusesHasAPlaceAndNoOtherDoes() throws {
        let parser = JSONParser()
        var refused = 0
        for name in ["sample.json", "select-sample.json", "open-data-sample.json"] {
            let original = try Array(Data(contentsOf: URL(fileURLWithPath: "\(repositoryRoot)/pipelines/\(name)")))
            var variants: [[UInt8]] = [original]
            for index in original.indices {
                var deleted = original
                deleted.remove(at: index)
                variants.append(deleted)
                // Every prefix too: a file cut short anywhere.
                variants.append(Array(original[..<index]))
                for inserted in ",\"{}[]:x\\u" .utf8 where index % 3 == 0 {
                    var more = original
                    more.insert(inserted, at: index)
                    variants.append(more)
                }
            }
            for variant in variants {
                let buffer = PaddedBuffer(copying: variant)
                let simdjsonRefuses = (try? parser.parse(buffer)) == nil
                let place = JSONSyntaxLocation.first(in: buffer.bytes)
                #expect(simdjsonRefuses == (place != nil), "\(String(decoding: variant, as: UTF8.self)) \(place.map { "\($0)" } ?? "accepted")")
                if simdjsonRefuses { refused += 1 }
            }
        }
        #expect(refused > 1000)
    }

    /// A number simdjson cannot hold is JSON, so the locator named no place for it and the error
    /// gave simdjson's "Problem while parsing a number" and no line; now it names the number
    /// where it is (since 2026-12-06).
    @Test func aNumberOutOfRangeInAPipelineIsNamedWhereItIs() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("big.json", #"{"name": "ok", "inat": ["x"], "max_reject_rate": 1e400}"#)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == path && error.line == 1, "\(error)")
        #expect(error.message.hasPrefix("pipeline is not valid JSON: ") && error.message.contains("'1e400' is a number out of any 64-bit range"), "\(error)")
    }

    @Test func aPipelineThatIsNotJSONIsRefusedAtItsMistakesLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.json", "{\n  \"name\": \"ok\",\n  \"inat\": [\"x\"]\n  \"max_reject_rate\": 0.1\n}\n")
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == path && error.line == 4 && error.column == 3)
        #expect(error.description == "\(path):4:3: error: pipeline is not valid JSON: expected ',' or '}' after an object's member, found a string (a missing comma?)")
    }

    @Test func aGeoJSONFileThatIsNotJSONIsRefusedAtItsMistakesLineAndColumn() throws {
        let directory = try TemporaryDirectory()
        let geo = try directory.write("park.geojson", "{\"type\": \"Polygon\",\n \"coordinates\": [[[0, 0], [1, 0], [1, 1], [0, 0],]]}\n")
        let path = try directory.write("p.json", #"{"name": "ok", "inat": ["x"], "select": {"geojson": "\#(geo)"}}"#)
        let error = try #require(throws: FieldpackError.self) { try Pipeline.load(path) }
        #expect(error.path == geo && error.line == 2 && error.column == 50, "\(error)")
        #expect(error.message == "not valid JSON: a ',' right before ']': JSON allows no comma after the last element")
    }
}
