@testable import FieldpackKit
import Testing

/// A row is split on tabs eight bytes at a time (`OpenDataRow.tab`): every tab is found where a
/// byte-by-byte search finds it, whatever its place in a word, and bytes that differ from a tab
/// by one bit never count as one.
@Suite struct OpenDataSplitTests {
    @Test func everyTabIsFoundWhereAByteSearchFindsIt() {
        var generator = SortInPlaceTests.SplitMix64(state: 0x7AB5)
        let alphabet: [UInt8] = [0x09, 0x08, 0x0B, 0x19, 0x89, 0x49, 0x20, 0x61, 0xFF, 0x00]
        for length in 0...40 {
            for _ in 0..<200 {
                let line = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
                line.withUnsafeBytes { bytes in
                    for start in 0...length {
                        let expected = line[start...].firstIndex(of: 0x09) ?? length
                        #expect(OpenDataRow.tab(in: bytes, from: start) == expected, "\(line) from \(start)")
                    }
                }
            }
        }
    }
}
