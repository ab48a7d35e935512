@testable import FieldpackKit
import Testing

/// The word-at-a-time byte searches against a byte at a time.
@Suite struct WordBytesTests {
    /// Random bytes near the two searched for (their neighbours, 0x80 and up, which a borrow
    /// between bytes could flag), at every length and start up to a few words.
    @Test func theFirstOfTwoBytesIsFoundAsAByteAtATimeFindsIt() {
        let alphabet: [UInt8] = [0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x20, 0x61, 0x80, 0xBC, 0xBE, 0xC3, 0xFF, 0x01]
        var random = SortInPlaceTests.SplitMix64(state: 23)
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let start = Int.random(in: 0...bytes.count, using: &random)
            let expected = bytes[start...].firstIndex { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }
            let found = bytes.withUnsafeBytes { WordBytes.firstIndex(of: UInt8(ascii: "<"), or: UInt8(ascii: ">"), in: $0, from: start) }
            #expect(found == expected, "\(bytes) from \(start)")
        }
    }
}
