#if canImport(Glibc)
import Glibc
#endif

/// Finds where the elements of a document's top-level `"results"` array start and end, without
/// a full parse: used to locate a bad record (its line) and to salvage the complete records of a
/// truncated or damaged page.
public enum JSONScanner {
    public struct ArrayScan {
        /// Byte ranges of the elements that are complete (balanced brackets, closed strings).
        public var elements: [Range<Int>]
        /// Whether the array closed properly.
        public var closed: Bool
        /// Where the array's content begins, if the key was found.
        public var arrayStart: Int?
        /// Where an element that never completed begins (the damaged record), if any.
        public var partialStart: Int?
    }

    /// Scans `bytes` for the top-level member `key` holding an array.
    /// With `key` nil, the document itself is the array (a bare array of records).
    public static func scanArray(named key: String?, in bytes: UnsafeRawBufferPointer) -> ArrayScan {
        let keyBytes = Array((key ?? "").utf8)
        var scan = ArrayScan(elements: [], closed: false, arrayStart: nil, partialStart: nil)
        // A bare array is scanned as if it were the value of a member: one level deeper.
        var depth = key == nil ? 1 : 0
        var index = 0
        let count = bytes.count
        var lastStringAtDepth1: Range<Int>? = nil
        var awaitingArray = key == nil
        var elementStart: Int? = nil
        var inArray = false

        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                index = stringEnd(in: bytes, from: start)
                if index >= count {  // unterminated string: the damage
                    scan.partialStart = elementStart ?? (inArray && depth == 2 ? start - 1 : nil)
                    return scan
                }
                if depth == 1 && !inArray { lastStringAtDepth1 = start..<index }
                if inArray && depth == 2 && elementStart == nil { elementStart = start - 1 }
            case UInt8(ascii: ":"):
                if depth == 1, let name = lastStringAtDepth1, !inArray {
                    awaitingArray = name.count == keyBytes.count
                        && zip(bytes[name], keyBytes).allSatisfy { $0 == $1 }
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if awaitingArray && depth == 1 && byte == UInt8(ascii: "[") {
                    inArray = true
                    awaitingArray = false
                    scan.arrayStart = index + 1
                } else if inArray && depth == 2 && elementStart == nil {
                    elementStart = index
                }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if inArray && depth == 2, let start = elementStart {
                    // A container element just closed.
                    scan.elements.append(start..<(index + 1))
                    elementStart = nil
                } else if inArray && depth == 1 {
                    // The array itself closed.
                    if let start = elementStart { scan.elements.append(start..<index) }
                    scan.closed = true
                    return scan
                }
            case UInt8(ascii: ","):
                if inArray && depth == 2, let start = elementStart {
                    // A scalar element ended.
                    scan.elements.append(start..<index)
                    elementStart = nil
                }
                if depth == 1 { awaitingArray = false }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                break
            default:
                if inArray && depth == 2 && elementStart == nil { elementStart = index }
            }
            index += 1
        }
        scan.partialStart = elementStart
        return scan
    }

    /// Where the elements of the top-level member `key`'s array begin (`key` nil: the document is
    /// the array), read from the structural positions simdjson found when it parsed `bytes`
    /// (`JSONParser.structurals(of:)`) rather than from every byte: the same offsets as
    /// `scanArray(named:in:)`'s elements' lower bounds, for a document that parsed, at a few
    /// instructions per structural character instead of per byte (the byte scan was 8% of
    /// ingest's instructions under callgrind, once per page with a finding). Empty if there is no such array.
    public static func elementStarts(
        named key: String?, in bytes: UnsafeRawBufferPointer, structurals: UnsafeBufferPointer<UInt32>
    ) -> [Int] {
        var scan = ElementStartScan(named: key)
        scan.advance(through: Int.max, in: bytes, structurals: structurals)
        return scan.starts
    }

    /// `elementStarts(named:in:structurals:)` read only as far as asked: ingest locates a page's
    /// findings in record order, and a finding in the page's first records need not walk the
    /// structurals of the rest (the whole walk was 6% of ingest's CPU on the benchmark's damaged
    /// pages, where most pages have a finding). Each `advance` resumes where the last stopped.
    public struct ElementStartScan {
        private let keyBytes: [UInt8]
        /// The starts found so far, in order.
        public private(set) var starts: [Int] = []
        /// The next structural position to read.
        private var next = 0
        /// Whether the array ended (or the structurals did): nothing more to find.
        public private(set) var finished = false
        // As in `scanArray`: a bare array is read as if it were the value of a member.
        private var depth: Int
        private var awaitingArray: Bool
        private var inArray = false
        private var lastStringAtDepth1: Int? = nil
        /// Right after the array's `[` or a comma in it: the next structural starts an element.
        private var elementNext = false

        public init(named key: String?) {
            keyBytes = Array((key ?? "").utf8)
            depth = key == nil ? 1 : 0
            awaitingArray = key == nil
        }

        /// Reads on until element `index`'s start is known or the array ends. `bytes` and
        /// `structurals` are the same document's on every call.
        public mutating func advance(through index: Int, in bytes: UnsafeRawBufferPointer, structurals: UnsafeBufferPointer<UInt32>) {
            while !finished && starts.count <= index {
                guard next < structurals.count else {
                    finished = true
                    return
                }
                let position = Int(structurals[next])
                next += 1
                guard position < bytes.count else {
                    finished = true
                    return
                }
                let byte = bytes[position]
                switch byte {
                case UInt8(ascii: ":"):
                    if depth == 1, !inArray, let quote = lastStringAtDepth1 {
                        awaitingArray = JSONScanner.isString(at: quote, equalTo: keyBytes, in: bytes)
                    }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    if awaitingArray && depth == 1 && byte == UInt8(ascii: "[") {
                        inArray = true
                        awaitingArray = false
                        elementNext = true
                    } else if inArray && depth == 2 && elementNext {
                        starts.append(position)
                        elementNext = false
                    }
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if inArray && depth == 1 { finished = true }
                case UInt8(ascii: ","):
                    if inArray && depth == 2 { elementNext = true }
                    if depth == 1 { awaitingArray = false }
                default:  // a scalar's first byte: a string's quote, a number, true, false, null
                    if byte == UInt8(ascii: "\"") && depth == 1 && !inArray { lastStringAtDepth1 = position }
                    if inArray && depth == 2 && elementNext {
                        starts.append(position)
                        elementNext = false
                    }
                }
            }
        }
    }

    /// Whether the string whose opening quote is at `quote` holds exactly `expected`'s bytes.
    fileprivate static func isString(at quote: Int, equalTo expected: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
        let start = quote + 1
        let end = start + expected.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return false }
        for offset in 0..<expected.count where bytes[start + offset] != expected[offset] { return false }
        return true
    }

    /// Where the string whose content starts at `start` ends: the index of its closing quote, or
    /// `bytes.count` if it never closes. A quote closes the string unless an odd number of
    /// backslashes (inside the string) comes right before it. Strings are most of a page's bytes:
    /// `memchr` finds each candidate quote instead of a loop over every byte (ingest spent 12% of
    /// its time in this scan, which every page with a finding needs).
    @inline(__always)
    package static func stringEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return count }
        var from = start
        while from < count {
            guard let hit = memchr(base + from, Int32(UInt8(ascii: "\"")), count - from) else { return count }
            let quote = UnsafeRawPointer(hit) - base
            var backslashes = 0
            while quote - backslashes - 1 >= start && bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return count
    }

    /// The 1-based line and column of a byte offset, the column in characters (Unicode
    /// scalars, as editors count: UTF-8 continuation bytes start none).
    public static func lineAndColumn(of offset: Int, in bytes: UnsafeRawBufferPointer) -> (line: Int, column: Int) {
        let end = min(offset, bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<end where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        var column = 1
        for index in lineStart..<end where bytes[index] & 0xC0 != 0x80 { column += 1 }
        return (line, column)
    }

    /// The UTF-16 unit of the escape `\uXXXX` at `index` (its backslash), or nil when no such
    /// escape starts there (another escape, or fewer than four hexadecimal digits).
    static func unicodeEscape(in bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
        var unit = 0
        for byte in bytes[(index + 2)..<(index + 6)] {
            let digit: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = Int(byte - UInt8(ascii: "A")) + 10
            default: return nil
            }
            unit = unit * 16 + digit
        }
        return unit
    }

    /// The byte ranges of the complete JSON objects and arrays that `bytes` holds one after
    /// another, with only whitespace around them (`cat page-1.json page-2.json`), and then, as a
    /// last range, what follows them that is not one (a page cut short by an interrupted
    /// `curl >> pages.json`, trailing NUL bytes), for the caller to salvage on its own; nil when
    /// the first value is not a complete object or array. Strings are skipped whole, so a
    /// bracket inside one counts for nothing.
    public static func topLevelValues(in bytes: UnsafeRawBufferPointer) -> [Range<Int>]? {
        var values: [Range<Int>] = []
        var index = 0
        let count = bytes.count
        while true {
            while index < count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
            guard index < count else { return values }
            guard bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[") else {
                return values.isEmpty ? nil : values + [index..<count]
            }
            let start = index
            var depth = 0
            repeat {
                switch bytes[index] {
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: "\""):
                    index += 1
                    while index < count, bytes[index] != UInt8(ascii: "\"") {
                        if bytes[index] == UInt8(ascii: "\\") { index += 1 }
                        index += 1
                    }
                default: break
                }
                index += 1
            } while depth > 0 && index < count
            guard depth == 0 else { return values.isEmpty ? nil : values + [start..<count] }
            values.append(start..<index)
        }
    }
}
