/// Indents compact JSON (two spaces, one member or element per line) for files people read.
/// Deterministic: the same compact bytes give the same text.
public enum PrettyJSON {
    public static func format(_ compact: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(compact.count * 2)
        var depth = 0
        var inString = false
        var escaped = false
        var index = 0
        func newline() {
            out.append(0x0A)
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }
        while index < compact.count {
            let byte = compact[index]
            if inString {
                out.append(byte)
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close: UInt8 = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index + 1 < compact.count && compact[index + 1] == close {
                    out.append(byte)
                    out.append(close)
                    index += 2
                    continue
                }
                out.append(byte)
                depth += 1
                newline()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(byte)
                out.append(UInt8(ascii: " "))
            default:
                out.append(byte)
            }
            index += 1
        }
        out.append(0x0A)
        return String(decoding: out, as: UTF8.self)
    }
}
