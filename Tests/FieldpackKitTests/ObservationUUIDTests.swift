import FieldpackKit
import Foundation
import Testing

/// `ObservationUUID` reads the canonical `8-4-4-4-12` hex form, either case, to the bits
/// Foundation's `UUID` reads, and refuses anything else. (Foundation itself is no oracle for
/// refusals: on Linux it also takes a leading space or sign, as `sscanf` does.)
@Suite struct ObservationUUIDTests {
    /// The 128 bits of a uuid Foundation parsed, as `ObservationUUID`'s two words.
    static func words(_ uuid: UUID) -> (high: UInt64, low: UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            (bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self).bigEndian,
             bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self).bigEndian)
        }
    }

    static func parse(_ text: String) -> ObservationUUID? {
        Array(text.utf8).withUnsafeBytes { ObservationUUID($0) }
    }

    @Test func aUUIDInEitherCaseReadsAsFoundationReadsIt() throws {
        var generator = SortInPlaceTests.SplitMix64(state: 0x5EED_0B5E)
        for _ in 0..<2_000 {
            let uuid = UUID(uuid: (
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator),
                UInt8.random(in: 0...255, using: &generator), UInt8.random(in: 0...255, using: &generator)))
            let expected = Self.words(uuid)
            for text in [uuid.uuidString, uuid.uuidString.lowercased()] {
                let parsed = try #require(Self.parse(text), "\(text)")
                #expect(parsed.high == expected.high && parsed.low == expected.low, "\(text)")
            }
        }
    }

    /// The canonical form, checked and read with the standard library's integer parsing.
    static func reference(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64)? {
        let dashes: Set = [8, 13, 18, 23]
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            let isHex = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
            guard dashes.contains(index) ? byte == UInt8(ascii: "-") : isHex else { return nil }
        }
        let digits = String(decoding: bytes.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self)
        guard let high = UInt64(digits.prefix(16), radix: 16), let low = UInt64(digits.suffix(16), radix: 16) else { return nil }
        return (high, low)
    }

    /// One byte of a valid uuid replaced by each of a set of bytes: accepted exactly when the
    /// reference accepts the result, with the same bits.
    @Test func aUUIDWithOneByteChangedIsRefusedUnlessItIsStillCanonical() throws {
        let valid = Array("3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6c".utf8)
        let replacements = Array("0123456789abcdefABCDEFgGzZ-_ +:/@`{!&".utf8) + [0, 0x10, 0x11, 0x19, 0x80, 0xB1, 0xC1, 0xE6, 0xFF]
        var accepted = 0
        for position in valid.indices {
            for byte in replacements {
                var bytes = valid
                bytes[position] = byte
                let ours = bytes.withUnsafeBytes { ObservationUUID($0) }
                let expected = Self.reference(bytes)
                #expect((ours == nil) == (expected == nil), "\(bytes) at \(position)")
                if let ours, let expected {
                    #expect(ours.high == expected.high && ours.low == expected.low)
                    accepted += 1
                }
            }
        }
        #expect(accepted == 32 * 22 + 4)  // every digit's 22 hex replacements, and each dash kept as a dash
    }

    @Test func anythingButThirtySixBytesIsRefused() {
        #expect(Self.parse("") == nil)
        #expect(Self.parse("3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6") == nil)
        #expect(Self.parse("3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6c0") == nil)
        #expect(Self.parse("3f2b9c1e7a4d4e8f9b0c1d2e3f4a5b6c") == nil)
        #expect(Self.parse("{3f2b9c1e-7a4d-4e8f-9b0c-1d2e3f4a5b6c}") == nil)
    }
}
