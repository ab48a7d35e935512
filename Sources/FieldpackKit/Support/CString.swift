#if canImport(Glibc)
import Glibc
#endif

/// Whether a NUL-terminated libxml2 string is `literal`.
func cString(_ text: UnsafePointer<UInt8>, equals literal: StaticString) -> Bool {
    strcmp(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self),
           UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
}

/// Whether a NUL-terminated libxml2 string contains `fragment`.
func cString(_ text: UnsafePointer<UInt8>, contains fragment: StaticString) -> Bool {
    strstr(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self),
           UnsafeRawPointer(fragment.utf8Start).assumingMemoryBound(to: CChar.self)) != nil
}

/// Whether `body` holds for a word of a NUL-terminated string split on HTML whitespace (space,
/// tab, line feed, form feed, carriage return), as `class`, `rel` and `typeof` values are.
func anyWord(in text: UnsafePointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
    @inline(__always) func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
    var index = 0
    while true {
        while isSpace(text[index]) { index += 1 }
        if text[index] == 0 { return false }
        let start = index
        while text[index] != 0 && !isSpace(text[index]) { index += 1 }
        if body(UnsafeBufferPointer(start: text + start, count: index - start)) { return true }
    }
}

/// Whether `word` is `literal`'s bytes.
func equals(_ word: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    word.count == literal.utf8CodeUnitCount && memcmp(word.baseAddress!, literal.utf8Start, word.count) == 0
}
