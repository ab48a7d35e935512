/// ISO 8601 timestamps as the iNaturalist API writes them, to and from Unix milliseconds.
public enum Timestamp {
    /// Parses `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fff]]` (or a space) and `Z` or
    /// `±HH[:MM]`. A missing offset means UTC. Returns Unix milliseconds, or nil if malformed or
    /// the day does not exist (`2024-02-31`, `2023-02-29`: read as some other day, such a copy
    /// outranked a real one in dedupe).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? { parse(bytes, anyDayUpTo31: false) }

    /// `parse`, taking any day of a month up to the 31st when `anyDayUpTo31` (to tell a day that
    /// does not exist from text that is not a date, `dayProblem`).
    private static func parse(_ bytes: UnsafeRawBufferPointer, anyDayUpTo31: Bool) -> Int64? {
        // A value, not closures over a captured `var`: those pay a run-time exclusivity check
        // on every byte (measured with callgrind: 2% of ingest).
        var cursor = Cursor(bytes: bytes)
        guard let year = cursor.number(4), cursor.expect("-"), let month = cursor.number(2), cursor.expect("-"),
              let day = cursor.number(2), (1...12).contains(month), day >= 1,
              day <= (anyDayUpTo31 ? 31 : daysIn(month: month, year: year))
        else { return nil }
        var millis = daysFromCivil(year: year, month: month, day: day) * 86_400_000
        if cursor.atEnd { return millis }
        guard cursor.expect("T") || cursor.expect(" ") else { return nil }
        guard let hour = cursor.number(2), cursor.expect(":"), let minute = cursor.number(2), hour < 24, minute < 60 else {
            return nil
        }
        millis += (hour * 3600 + minute * 60) * 1000
        if cursor.expect(":") {
            guard let second = cursor.number(2), second < 61 else { return nil }
            millis += second * 1000
            if cursor.expect(".") {
                var scale: Int64 = 100
                var fraction: Int64 = 0
                var digits = 0
                while let digit = cursor.digit() {
                    if digits < 3 { fraction += digit * scale; scale /= 10 }
                    digits += 1
                }
                guard digits > 0 else { return nil }
                millis += fraction
            }
        }
        if cursor.atEnd || cursor.expect("Z") { return cursor.atEnd ? millis : nil }
        let sign: Int64
        if cursor.expect("+") { sign = 1 } else if cursor.expect("-") { sign = -1 } else { return nil }
        // ISO 8601 allows offsets up to ±18:00 (real zones span −12:00 to +14:00).
        guard let offsetHours = cursor.number(2) else { return nil }
        var offsetMinutes: Int64 = 0
        if !cursor.atEnd {
            _ = cursor.expect(":")
            guard let minutes = cursor.number(2), minutes < 60 else { return nil }
            offsetMinutes = minutes
        }
        guard offsetHours * 60 + offsetMinutes <= 18 * 60 else { return nil }
        guard cursor.atEnd else { return nil }
        return millis - sign * (offsetHours * 60 + offsetMinutes) * 60_000
    }

    /// Reads a timestamp's bytes left to right.
    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// The next byte's value if it is a digit (consumed), else nil.
        mutating func digit() -> Int64? {
            guard index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 else { return nil }
            index += 1
            return Int64(bytes[index - 1] - 0x30)
        }

        /// Exactly `count` digits as a number, nil if fewer are there.
        mutating func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// Consumes `ascii` if it is next.
        mutating func expect(_ ascii: Unicode.Scalar) -> Bool {
            guard index < bytes.count && bytes[index] == UInt8(ascii: ascii) else { return false }
            index += 1
            return true
        }
    }

    /// Whether `bytes` is a date (`YYYY-MM-DD`, or a timestamp `parse` reads), which exists.
    public static func isRealDate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 10 && parse(bytes) != nil
    }

    /// The days of `month` (1–12) in `year`, by the proleptic Gregorian calendar.
    @inline(__always)
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// A day written `YYYY-MM-DD` that exists: Unix ms at 00:00 UTC; nil otherwise.
    public static func day(_ text: String) -> Int64? {
        guard text.utf8.count == 10 else { return nil }
        return parse(text)
    }

    /// Why `text` is not a day `day(_:)` reads, for an error after the setting's name:
    /// `is "2023-02-30", a day that does not exist` or `must be a date YYYY-MM-DD (is "May 1")`.
    public static func dayProblem(_ text: String) -> String {
        var copy = text
        let shaped = text.utf8.count == 10 && copy.withUTF8 { parse(UnsafeRawBufferPointer($0), anyDayUpTo31: true) } != nil
        return shaped ? "is \"\(text)\", a day that does not exist" : "must be a date YYYY-MM-DD (is \"\(text)\")"
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
