/// ISO 8601 timestamps as the iNaturalist API writes them, to and from Unix milliseconds.
public enum Timestamp {
    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` (or a space) and `Z` or
    /// `±HH[:MM]`. A missing offset means UTC. Returns Unix milliseconds, or nil if malformed.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        let count = bytes.count
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ ascii: Unicode.Scalar) -> Bool {
            guard index < count && bytes[index] == UInt8(ascii: ascii) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var millis = daysFromCivil(year: year, month: month, day: day) * 86_400_000
        if index == count { return millis }
        guard index < count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: " ") else { return nil }
        index += 1
        guard let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
        millis += (hour * 3600 + minute * 60) * 1000
        if expect(":") {
            guard let second = number(2), second < 61 else { return nil }
            millis += second * 1000
            if expect(".") {
                var scale: Int64 = 100
                var fraction: Int64 = 0
                var digits = 0
                while index < count, bytes[index] >= 0x30 && bytes[index] <= 0x39 {
                    if digits < 3 { fraction += Int64(bytes[index] - 0x30) * scale; scale /= 10 }
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
                millis += fraction
            }
        }
        if index == count || expect("Z") { return index == count ? millis : nil }
        let sign: Int64
        if expect("+") { sign = 1 } else if expect("-") { sign = -1 } else { return nil }
        guard let offsetHours = number(2) else { return nil }
        var offsetMinutes: Int64 = 0
        if index < count {
            _ = expect(":")
            guard let minutes = number(2) else { return nil }
            offsetMinutes = minutes
        }
        guard index == count else { return nil }
        return millis - sign * (offsetHours * 60 + offsetMinutes) * 60_000
    }

    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }
    }

    /// `2024-05-02T10:11:12Z` for Unix seconds.
    public static func iso8601(seconds: Int64) -> String {
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    // Howard Hinnant's days-from-civil algorithm (proleptic Gregorian calendar).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package static func civilFromDays(_ days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
