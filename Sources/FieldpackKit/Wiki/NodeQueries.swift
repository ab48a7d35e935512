import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// Cheap questions about libxml2 element nodes, answered on their bytes without copying.
extension UnsafeMutablePointer where Pointee == xmlNode {
    var isElement: Bool { pointee.type == XML_ELEMENT_NODE }
    var isText: Bool { pointee.type == XML_TEXT_NODE }

    /// Whether the `class` attribute holds `token` as one of its space-separated words.
    func hasClass(_ token: StaticString) -> Bool {
        guard let classes = attribute("class") else { return false }
        return anyWord(in: classes) { equals($0, token) }
    }

    /// Whether attribute `name` holds `token` as a space-separated word (`typeof`, `rel`, `role`).
    func attribute(_ name: StaticString, hasWord token: StaticString) -> Bool {
        guard let value = attribute(name) else { return false }
        return anyWord(in: value) { equals($0, token) }
    }

    /// The next sibling element that can be seen, skipping text that is only whitespace,
    /// comments and `link`/`meta`/`style` elements; nil at the end or at other text.
    var nextVisibleElement: xmlNodePtr? { visibleElement(from: pointee.next, forward: true) }

    /// The previous sibling element that can be seen (as `nextVisibleElement`).
    var previousVisibleElement: xmlNodePtr? { visibleElement(from: pointee.prev, forward: false) }

    private func visibleElement(from start: xmlNodePtr?, forward: Bool) -> xmlNodePtr? {
        var node = start
        while let current = node {
            if current.isElement {
                if !(current.named("link") || current.named("meta") || current.named("style")) { return current }
            } else if current.isText {
                for byte in current.textBytes where !(byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D) { return nil }
            }
            node = forward ? current.pointee.next : current.pointee.prev
        }
        return nil
    }

    /// The text node's content as bytes (valid while the document lives).
    var textBytes: UnsafeBufferPointer<UInt8> {
        guard let content = pointee.content else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: content, count: strlen(UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self)))
    }
}

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

/// Walks the subtree under `root` (not `root` itself) in document order without recursion.
/// `visit` returns whether to descend into an element; `leave` is called when an element that
/// was descended into ends.
func walkChildren(
    of root: xmlNodePtr, visit: (xmlNodePtr) -> Bool, leave: (xmlNodePtr) -> Void = { _ in }
) {
    var node = root.pointee.children
    while let current = node {
        if current.isElement, current.pointee.children != nil, visit(current) {
            node = current.pointee.children
            continue
        } else if !(current.isElement && current.pointee.children != nil) {
            _ = visit(current)
        }
        var cursor = current
        while cursor.pointee.next == nil {
            guard let parent = cursor.pointee.parent, parent != root else { return }
            leave(parent)
            cursor = parent
        }
        node = cursor.pointee.next
    }
}
