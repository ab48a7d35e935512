/// A blurb's text for the search index, read over UTF-8 bytes: each tag becomes a space, the
/// three entities a blurb holds (`&lt;`, `&gt;`, `&amp;`) are decoded once, and runs of spaces
/// collapse to one, with none at either end. `<` and `>` are tags' bytes whatever follows them,
/// as the blurb check in verify reads them.
package enum PlainText {
    package static func ofBlurb(_ html: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        let space = UInt8(ascii: " ")
        var pendingSpace = false
        var inTag = false
        var index = 0
        let count = html.count
        @inline(__always) func emit(_ byte: UInt8) {
            if byte == space {
                pendingSpace = true
                return
            }
            if pendingSpace && !out.isEmpty { out.append(space) }
            pendingSpace = false
            out.append(byte)
        }
        while index < count {
            let byte = html[index]
            index += 1
            if byte == UInt8(ascii: "<") {
                inTag = true
            } else if byte == UInt8(ascii: ">") {
                inTag = false
                emit(space)
            } else if inTag {
                continue
            } else if byte == UInt8(ascii: "&"), let (decoded, length) = entity(in: html, at: index) {
                emit(decoded)
                index += length
            } else {
                emit(byte)
            }
        }
    }

    /// The byte an entity after `&` at `start` stands for, and how many bytes follow the `&`.
    private static func entity(in html: UnsafeRawBufferPointer, at start: Int) -> (UInt8, Int)? {
        func follows(_ name: StaticString) -> Bool {
            let length = name.utf8CodeUnitCount
            guard start + length <= html.count else { return false }
            for offset in 0..<length where html[start + offset] != name.utf8Start[offset] { return false }
            return true
        }
        if follows("lt;") { return (UInt8(ascii: "<"), 3) }
        if follows("gt;") { return (UInt8(ascii: ">"), 3) }
        if follows("amp;") { return (UInt8(ascii: "&"), 4) }
        return nil
    }

    /// The plain text of a blurb held as a `String` (tests, small inputs).
    package static func ofBlurb(_ html: String) -> String {
        var out: [UInt8] = []
        var html = html
        html.withUTF8 { ofBlurb(UnsafeRawBufferPointer($0), into: &out) }
        return String(decoding: out, as: UTF8.self)
    }
}
