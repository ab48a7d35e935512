@testable import FieldpackKit
import Testing

/// A row is split on tabs eight bytes at a time (`OpenDataRow.forEachTab`): every tab is found
/// where a byte-by-byte search finds it, whatever its place in a word or the row's length, and
/// bytes that differ from a tab by one bit, or that follow one, never count as one.
@Suite struct OpenDataSplitTests {
    @Test func everyTabIsFoundWhereAByteSearchFindsIt() {
        var generator = SortInPlaceTests.SplitMix64(state: 0x7AB5)
        let alphabet: [UInt8] = [0x09, 0x08, 0x0B, 0x19, 0x89, 0x49, 0x0A, 0x20, 0x61, 0xFF, 0x00, 0x01]
        for length in 0...40 {
            for _ in 0..<200 {
                let row = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                let expected = row.indices.filter { row[$0] == 0x09 }
                row.withUnsafeBytes { bytes in
                    var found: [Int] = []
                    OpenDataRow.forEachTab(in: bytes) { found.append($0); return true }
                    #expect(found == expected, "\(row)")
                    // Stopped after the first k, it has given exactly the first k.
                    for k in 0...expected.count where k > 0 {
                        var first: [Int] = []
                        OpenDataRow.forEachTab(in: bytes) { first.append($0); return first.count < k }
                        #expect(first == Array(expected.prefix(k)), "\(row), stopped after \(k)")
                    }
                }
            }
        }
    }

    /// A row ending where a word ends, or a byte short of it, in a buffer whose next bytes are
    /// tabs: the row's last word is read without the bytes past it.
    @Test func theBytesPastTheRowAreNeverRead() {
        for length in 0...24 {
            let buffer = [UInt8](repeating: 0x61, count: length) + [UInt8](repeating: 0x09, count: 16)
            buffer.withUnsafeBytes { whole in
                var found = 0
                OpenDataRow.forEachTab(in: UnsafeRawBufferPointer(rebasing: whole[0..<length])) { _ in found += 1; return true }
                #expect(found == 0, "a row of \(length) bytes")
            }
        }
    }
}

/// An export id is read eight digits at a time (`OpenDataRow.positiveID(in:from:to:)`): it is the
/// number the field spells, of 1 to 18 digits and above 0, and nil for anything else, wherever
/// the field sits in its row and whatever bytes (digits too) come before it.
@Suite struct OpenDataIDTests {
    @Test func anIDIsTheNumberItsDigitsSpellWhereverItSits() {
        var generator = SortInPlaceTests.SplitMix64(state: 0x1D5)
        let digits = Array("0123456789".utf8)
        let others: [UInt8] = [0x2F, 0x3A, 0x20, 0x09, 0x2D, 0x61, 0x00, 0xB0, 0x39 + 0x80]
        for _ in 0..<40_000 {
            let length = Int.random(in: 0...20, using: &generator)
            var field = (0..<length).map { _ in digits.randomElement(using: &generator)! }
            if length > 0 && Int.random(in: 0..<4, using: &generator) == 0 {
                field[Int.random(in: 0..<length, using: &generator)] = others.randomElement(using: &generator)!
            }
            let before = (0..<Int.random(in: 0...12, using: &generator)).map { _ in (digits + others).randomElement(using: &generator)! }
            let after = (0..<Int.random(in: 0...3, using: &generator)).map { _ in (digits + others).randomElement(using: &generator)! }
            let row = before + field + after
            let expected: Int64? = length <= 18 && field.allSatisfy({ digits.contains($0) }) ? Int64(String(decoding: field, as: UTF8.self)).flatMap { $0 > 0 ? $0 : nil } : nil
            let got = row.withUnsafeBytes { OpenDataRow.positiveID(in: $0, from: before.count, to: before.count + length) }
            #expect(got == expected, "\(String(decoding: field, as: UTF8.self)) after \(before.count) bytes")
        }
    }
}

/// What the readers before ingest take from a row's leading fields (`photoID`, `photoParents`,
/// the latter through the split of a row's first fields) and what a row with too few fields keeps
/// (`observationKey`, `observationParents`), against the row split by the standard library: a
/// row with fewer fields than the columns read gives nothing, one with exactly as many or more
/// gives those fields, wherever the columns sit in the header.
@Suite struct OpenDataLeadingFieldsTests {
    static func header(_ text: String) throws -> OpenDataTable.Header {
        try #require(Array(text.utf8).withUnsafeBytes { try OpenDataTable.header($0) })
    }

    static func id(_ field: Substring) -> Int64? {
        guard field.count <= 18, field.allSatisfy(\.isASCII), let value = Int64(field), value > 0, !field.hasPrefix("+") else { return nil }
        return value
    }

    @Test(arguments: [
        "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition",
        "photo_id\tobservation_uuid\tphoto_uuid\textension\tlicense\twidth\theight\tposition\tobserver_id",
    ])
    func aPhotosRowGivesItsLeadingFieldsOnlyWhenItHasThem(_ headerText: String) throws {
        let header = try Self.header(headerText)
        let names = headerText.split(separator: "\t").map(String.init)
        let (photoID, uuid, observer) = (names.firstIndex(of: "photo_id")!, names.firstIndex(of: "observation_uuid")!, names.firstIndex(of: "observer_id")!)
        let row = OpenDataRow(header: header, seen: nil)
        var generator = SortInPlaceTests.SplitMix64(state: 0x1EAD)
        let vocabulary = ["", "7", "123456789", "0012", "12a", "3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6c", "jpg", "CC-BY", "x"]
        for _ in 0..<5_000 {
            let count = Int.random(in: 1...12, using: &generator)
            let fields = (0..<count).map { _ in vocabulary.randomElement(using: &generator)! }
            let text = fields.joined(separator: "\t")
            let split = text.split(separator: "\t", omittingEmptySubsequences: false)
            let expectedID = split.count > photoID ? Self.id(split[photoID]) : nil
            let parents = Array(text.utf8).withUnsafeBytes { row.photoParents($0) }
            let got = Array(text.utf8).withUnsafeBytes { row.photoID($0) }
            #expect(got == expectedID, "\(text)")
            let enough = split.count > max(photoID, uuid, observer)
            if enough, let expectedID {
                #expect(parents?.id == expectedID, "\(text)")
                #expect(parents?.observation == Array(split[uuid].utf8).withUnsafeBytes { ObservationUUID($0) }, "\(text)")
                #expect(parents?.observer == Self.id(split[observer]), "\(text)")
            } else {
                #expect(parents == nil, "\(text)")
            }
        }
    }

    /// An observations row of fewer fields than its header keeps its uuid (the first column) and
    /// nothing else, however many fields it lacks; a row of the header's count keeps them all.
    @Test func anObservationsRowWithTooFewFieldsKeepsOnlyItsUUID() throws {
        let header = try Self.header(
            "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on")
        let row = OpenDataRow(header: header, seen: nil)
        let rules = ExportRules(selection: Selection(), taxa: nil)
        let full = ["3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6c", "42", "48.1", "11.5", "10", "12345678", "research", "2024-05-01"]
        for count in 1...full.count {
            let text = full.prefix(count).joined(separator: "\t")
            let key = Array(text.utf8).withUnsafeBytes { row.observationKey($0, by: rules) }
            #expect(key?.0 == Array(full[0].utf8).withUnsafeBytes { ObservationUUID($0) }, "\(count) fields")
            let parents = row.observationParents()
            #expect(parents.user == (count == full.count ? 42 : nil), "\(count) fields")
            #expect(parents.taxon == (count == full.count ? 12_345_678 : nil), "\(count) fields")
        }
    }
}
