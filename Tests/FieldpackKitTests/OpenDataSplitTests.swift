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
                    for k in 1..<max(2, expected.count) where k <= expected.count {
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
