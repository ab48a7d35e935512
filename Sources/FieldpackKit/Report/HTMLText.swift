/// HTML text built as bytes: every piece that comes from data goes through `escaped`, the one
/// escaping rule (`&`, `<`, `>`, `"`, `'`), which is right both in text and in quoted attributes.
public struct HTMLText {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Markup written by the report itself (never data).
    public mutating func raw(_ markup: String) {
        bytes += markup.utf8
    }

    /// Text from data: taxon names, file names, reasons.
    public mutating func text(_ value: String) {
        Self.escape(value, into: &bytes)
    }

    /// `<tag class="…">text</tag>` with escaped text.
    public mutating func element(_ tag: String, _ value: String, class name: String? = nil) {
        raw(name.map { "<\(tag) class=\"\($0)\">" } ?? "<\(tag)>")
        text(value)
        raw("</\(tag)>")
    }

    public static func escaped(_ value: String) -> String {
        var out: [UInt8] = []
        escape(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func escape(_ value: String, into out: inout [UInt8]) {
        let bytes = Array(value.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            // A bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069): a
            // name holding U+202E showed "Evil\u{202E}FDP.exe" as "EvilexeFDP." turned around,
            // as credits were before their rule (`License.isInvisibleMark`). Shown as U+FFFD.
            if byte == 0xE2, index + 1 < bytes.count,
               (bytes[index] == 0x80 && (0xAA...0xAE).contains(bytes[index + 1])) || (bytes[index] == 0x81 && (0xA6...0xA9).contains(bytes[index + 1]))
            {
                out += "\u{FFFD}".utf8
                index += 2
                continue
            }
            switch byte {
            case UInt8(ascii: "&"): out += "&amp;".utf8
            case UInt8(ascii: "<"): out += "&lt;".utf8
            case UInt8(ascii: ">"): out += "&gt;".utf8
            case UInt8(ascii: "\""): out += "&quot;".utf8
            case UInt8(ascii: "'"): out += "&#39;".utf8
            // A control character (a NUL, an escape sequence from a file name) is no text a
            // page may hold: the browser drops or hides it, altering the name. Shown as U+FFFD.
            case 0x00...0x08, 0x0B, 0x0C, 0x0E...0x1F, 0x7F: out += "\u{FFFD}".utf8
            default: out.append(byte)
            }
        }
    }
}

/// Numbers as the report prints them: grouped thousands, and bytes in KB / MB / GB (decimal).
enum ReportNumber {
    static func count(_ value: Int64) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "\u{202F}" }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }

    static func count(_ value: Int) -> String { count(Int64(value)) }

    /// Bytes in the unit that keeps the figure under 1000 once rounded (999,600 bytes are
    /// "1.0 MB", not "1000 KB"): one decimal under 100, none from 100.
    static func bytes(_ value: Int64) -> String {
        if value < 1000 { return "\(value) B" }
        let units: [(Double, String)] = [(1e3, "KB"), (1e6, "MB"), (1e9, "GB"), (1e12, "TB")]
        for (index, (scale, unit)) in units.enumerated() {
            let scaled = Double(value) / scale
            let decimals = (scaled * 10).rounded() / 10 >= 100 ? 0 : 1
            let rounded = decimals == 0 ? scaled.rounded() : (scaled * 10).rounded() / 10
            if rounded < 1000 || index == units.count - 1 { return "\(format(scaled, decimals)) \(unit)" }
        }
        return "\(value) B"
    }

    static func percent(_ part: Int64, of whole: Int64) -> String {
        whole == 0 ? "–" : "\(format(Double(part) * 100 / Double(whole), 1))%"
    }
}
