import FieldpackKit
import Testing

/// `JSONValue.hasDuplicateKeys`, the one walk of simdjson's document that lets a record without
/// duplicate keys skip the walk that names them: it must say yes for every duplicate, wherever it
/// sits, and no for keys that only hash alike.
@Suite struct DuplicateKeyWalkTests {
    private func hasDuplicates(_ text: String) throws -> Bool {
        let parser = JSONParser()
        return try parser.parse(PaddedBuffer(copying: Array(text.utf8))).hasDuplicateKeys
    }

    @Test(arguments: [
        #"{"a": 1, "a": 2}"#,
        #"{"id": 1, "quality_grade": "research", "quality_grade": "casual"}"#,
        #"{"": 1, "": 2}"#,
        #"{"taxon": {"name": "a", "rank": "species", "name": "b"}}"#,
        #"{"photos": [{"id": 1}, {"id": 2, "license_code": "cc0", "license_code": null}]}"#,
        #"{"a": [[[{"deep": [{"x": 1, "x": 1}]}]]]}"#,
        #"[{"ok": 1}, {"twice": 1, "twice": 2}]"#,
        // Long keys alike in length, first and last 8 bytes, and the same too.
        #"{"abcdefgh_1_ijklmnop": 1, "abcdefgh_2_ijklmnop": 2, "abcdefgh_1_ijklmnop": 3}"#,
    ])
    func aDuplicateKeyAnywhereIsFound(_ text: String) throws {
        #expect(try hasDuplicates(text))
    }

    @Test(arguments: [
        #"{"a": 1, "b": 2}"#,
        #"{}"#,
        #"[]"#,
        #"42"#,
        #""a string""#,
        #"[{"id": 1}, {"id": 2}]"#,
        #"{"a": {"a": {"a": 1}}}"#,
        #"{"x": [{"k": 1}, {"k": 2}], "y": {"k": 3}}"#,
        // Same length, first 8 and last 8 bytes: their hashes collide, the keys differ.
        #"{"abcdefgh_1_ijklmnop": 1, "abcdefgh_2_ijklmnop": 2, "abcdefgh_3_ijklmnop": 3}"#,
        // Keys shorter than 8 bytes, and keys one a prefix of another.
        #"{"a": 1, "ab": 2, "abc": 3, "a\u0000": 4}"#,
    ])
    func keysThatDifferAreNotDuplicates(_ text: String) throws {
        #expect(try hasDuplicates(text) == false)
    }

    @Test func aDuplicateFiveHundredLevelsDownIsFound() throws {
        let depth = 500  // two levels each: within simdjson's default limit of 1024
        let text = String(repeating: #"{"k": ["#, count: depth) + #"{"z": 1, "z": 2}"# + String(repeating: "]}", count: depth)
        #expect(try hasDuplicates(text))
    }

    @Test func manyKeysAlikeButInTheMiddleAreNotDuplicatesUnlessOneRepeats() throws {
        // Same length, first 8 and last 8 bytes: every hash collides with every other.
        let keys = (10_000..<12_000).map { "\"field_\($0)_value\": \($0)" }
        #expect(try hasDuplicates("{" + keys.joined(separator: ", ") + "}") == false)
        #expect(try hasDuplicates("{" + (keys + [#""field_11999_value": 0"#]).joined(separator: ", ") + "}"))
    }

    @Test func aKeySequenceSeenCleanBeforeNeverHidesADuplicateAfter() throws {
        // The walk remembers key sequences it found free of duplicates, per thread. Keys alike
        // at both ends hash alike: the first object is clean, the second has the very same
        // sequence of hashes and a key twice, so that sequence must not have been remembered.
        let parser = JSONParser()
        func check(_ text: String) throws -> Bool { try parser.parse(PaddedBuffer(copying: Array(text.utf8))).hasDuplicateKeys }
        for _ in 0..<3 {
            #expect(try check(#"{"abcdefgh_1_ijklmnop": 1, "abcdefgh_2_ijklmnop": 2}"#) == false)
            #expect(try check(#"{"abcdefgh_1_ijklmnop": 1, "abcdefgh_1_ijklmnop": 2}"#))
            // A shape seen clean many times, then the same keys with one of them twice.
            for id in 0..<100 { #expect(try check(#"{"id": \#(id), "uuid": "u", "photos": [{"id": 1, "url": "x"}]}"#) == false) }
            #expect(try check(#"{"id": 1, "uuid": "u", "photos": [{"id": 1, "url": "x", "url": "y"}]}"#))
            #expect(try check(#"{"id": 1, "uuid": "u", "uuid": "v", "photos": [{"id": 1, "url": "x"}]}"#))
            #expect(try check(#"{"id": 1, "uuid": "u", "photos": [{"id": 1, "url": "x"}]}"#) == false)
        }
    }

    @Test func anObjectOfManyKeysWithOneDuplicateIsFound() throws {
        let keys = (0..<500).map { "\"key\($0)\": \($0)" } + [#""key250": 0"#]
        #expect(try hasDuplicates("{" + keys.joined(separator: ", ") + "}"))
        #expect(try hasDuplicates("{" + keys.dropLast().joined(separator: ", ") + "}") == false)
    }
}
