/// The bare `NaN`, `Infinity` and `-Infinity` that Python's `json` module writes (and `nan`,
/// `inf` from other writers): not JSON, so simdjson refuses the whole document. Quoting each
/// such token (`"NaN"`) makes the document JSON again, and the record's reader then drops those
/// values as findings (see `Fields`), so one bad number never costs the record. So too a number
/// simdjson cannot hold (`1e400`, an integer past 64 bits), which is JSON but refused the same
/// way: the whole record was lost for one field.
public enum NonFiniteTokens {
    /// The spellings read as a non-finite number, lower case, without a sign.
    static let spellings: [[UInt8]] = [Array("nan".utf8), Array("inf".utf8), Array("infinity".utf8)]

    /// Whether a string value is a number simdjson cannot hold (`"1e400"`, a quoted one).
    public static func isOutOfRangeNumber(_ text: JSONText) -> Bool {
        outOfRangeNumberLength(text.bytes, at: 0) == text.count
    }

    /// Whether a string value is one of the quoted tokens (`"NaN"`, `"-Infinity"`, `"inf"`).
    public static func isToken(_ text: JSONText) -> Bool {
        var bytes = text.bytes[...]
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        return spellings.contains { spelling in
            spelling.count == bytes.count && zip(spelling, bytes).allSatisfy { $0 == ($1 | 0x20) }
        }
    }

    /// A copy of `bytes` with every bare non-finite token outside strings quoted; nil when
    /// there is none (the document is broken in some other way).
    public static func quoted(_ bytes: UnsafeRawBufferPointer) -> PaddedBuffer? {
        var out: [UInt8] = []
        var found = false
        var inString = false
        var escaped = false
        var index = 0
        var copied = 0
        // The last byte outside strings that is not a space: a value may start after `:`, `,`, `[`.
        var previous: UInt8 = UInt8(ascii: "[")
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                previous = byte
                index += 1
                continue
            }
            let startsValue = previous == UInt8(ascii: ":") || previous == UInt8(ascii: ",") || previous == UInt8(ascii: "[")
            if startsValue, let length = tokenLength(bytes, at: index) ?? outOfRangeNumberLength(bytes, at: index) {
                if out.isEmpty { out.reserveCapacity(bytes.count + 64) }
                out.append(contentsOf: bytes[copied..<index])
                out.append(UInt8(ascii: "\""))
                out.append(contentsOf: bytes[index..<(index + length)])
                out.append(UInt8(ascii: "\""))
                index += length
                copied = index
                found = true
                previous = UInt8(ascii: "\"")
                continue
            }
            if byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { previous = byte }
            index += 1
        }
        guard found else { return nil }
        out.append(contentsOf: bytes[copied...])
        return PaddedBuffer(copying: out)
    }

    /// The length of a non-finite token at `index` (with its sign), if one is there and ends at
    /// a delimiter.
    private static func tokenLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        var end = index
        if end < bytes.count, bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: "+") { end += 1 }
        let letters = end
        while end < bytes.count, (bytes[end] | 0x20) >= UInt8(ascii: "a"), (bytes[end] | 0x20) <= UInt8(ascii: "z") { end += 1 }
        let word = bytes[letters..<end]
        guard spellings.contains(where: { spelling in
            spelling.count == word.count && zip(spelling, word).allSatisfy { $0 == ($1 | 0x20) }
        }) else { return nil }
        guard endsAValue(bytes, at: end) else { return nil }
        return end - index
    }

    /// Whether a value may end before `end`: the document ends there, or a delimiter or a space
    /// follows.
    private static func endsAValue(_ bytes: UnsafeRawBufferPointer, at end: Int) -> Bool {
        guard end < bytes.count else { return true }
        let next = bytes[end]
        return next == UInt8(ascii: ",") || next == UInt8(ascii: "}") || next == UInt8(ascii: "]") || next == 0x20
            || next == 0x09 || next == 0x0A || next == 0x0D
    }

    /// The length of a JSON number at `index` that simdjson refuses, ending at a delimiter: an
    /// integer beyond 64 bits (past 18446744073709551615, or below -9223372036854775808), or a
    /// number whose double is infinite (`1e400`); nil for anything else.
    public static func outOfRangeNumberLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        var end = index
        let negative = end < bytes.count && bytes[end] == UInt8(ascii: "-")
        if negative { end += 1 }
        let digitsStart = end
        while isDigit(end) { end += 1 }
        guard end > digitsStart else { return nil }
        var integer = true
        if end < bytes.count, bytes[end] == UInt8(ascii: ".") {
            integer = false
            end += 1
            let fraction = end
            while isDigit(end) { end += 1 }
            guard end > fraction else { return nil }
        }
        if end < bytes.count, bytes[end] | 0x20 == UInt8(ascii: "e") {
            integer = false
            end += 1
            if end < bytes.count, bytes[end] == UInt8(ascii: "-") || bytes[end] == UInt8(ascii: "+") { end += 1 }
            let exponent = end
            while isDigit(end) { end += 1 }
            guard end > exponent else { return nil }
        }
        guard endsAValue(bytes, at: end) else { return nil }
        let token = Array(bytes[index..<end])
        if integer {
            // Compared as digit strings of equal length (a leading zero is not JSON anyway).
            let limit = Array((negative ? "9223372036854775808" : "18446744073709551615").utf8)
            let digits = token[(negative ? 1 : 0)...]
            let beyond = digits.count > limit.count
                || (digits.count == limit.count && limit.lexicographicallyPrecedes(digits))
            return beyond ? end - index : nil
        }
        let value = String(decoding: token, as: UTF8.self)
        guard let double = Double(value), double.isInfinite else { return nil }
        return end - index
    }
}

extension JSONParser {
    /// Parses `bytes` (padded, as `parse` needs); a document that is JSON but for bare
    /// non-finite numbers is parsed with them quoted (see `NonFiniteTokens`).
    ///
    /// - Throws: the first parse's `JSONSyntaxError` when quoting does not help.
    public func parseQuotingNonFinite(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        do {
            return try parse(bytes)
        } catch {
            // Values point into the parser's own buffers, so the copy need not outlive the parse.
            guard let quoted = NonFiniteTokens.quoted(bytes), let value = try? parse(quoted) else { throw error }
            return value
        }
    }
}
