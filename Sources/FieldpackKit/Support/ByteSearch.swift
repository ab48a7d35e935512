#if canImport(Glibc)
import Glibc
#endif

/// The offset of the first `needle` in `haystack`, or nil (memchr for its first byte, then
/// memcmp; Glibc's `memmem` is not imported into Swift).
func firstOffset(of needle: StaticString, in haystack: UnsafeRawBufferPointer) -> Int? {
    let length = needle.utf8CodeUnitCount
    guard length > 0, let base = haystack.baseAddress, haystack.count >= length else { return nil }
    let first = Int32(needle.utf8Start.pointee)
    var offset = 0
    while offset + length <= haystack.count {
        guard let hit = memchr(base + offset, first, haystack.count - offset - length + 1) else { return nil }
        let at = UnsafeRawPointer(hit) - base
        if memcmp(base + at, needle.utf8Start, length) == 0 { return at }
        offset = at + 1
    }
    return nil
}
