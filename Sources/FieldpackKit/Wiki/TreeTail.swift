import CLibXML2

/// Lets libxml2 read an article's trailing boilerplate (References, External links, … to the
/// end) without building its tree. libxml2 still tokenizes every byte, so comments, scripts,
/// attribute values and misnested tags are read exactly as in a whole parse; from the end of the
/// first heading of that run on, elements are only counted and watched, not built.
///
/// The heading is only proposed from the bytes (`BoilerplateTail.headingTagEnd`): the tree stops
/// there only where libxml2 itself starts an `h2` whose start tag ends at that byte, and what the
/// rules could still read after it makes the caller parse the whole tree after all (`unusable`):
/// a level-2 heading that is not a skipped section (each is built, read as the rules read it, and
/// freed), a redirect `link`, a disambiguation `meta`, a content root, a second `html`, `head` or
/// `body`. The caller also checks that the rules read the proposed heading as a skipped section
/// (`ArticleCleaner.clean(_:tailHeading:)`). A wrong proposal costs a second parse, never a
/// different blurb.
///
/// libxml2's depth limit is applied to the elements left unbuilt as its tree builder applies it
/// (`nodePush`), so a document refused whole is refused here too, with the same depth.
///
/// One instance serves one parse, on one thread: libxml2 calls back on the parsing thread.
final class TreeTail {
    /// The offset, in the bytes libxml2 reads, of the `>` ending the proposed heading's start tag.
    let stopAt: Int
    private let rules: BlurbRules
    /// The bytes libxml2 reads (valid while it parses them).
    private let bytes: UnsafeBufferPointer<UInt8>

    // Read for every element libxml2 parses: unchecked at run time (`PaddedBuffer` says why).
    /// libxml2's tree builder, as the parser context had it (set by `ParseHooks.install`).
    @exclusivity(unchecked) var builder = xmlSAXHandler()

    enum Phase: Equatable {
        /// Building the tree, watching for the proposed heading.
        case building
        /// Building the proposed heading.
        case inHeading
        /// Past the proposed heading: elements are counted, not built.
        case watching
    }

    @exclusivity(unchecked) private(set) var phase = Phase.building
    /// The heading the tree stops after, once libxml2 has started it.
    @exclusivity(unchecked) private(set) var heading: xmlNodePtr?
    /// Why the whole tree must be built after all, if it must.
    @exclusivity(unchecked) private(set) var unusable: String?
    /// Set when an unbuilt element would have gone past libxml2's depth limit.
    @exclusivity(unchecked) private(set) var tooDeep = false
    /// The deepest element depth among the unbuilt elements (as `HTMLDocument.maximumDepth`
    /// counts it), for the refusal's message.
    @exclusivity(unchecked) private(set) var deepest = 0
    /// Unbuilt elements open now.
    @exclusivity(unchecked) private var unbuilt: Int32 = 0
    /// A level-2 heading of the tail, built only to be read as the rules read it, then freed.
    @exclusivity(unchecked) private var tailHeading: xmlNodePtr?

    /// Set when the bytes after the proposed heading were shown to hold nothing the rules read
    /// (`InertTail`), so that libxml2 stopped reading there.
    @exclusivity(unchecked) private(set) var provedInert = false

    init(stopAt: Int, rules: BlurbRules, bytes: UnsafeBufferPointer<UInt8>) {
        self.stopAt = stopAt
        self.rules = rules
        self.bytes = bytes
    }

    /// Whether the tree stops after the proposed heading and nothing after it needs a tree.
    var stopped: Bool { phase == .watching && unusable == nil && !tooDeep }

    /// Calls `body` with the watch of `context` (through its `ParseHooks`) without retaining it:
    /// libxml2 calls back for every element and every piece of text.
    @inline(__always)
    private static func with(_ context: UnsafeMutableRawPointer?, _ body: (TreeTail) -> Void) {
        ParseHooks.with(context) { hooks in if let tail = hooks.tail { body(tail) } }
    }

    /// From the end of the proposed heading on, content goes to the tree builder only inside a
    /// heading of the tail being read.
    private func watchContent(of context: UnsafeMutablePointer<xmlParserCtxt>) {
        guard let sax = context.pointee.sax else { return }
        sax.pointee.characters = { context, text, count in
            TreeTail.with(context) { tail in if tail.tailHeading != nil { tail.builder.characters?(context, text, count) } }
        }
        sax.pointee.ignorableWhitespace = { context, text, count in
            TreeTail.with(context) { tail in if tail.tailHeading != nil { tail.builder.ignorableWhitespace?(context, text, count) } }
        }
        sax.pointee.cdataBlock = { context, text, count in
            TreeTail.with(context) { tail in if tail.tailHeading != nil { tail.builder.cdataBlock?(context, text, count) } }
        }
        sax.pointee.comment = { context, text in
            TreeTail.with(context) { tail in if tail.tailHeading != nil { tail.builder.comment?(context, text) } }
        }
        sax.pointee.processingInstruction = { context, target, data in
            TreeTail.with(context) { tail in if tail.tailHeading != nil { tail.builder.processingInstruction?(context, target, data) } }
        }
    }

    /// An element starts (from `ParseHooks`): until the proposed heading it is built, and the
    /// heading's end is watched for; from then on the tail decides.
    func start(
        _ raw: UnsafeMutableRawPointer?, _ name: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        guard let raw, let name, unusable == nil, !tooDeep else { return }
        let context = raw.assumingMemoryBound(to: xmlParserCtxt.self)
        let isH2 = name[0] == UInt8(ascii: "h") && name[1] == UInt8(ascii: "2") && name[2] == 0
        switch phase {
        case .building:
            builder.startElement?(raw, name, attributes)
            if isH2, Self.position(context) == stopAt, let node = context.pointee.node, node.named("h2") {
                heading = node
                phase = .inHeading
                context.pointee.sax.pointee.endElement = { context, name in TreeTail.with(context) { $0.end(context, name) } }
            }
        case .inHeading:
            builder.startElement?(raw, name, attributes)
        case .watching:
            if let reason = Self.needsTree(name, attributes) { return stop(context, unusable: reason) }
            // libxml2's tree builder refuses an element pushed past its depth limit (`nodePush`):
            // the same limit, counting the elements left unbuilt.
            let open = Int(context.pointee.nodeNr) + Int(unbuilt)
            if open > Int(fp_xml_max_depth()) {
                tooDeep = true
                deepest = max(deepest, open)
                xmlStopParser(context)
                return
            }
            deepest = max(deepest, open + 1)
            guard tailHeading != nil || isH2 else {
                unbuilt += 1
                return
            }
            // A heading of the tail, and what it holds, is built (below the elements left unbuilt
            // around it) to be read.
            let depth = context.pointee.nodeNr
            builder.startElement?(raw, name, attributes)
            if tailHeading == nil, context.pointee.nodeNr == depth + 1 { tailHeading = context.pointee.node }
        }
    }

    private func end(_ raw: UnsafeMutableRawPointer?, _ name: UnsafePointer<xmlChar>?) {
        guard let raw, unusable == nil, !tooDeep else { return }
        if tailHeading == nil && unbuilt > 0 {
            unbuilt -= 1
            return
        }
        let context = raw.assumingMemoryBound(to: xmlParserCtxt.self)
        // The element ending is the one on top of the tree builder's stack.
        let node = context.pointee.node
        builder.endElement?(raw, name)
        guard let node else { return }
        if node == heading && phase == .inHeading {
            phase = .watching
            // Ended by its own `</h2>` inside `body`: libxml2 is reading content right after it,
            // and the rest may be shown inert without reading it.
            let position = Self.position(context)
            if position >= 5 && position <= bytes.count, Self.endsWithHeadingEnd(bytes, at: position), Self.isInBody(node),
               InertTail.holdsNothingRead(UnsafeBufferPointer(rebasing: bytes[position...]), open: Int(context.pointee.nodeNr), rules: rules)
            {
                provedInert = true
                xmlStopParser(context)
                return
            }
            watchContent(of: context)
        } else if node == tailHeading {
            tailHeading = nil
            let skipped = ArticleCleaner.State.isSkippedSection(node, rules: rules, lookups: ArticleCleaner.Lookups())
            xmlUnlinkNode(node)
            xmlFreeNode(node)
            if !skipped { stop(context, unusable: "a level-2 heading after the trailing boilerplate starts") }
        }
    }

    private func stop(_ context: UnsafeMutablePointer<xmlParserCtxt>, unusable reason: String) {
        unusable = reason
        xmlStopParser(context)
    }

    /// Why an element of the tail needs the tree built, if it does: what the rules read anywhere
    /// in a document (redirect and disambiguation markers, the content root) or what should not
    /// come after a heading at all.
    private static func needsTree(_ name: UnsafePointer<xmlChar>, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> String? {
        if cString(name, equals: "html") || cString(name, equals: "head") || cString(name, equals: "body") {
            return "a document element after the trailing boilerplate starts"
        }
        guard let attributes else { return nil }
        let isLink = cString(name, equals: "link")
        let isMeta = cString(name, equals: "meta")
        var index = 0
        while let attribute = attributes[index] {
            let value = attributes[index + 1]
            index += 2
            guard let value else { continue }
            if cString(attribute, equals: "class") && cString(value, contains: "mw-parser-output") {
                return "a content root after the trailing boilerplate starts"
            }
            if isLink && cString(attribute, equals: "rel") && cString(value, contains: "redirect") {
                return "a redirect link after the trailing boilerplate starts"
            }
            if isMeta && cString(attribute, equals: "property") && cString(value, contains: "disambiguation") {
                return "a disambiguation marker after the trailing boilerplate starts"
            }
        }
        return nil
    }

    /// Whether the bytes before `position` are `</h2>` (in any case).
    private static func endsWithHeadingEnd(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        bytes[position - 5] == UInt8(ascii: "<") && bytes[position - 4] == UInt8(ascii: "/") && bytes[position - 3] | 0x20 == UInt8(ascii: "h")
            && bytes[position - 2] == UInt8(ascii: "2") && bytes[position - 1] == UInt8(ascii: ">")
    }

    /// Whether `node` is inside the `body` element.
    private static func isInBody(_ node: xmlNodePtr) -> Bool {
        var ancestor = node.pointee.parent
        while let current = ancestor {
            if current.pointee.type == XML_ELEMENT_NODE && current.named("body") { return true }
            ancestor = current.pointee.parent
        }
        return false
    }

    /// The offset in the document of the parser's position: at a start tag's callback, its `>`;
    /// at an end tag's, just past its `>`.
    private static func position(_ context: UnsafeMutablePointer<xmlParserCtxt>) -> Int {
        guard let input = context.pointee.input, let base = input.pointee.base, let current = input.pointee.cur else { return -1 }
        return Int(input.pointee.consumed) + (current - base)
    }
}
