#if canImport(Glibc)
import Glibc
#endif

/// A JSON document refused only for its text: bytes that are not UTF-8 (a Latin-1 `é` in a
/// place name) or an unpaired surrogate escape (`\udc80`). simdjson refuses the whole document
/// for one such string; repaired, each bad sequence becomes U+FFFD (Unicode's substitution of
/// maximal subparts; a raw NUL too), each unpaired escape `\uFFFD` and each control byte left
/// raw inside a string its escape, so a record keeps its good parts and says what was replaced
/// (a salvaged finding).
public enum TextRepair {
    /// A repaired copy of `bytes`, or nil when they hold nothing to repair (the document is
    /// broken in some other way).
    public static func repaired(_ bytes: UnsafeRawBufferPointer) -> PaddedBuffer? {
        let hasNUL = bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false
        var text: [UInt8]? = isWellFormedUTF8(bytes) && !hasNUL ? nil : repairedUTF8WithoutNUL(bytes)
        let escapes: [UInt8]? = text.map { fixed in fixed.withUnsafeBytes { withoutUnpairedSurrogates($0) } } ?? withoutUnpairedSurrogates(bytes)
        if let escapes { text = escapes }
        let controls: [UInt8]? = text.map { fixed in fixed.withUnsafeBytes { withEscapedControls($0) } } ?? withEscapedControls(bytes)
        if let controls { text = controls }
        return text.map { PaddedBuffer(copying: $0) }
    }

    /// `bytes` with every control byte inside a string (a raw tab, carriage return or line feed
    /// that a writer other than the API left unescaped, which JSON forbids) written as its
    /// escape; nil when there is none. Outside strings, bytes are left as they are.
    static func withEscapedControls(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8]? = nil
        var copied = 0
        var inString = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true }
            } else if byte == UInt8(ascii: "\\") {
                index += 1  // the escaped byte, whatever it is
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte < 0x20 {
                if out == nil { out = []; out!.reserveCapacity(bytes.count + 16) }
                out!.append(contentsOf: bytes[copied..<index])
                switch byte {
                case 0x09: out!.append(contentsOf: "\\t".utf8)
                case 0x0A: out!.append(contentsOf: "\\n".utf8)
                case 0x0D: out!.append(contentsOf: "\\r".utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out!.append(contentsOf: "\\u00".utf8)
                    out!.append(hex[Int(byte >> 4)])
                    out!.append(hex[Int(byte & 0xF)])
                }
                copied = index + 1
            }
            index += 1
        }
        guard var out else { return nil }
        out.append(contentsOf: bytes[min(copied, bytes.count)...])
        return out
    }

    /// `bytes` with every `\uD800`–`\uDFFF` escape that is not half of a pair written `\uFFFD`;
    /// nil when there is none.
    static func withoutUnpairedSurrogates(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        func unit(at index: Int) -> Int? { JSONScanner.unicodeEscape(in: bytes, at: index) }
        var out: [UInt8]? = nil
        var copied = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard let value = unit(at: index) else {
                index += 2  // another escape (`\\` among them): its next byte is not a backslash that starts one
                continue
            }
            if (0xD800...0xDBFF).contains(value), let low = unit(at: index + 6), (0xDC00...0xDFFF).contains(low) {
                index += 12
                continue
            }
            if (0xD800...0xDFFF).contains(value) {
                if out == nil { out = []; out!.reserveCapacity(bytes.count) }
                out!.append(contentsOf: bytes[copied..<index])
                out!.append(contentsOf: "\\uFFFD".utf8)
                copied = index + 6
            }
            index += 6
        }
        guard var out else { return nil }
        out.append(contentsOf: bytes[copied...])
        return out
    }

    /// The salvaged finding's reason.
    public static let reason = "\(repairs); the record kept its other parts"

    /// What a repair did, as every finding of one says it.
    public static let repairs =
        "text that is not UTF-8 (or a NUL byte, or an unpaired surrogate escape) was replaced with U+FFFD, or a control character inside a string escaped"
}

extension JSONParser {
    /// `parseQuotingNonFinite` (or, with `quotingNonFinite` false, `parse`: where a document's
    /// numbers are ids, such as a wiki dump line's); a document refused only for its text is
    /// parsed repaired (`TextRepair`), and `repaired` says so. Values point into the parser's
    /// own buffers: the repaired copy need not outlive the parse.
    ///
    /// - Throws: the first parse's `JSONSyntaxError` when neither helps.
    public func parseRepairingText(_ bytes: UnsafeRawBufferPointer, quotingNonFinite: Bool = true) throws -> (value: JSONValue, repaired: Bool) {
        // Not a method reference chosen once: that would allocate its context on every line.
        func read(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
            quotingNonFinite ? try parseQuotingNonFinite(bytes) : try parse(bytes)
        }
        do {
            return (try read(bytes), false)
        } catch {
            guard let fixed = TextRepair.repaired(bytes), let value = try? read(fixed.bytes) else { throw error }
            return (value, true)
        }
    }
}
