@testable import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A decimal text field (the export's coordinates, an API `location`) reads as the double the
/// C library's `strtod` gives, on its fast path as on its slow one, and anything else is nil.
@Suite struct DecimalFieldTests {
    static func decimal(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBytes { Fields.decimal($0) }
    }

    /// The double `strtod` reads from `text`, or nil when it does not read all of it.
    static func strtod(_ text: String) -> Double? {
        text.withCString { start in
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = Foundation.strtod(start, &end)
            return end.map { $0 - UnsafeMutablePointer(mutating: start) } == text.utf8.count ? value : nil
        }
    }

    @Test func everyDecimalReadsAsStrtodReadsIt() {
        var random = SortInPlaceTests.SplitMix64(state: 7)
        for _ in 0..<200_000 {
            let integerDigits = Int(random.next() % 6)
            let fractionDigits = Int(random.next() % 24)
            var text = random.next() % 3 == 0 ? "-" : ""
            for _ in 0..<max(1, integerDigits) { text += String(random.next() % 10) }
            if fractionDigits > 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(random.next() % 10) }
            }
            let read = Self.decimal(text)
            let expected = Self.strtod(text)
            #expect(read?.bitPattern == expected?.bitPattern, "\(text)")
            if read?.bitPattern != expected?.bitPattern { return }
        }
    }

    @Test func theExportsCoordinatesAndEdgeCasesRead() {
        for text in ["54.4492250000", "-73.4763400000", "0", "-0.0", "9007199254740993", "9007199254740992.5",
                     "0.1", "123456789012345678901234", "1e-3", " 4.25 ", "+12", "0.00000000000000000000001"] {
            #expect(Self.decimal(text)?.bitPattern == Self.strtod(text.trimmingCharacters(in: .whitespaces))?.bitPattern, "\(text)")
        }
        for text in ["", "-", ".", "1.2.3", "nan", "inf", "0x1p3", "1e", "4,25", "--1"] {
            #expect(Self.decimal(text) == nil, "\(text)")
        }
    }
}
