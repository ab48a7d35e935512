import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// An HTML document parsed by libxml2 with the options that are safe for untrusted input, owned
/// here and freed with it.
///
/// - The input is made valid UTF-8 first (bad sequences become U+FFFD, as a browser does) and
///   NUL bytes become U+FFFD too: libxml2 2.9 stops at the first NUL.
/// - It is parsed as `"UTF-8"` with `HTML_PARSE_IGNORE_ENC`, so a `<meta charset=utf-7>` in the
///   input cannot change how its bytes are read; with `HTML_PARSE_NONET`; never `XML_PARSE_HUGE`.
/// - Input over `limit` bytes is refused before parsing, and so is a document that reached
///   libxml2's depth limit (it stops there and returns a truncated tree).
final class HTMLDocument {
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case tooLarge(bytes: Int, limit: Int)
        case unparsable
        case tooDeep(depth: Int)

        var description: String {
            switch self {
            case .tooLarge(let bytes, let limit): return "\(bytes) bytes of HTML, over the \(limit)-byte limit"
            case .unparsable: return "libxml2 returned no document"
            case .tooDeep(let depth): return "elements nest \(depth) deep, at libxml2's limit: the parse was cut short"
            }
        }
    }

    let pointer: htmlDocPtr
    /// What became of the trailing boilerplate, when the parse was to leave its tree unbuilt
    /// (`TreeTail`).
    let tail: TreeTail?

    private static let initialized: Void = { xmlInitParser() }()

    private init(pointer: htmlDocPtr, tail: TreeTail?) {
        self.pointer = pointer
        self.tail = tail
    }

    deinit { xmlFreeDoc(pointer) }

    /// libxml2's options for untrusted HTML (see the type's comment).
    static let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue
            | HTML_PARSE_NODEFDTD.rawValue | HTML_PARSE_IGNORE_ENC.rawValue | HTML_PARSE_COMPACT.rawValue)

    /// Parses `bytes` as a document: libxml2 adds `html`, `head` and `body` as needed. (Not
    /// `HTML_PARSE_NOIMPLIED`: without a body, libxml2 2.9 nests whatever follows a `script` or
    /// an `svg` inside it, and a sanitizer that drops those would drop the text after them.)
    ///
    /// - Parameter tail: given the bytes libxml2 will read (valid UTF-8 without NUL), a watch
    ///   that leaves the tree of the trailing boilerplate unbuilt (`TreeTail`), or nil to build
    ///   it all. A document nested past libxml2's depth limit in what the watch leaves unbuilt is
    ///   refused as a whole parse refuses it, with the same depth.
    /// - Parameter stream: a reader that reads the content root's children as libxml2 completes
    ///   them and frees what it has read (`TreeStream`); the tree then holds only what it has
    ///   not read.
    static func parse(
        _ bytes: UnsafeRawBufferPointer, limit: Int, tail: ((UnsafeBufferPointer<UInt8>) -> TreeTail?)? = nil,
        stream: TreeStream? = nil
    ) throws(Refusal) -> HTMLDocument {
        _ = initialized
        guard bytes.count <= limit, bytes.count < Int(Int32.max) else {
            throw .tooLarge(bytes: bytes.count, limit: limit)
        }
        guard let context = htmlNewParserCtxt() else { throw .unparsable }
        defer { htmlFreeParserCtxt(context) }
        var watch: TreeTail? = nil
        var hooks: ParseHooks? = nil
        let parsed: htmlDocPtr? = Self.withCleanUTF8(bytes) { clean in
            watch = tail?(clean)
            if watch != nil || stream != nil {
                hooks = ParseHooks(tail: watch, stream: stream)
                hooks?.install(on: context)
            }
            return clean.isEmpty ? nil : WindowedInput(clean).read(into: context, options: options)
        }
        context.pointee._private = nil
        withExtendedLifetime(hooks) {}
        guard let parsed else { throw .unparsable }
        let document = HTMLDocument(pointer: parsed, tail: watch)
        // libxml2 stops at its depth limit with an "Excessive depth" error and returns the tree
        // so far: refuse it rather than publish a truncated blurb.
        if let error = xmlCtxtGetLastError(context), error.pointee.code == XML_ERR_INTERNAL_ERROR.rawValue,
           let message = error.pointee.message, String(cString: message).contains("depth")
        {
            throw .tooDeep(depth: max(document.maximumDepth(), watch?.deepest ?? 0))
        }
        // The same refusal when the depth was passed among the elements left unbuilt.
        if let watch, watch.tooDeep {
            throw .tooDeep(depth: max(document.maximumDepth(), watch.deepest))
        }
        return document
    }

    /// Calls `body` with `bytes` as valid UTF-8 without NUL: the bytes themselves when they
    /// already are, else one repaired copy made in one pass (`repairedUTF8WithoutNUL`).
    private static func withCleanUTF8<T>(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let raw = bytes.bindMemory(to: UInt8.self)
        if !needsRepair(bytes) { return body(raw) }
        return repairedUTF8WithoutNUL(bytes).withUnsafeBufferPointer(body)
    }

    /// Whether `bytes` are read repaired (`withCleanUTF8`): they hold a NUL or are not UTF-8.
    static func needsRepair(_ bytes: UnsafeRawBufferPointer) -> Bool {
        !bytes.isEmpty && (memchr(bytes.baseAddress!, 0, bytes.count) != nil || !isValidUTF8(bytes.bindMemory(to: UInt8.self)))
    }

    /// Gives libxml2 the document through its I/O callbacks, a window at a time, as it reads a
    /// file. `htmlCtxtReadMemory` copies the whole input into a buffer of its own, and declaring
    /// it "UTF-8" copies it whole again to "convert" it: two extra copies of a 6 MB article alive
    /// during its parse. Read through I/O, libxml2 holds a few windows of it, and builds the
    /// same tree (the tests compare the two on real pages, the hostile corpus and synthetic
    /// articles). (Its static memory input, which would copy nothing, reads some bytes twice in
    /// libxml2 2.9.14.)
    private final class WindowedInput {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var offset = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func read(into context: htmlParserCtxtPtr, options: Int32) -> htmlDocPtr? {
            withExtendedLifetime(self) {
                htmlCtxtReadIO(context, { own, buffer, length in
                    guard let own, let buffer, length > 0 else { return 0 }
                    return Unmanaged<WindowedInput>.fromOpaque(own)._withUnsafeGuaranteedRef { $0.next(into: buffer, length: Int(length)) }
                }, nil, Unmanaged.passUnretained(self).toOpaque(), nil, "UTF-8", options)
            }
        }

        private func next(into buffer: UnsafeMutablePointer<CChar>, length: Int) -> Int32 {
            let count = min(length, bytes.count - offset)
            if count > 0 { UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: count) }
            offset += count
            return Int32(count)
        }
    }

    /// Whether `bytes` is well-formed UTF-8 (see `isWellFormedUTF8`).
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isWellFormedUTF8(UnsafeRawBufferPointer(bytes))
    }

    /// The top-level nodes: every child of the document node (a fragment can have several).
    var topLevel: xmlNodePtr? { pointer.pointee.children }

    /// The deepest element nesting, counted without recursion.
    func maximumDepth() -> Int {
        var deepest = 0
        var depth = 0
        var node = topLevel
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE {
                deepest = max(deepest, depth + 1)
            }
            if let child = current.pointee.children, current.pointee.type == XML_ELEMENT_NODE {
                depth += 1
                node = child
                continue
            }
            var next: xmlNodePtr? = current
            while let candidate = next, candidate.pointee.next == nil {
                next = candidate.pointee.parent
                if next == nil || next!.pointee.type == XML_HTML_DOCUMENT_NODE || next!.pointee.type == XML_DOCUMENT_NODE {
                    return deepest
                }
                depth -= 1
            }
            node = next?.pointee.next
        }
        return deepest
    }
}

extension UnsafeMutablePointer where Pointee == xmlNode {
    /// The element's name, lower case as libxml2's HTML parser writes it.
    var elementName: UnsafePointer<UInt8>? { pointee.name }

    /// Whether the element's name is `name`.
    func named(_ name: StaticString) -> Bool {
        guard let own = pointee.name else { return false }
        return cString(own, equals: name)
    }

    /// The value of attribute `name` when it is plain text, pointing into the tree (valid while
    /// the document lives); "" when its value is not plain text; nil if absent.
    func attribute(_ name: StaticString) -> UnsafePointer<UInt8>? {
        var property = pointee.properties
        while let current = property {
            if let own = current.pointee.name, cString(own, equals: name) {
                if let text = current.pointee.children, text.pointee.type == XML_TEXT_NODE, text.pointee.next == nil,
                   let content = text.pointee.content
                {
                    return UnsafePointer(content)
                }
                return StaticString("").utf8Start
            }
            property = current.pointee.next
        }
        return nil
    }
}
