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

    /// The text node's content as bytes (valid while the document lives).
    var textBytes: UnsafeBufferPointer<UInt8> {
        guard let content = pointee.content else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: content, count: strlen(UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self)))
    }
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
