#if canImport(Glibc)
import Glibc
#endif

/// A blurb's text for the search index, read over UTF-8 bytes: each tag becomes a space, the
/// three entities a blurb holds (`&lt;`, `&gt;`, `&amp;`) are decoded once, and runs of spaces
/// collapse to one, with none at either end. `<` and `>` are tags' bytes whatever follows them,
/// as the blurb check in verify reads them.
package enum PlainText {
    package static func ofBlurb(_ html: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let count = html.count
        guard let base = html.baseAddress, count > 0 else {
            out.removeAll(keepingCapacity: true)
            return
        }
        // Written through a pointer into room for the whole blurb (the text is never longer: a
        // tag of at least two bytes gives one space), not appended byte by byte: the appends'
        // checks were most of this walk over the 262 MB of the benchmark's blurbs.
        let space = UInt8(ascii: " ")
        out = [UInt8](unsafeUninitializedCapacity: count) { buffer, written in
            let output = buffer.baseAddress!
            var length = 0
            var pendingSpace = false
            var index = 0
            while index < count {
                let byte = html[index]
                if byte == UInt8(ascii: "<") {
                    // A tag's bytes up to its `>` (or the end) say nothing.
                    guard let close = memchr(base + index + 1, Int32(UInt8(ascii: ">")), count - index - 1) else { break }
                    index = UnsafeRawPointer(close) - base + 1
                    pendingSpace = true
                    continue
                }
                var text = byte
                index += 1
                if byte == UInt8(ascii: ">") || byte == space {
                    pendingSpace = true
                    continue
                }
                // An entity stands for `<`, `>` or `&`: text, never a space.
                if byte == UInt8(ascii: "&"), let (decoded, entityLength) = entity(in: html, at: index) {
                    text = decoded
                    index += entityLength
                }
                if pendingSpace && length > 0 {
                    output[length] = space
                    length += 1
                }
                pendingSpace = false
                output[length] = text
                length += 1
            }
            written = length
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
