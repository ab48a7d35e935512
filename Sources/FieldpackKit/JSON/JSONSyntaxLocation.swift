/// Where a document that simdjson refused first stops being JSON (RFC 8259), and why in a
/// person's words. simdjson says only what kind of error it met ("missing or superfluous
/// commas, braces, missing keys, etc."), never where; a pipeline file or a GeoJSON file is
/// written by hand, and its author needs the line and column of the missing comma.
///
/// Only asked after a parse failed, so it favours plain words over speed: one pass over the
/// bytes, an explicit stack (no recursion, however deep the document), nothing allocated per
/// value.
public struct JSONSyntaxLocation: Equatable, Sendable, CustomStringConvertible {
    /// The byte offset of the first byte that cannot continue a JSON document.
    public var offset: Int
    /// 1-based, counting `\n`.
    public var line: Int
    /// 1-based, in characters (Unicode scalars) from the line's start, as editors count.
    public var column: Int
    public var reason: String

    public var description: String { "\(line):\(column): \(reason)" }

    /// simdjson's limit: a document nested deeper is refused.
    static let maximumDepth = 1024

    /// The first place `bytes` stop being JSON, or nil when they are JSON by this reading (then
    /// simdjson refused them for a reason it alone checks, such as a number out of range).
    public static func first(in bytes: UnsafeRawBufferPointer) -> JSONSyntaxLocation? {
        var scan = Scan(bytes)
        guard let (offset, reason) = scan.firstError() else { return nil }
        return at(offset, in: bytes, reason)
    }

    private static func at(_ offset: Int, in bytes: UnsafeRawBufferPointer, _ reason: String) -> JSONSyntaxLocation {
        let (line, column) = JSONScanner.lineAndColumn(of: offset, in: bytes)
        return JSONSyntaxLocation(offset: offset, line: line, column: column, reason: reason)
    }

    /// Where an unclosed container opened, for the message at the end of the file.
    static func place(of offset: Int, in bytes: UnsafeRawBufferPointer) -> String {
        let (line, column) = JSONScanner.lineAndColumn(of: offset, in: bytes)
        return "line \(line), column \(column)"
    }
}

extension JSONSyntaxLocation {
    private struct Scan {
        enum Container { case object, array }
        /// What may come next inside the innermost container (or at the top level).
        enum Expect {
            case value, firstValueOrClose, key, firstKeyOrClose, colon, commaOrClose, end
        }

        let bytes: UnsafeRawBufferPointer
        var position = 0
        var stack: [(container: Container, opened: Int)] = []

        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func firstError() -> (Int, String)? {
            var expect = Expect.value
            // A byte-order mark is not JSON, but the readers of these files pass over one.
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
            while true {
                skipWhitespace()
                guard position < bytes.count else {
                    if expect == .end { return nil }
                    if let open = stack.last {
                        let what = open.container == .object ? "an object" : "an array"
                        return (position, "the file ends inside \(what) opened at "
                            + JSONSyntaxLocation.place(of: open.opened, in: bytes)
                            + " (a missing \(open.container == .object ? "'}'" : "']'")?)")
                    }
                    return (position, bytes.isEmpty || position == 0 ? "the file is empty" : "the file holds no value")
                }
                let byte = bytes[position]
                switch expect {
                case .end:
                    return (position, "\(found()) after the end of the document (a second document, or a stray character?)")
                case .colon:
                    guard byte == UInt8(ascii: ":") else { return (position, "expected ':' after the key, found \(found())") }
                    position += 1
                    expect = .value
                    continue
                case .commaOrClose:
                    let container = stack.last!.container
                    let close = container == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if byte == close {
                        stack.removeLast()
                        position += 1
                        expect = afterValue()
                        continue
                    }
                    guard byte == UInt8(ascii: ",") else {
                        let what = container == .object ? "expected ',' or '}' after an object's member"
                            : "expected ',' or ']' after an array's element"
                        // The other kind of closing bracket: the one left open is where to look.
                        let other = container == .object ? UInt8(ascii: "]") : UInt8(ascii: "}")
                        let hint = byte == other
                            ? " (the \(container == .object ? "'{'" : "'['") opened at \(JSONSyntaxLocation.place(of: stack.last!.opened, in: bytes)) is not closed)"
                            : byte == UInt8(ascii: "\"") || isValueStart(byte) ? " (a missing comma?)" : ""
                        return (position, "\(what), found \(found())\(hint)")
                    }
                    position += 1
                    expect = container == .object ? .key : .value
                    continue
                case .key, .firstKeyOrClose:
                    if byte == UInt8(ascii: "}") {
                        if expect == .key { return (position, "a ',' right before '}': JSON allows no comma after the last member") }
                        stack.removeLast()
                        position += 1
                        expect = afterValue()
                        continue
                    }
                    guard byte == UInt8(ascii: "\"") else {
                        return (position, "expected a key in double quotes, found \(found())")
                    }
                    if let error = string() { return error }
                    expect = .colon
                    continue
                case .value, .firstValueOrClose:
                    if byte == UInt8(ascii: "]"), !stack.isEmpty, stack.last!.container == .array {
                        if expect == .value { return (position, "a ',' right before ']': JSON allows no comma after the last element") }
                        stack.removeLast()
                        position += 1
                        expect = afterValue()
                        continue
                    }
                    if let error = value(&expect) { return error }
                }
            }
        }

        /// After a complete value: the top level ends, or the container goes on.
        func afterValue() -> Expect { stack.isEmpty ? .end : .commaOrClose }

        mutating func value(_ expect: inout Expect) -> (Int, String)? {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < JSONSyntaxLocation.maximumDepth else {
                    return (position, "nested deeper than \(JSONSyntaxLocation.maximumDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                stack.append((isObject ? .object : .array, position))
                position += 1
                expect = isObject ? .firstKeyOrClose : .firstValueOrClose
                return nil
            case UInt8(ascii: "\""):
                if let error = string() { return error }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let error = number() { return error }
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                let word = self.word()
                guard word == "true" || word == "false" || word == "null" else {
                    return (position, "expected a value, found \(found())")
                }
                position += word.utf8.count
            default:
                return (position, "expected a value, found \(found())")
            }
            expect = afterValue()
            return nil
        }

        /// A string from its opening quote; leaves `position` after the closing one.
        mutating func string() -> (Int, String)? {
            let opened = position
            position += 1
            while position < bytes.count {
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: "\""):
                    position += 1
                    return nil
                case UInt8(ascii: "\\"):
                    // (A `break` here would leave the switch, not the loop, and spin for ever.)
                    guard position + 1 < bytes.count else { return (opened, "a string that is never closed (a missing '\"')") }
                    let escaped = bytes[position + 1]
                    if escaped == UInt8(ascii: "u") {
                        if let error = unicodeEscape() { return error }
                        continue
                    }
                    guard "\"\\/bfnrt".utf8.contains(escaped) else {
                        return (position, "'\\\(Unicode.Scalar(escaped))' is not an escape JSON knows (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)")
                    }
                    position += 2
                case 0x00..<0x20:
                    let name = byte == 0x0A ? "a line break" : byte == 0x09 ? "a tab" : "a control character"
                    return (position, "\(name) inside a string (write it as an escape, or is a closing '\"' missing?)")
                case 0x80...:
                    let length = Self.utf8Length(bytes, at: position)
                    guard length > 0 else { return (position, "bytes that are not UTF-8 inside a string") }
                    position += length
                default:
                    position += 1
                }
            }
            return (opened, "a string that is never closed (a missing '\"')")
        }

        /// `\uXXXX`, with a high surrogate's low half after it.
        mutating func unicodeEscape() -> (Int, String)? {
            let start = position
            guard let unit = JSONScanner.unicodeEscape(in: bytes, at: position) else {
                return (start, "'\\u' must be followed by four hexadecimal digits")
            }
            position += 6
            if (0xDC00...0xDFFF).contains(unit) {
                return (start, "a lone low surrogate '\\u\(Self.hex(unit))'")
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard let low = JSONScanner.unicodeEscape(in: bytes, at: position), (0xDC00...0xDFFF).contains(low) else {
                    return (start, "a high surrogate '\\u\(Self.hex(unit))' without its low half")
                }
                position += 6
            }
            return nil
        }

        static func hex(_ unit: Int) -> String {
            let digits = String(unit, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        /// The length of the well-formed UTF-8 sequence at `index`, or 0 (`utf8Sequence`).
        static func utf8Length(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
            guard bytes[index] >= 0x80 else { return 0 }
            let (length, valid) = utf8Sequence(in: bytes, at: index)
            return length > 0 && valid == length ? length : 0
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, then a byte that may follow a value.
        mutating func number() -> (Int, String)? {
            let start = position
            func digits() -> Int {
                let from = position
                while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) { position += 1 }
                return position - from
            }
            func bad(_ position: Int) -> (Int, String) { (start, "\(found(at: start)) is not a JSON number") }
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { return bad(position) }
            if bytes[position] == UInt8(ascii: "0") {
                position += 1
            } else if digits() == 0 {
                return bad(position)
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                if digits() == 0 { return bad(position) }
            }
            if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
                if digits() == 0 { return bad(position) }
            }
            if position < bytes.count, !Self.endsAValue(bytes[position]) { return bad(position) }
            // JSON, but past what simdjson holds: it says only "Problem while parsing a number".
            if NonFiniteTokens.outOfRangeNumberLength(bytes, at: start) != nil {
                return (start, "\(found(at: start)) is a number out of any 64-bit range (an integer beyond 64 bits, or past ±1.8e308)")
            }
            return nil
        }

        /// Whitespace or a structural character: what may follow a number or a literal.
        static func endsAValue(_ byte: UInt8) -> Bool {
            " \t\n\r,]}:".utf8.contains(byte)
        }

        func isValueStart(_ byte: UInt8) -> Bool {
            "{[\"-0123456789tfn".utf8.contains(byte)
        }

        mutating func skipWhitespace() {
            while position < bytes.count, " \t\n\r".utf8.contains(bytes[position]) { position += 1 }
        }

        /// The run of bytes from `index` up to whitespace or a structural character.
        func word(at index: Int? = nil) -> String {
            var end = index ?? position
            while end < bytes.count, !Self.endsAValue(bytes[end]), bytes[end] != UInt8(ascii: "\""),
                  bytes[end] != UInt8(ascii: "{"), bytes[end] != UInt8(ascii: "[") { end += 1 }
            let start = index ?? position
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        func found() -> String { found(at: position) }

        /// What stands at `index`, for a message: a word quoted whole (cut at 30 characters),
        /// a string as such, a comment by name, the end of the file.
        func found(at index: Int) -> String {
            guard index < bytes.count else { return "the end of the file" }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return "a string" }
            if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*") {
                return "a comment (JSON has none; a key starting with \"_\" is one in a pipeline file)"
            }
            if byte == UInt8(ascii: "'") { return "''' (JSON strings take double quotes)" }
            var word = self.word(at: index)
            if word.isEmpty {
                word = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + max(1, Self.utf8Length(bytes, at: index)))]), as: UTF8.self)
            }
            if word.unicodeScalars.count > 30 { word = String(String.UnicodeScalarView(word.unicodeScalars.prefix(30))) + "…" }
            return "'\(word)'"
        }
    }
}

extension FieldpackError {
    /// A hand-written JSON file (a pipeline, a GeoJSON file) that simdjson refused: the line,
    /// column and reason where the bytes show them, else simdjson's reason alone.
    static func notJSON(_ path: String, _ bytes: UnsafeRawBufferPointer, _ what: String, _ error: Error) -> FieldpackError {
        if let place = JSONSyntaxLocation.first(in: bytes) {
            return FieldpackError(path: path, line: place.line, column: place.column, "\(what): \(place.reason)")
        }
        return FieldpackError(path: path, "\(what): \((error as? JSONSyntaxError)?.message ?? "\(error)")")
    }
}
