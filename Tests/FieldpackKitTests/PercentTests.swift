@testable import FieldpackKit
import Testing

/// Rates as messages show them.
@Suite struct PercentTests {
    /// `--max-reject-rate -0` read "over the --max-reject-rate of -0.0%".
    @Test func aRateIsAPercentageWithAtMostTwoDecimalsAndNoNegativeZero() {
        #expect(percent(0.0123) == "1.23%")
        #expect(percent(0.2) == "20.0%")
        #expect(percent(-0.0) == "0.0%")
        #expect(percent(0) == "0.0%")
    }
}
