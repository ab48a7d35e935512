import CLibXML2

/// What fieldpack does around libxml2's tree builder during one parse: leave the trailing
/// boilerplate unbuilt (`TreeTail`) and read the content as it is built (`TreeStream`). libxml2
/// gives a parse one pointer of its caller's (`_private`); it points here, and each callback
/// finds its watch through it.
///
/// One instance serves one parse, on one thread: libxml2 calls back on the parsing thread.
final class ParseHooks {
    let tail: TreeTail?
    let stream: TreeStream?
    /// libxml2's tree builder, as the parser context had it.
    // Read for every element libxml2 parses: unchecked at run time (`PaddedBuffer` says why).
    @exclusivity(unchecked) private(set) var builder = xmlSAXHandler()

    init(tail: TreeTail?, stream: TreeStream?) {
        self.tail = tail
        self.stream = stream
    }

    /// Routes the start of every element through the hooks. Call after `htmlNewParserCtxt`,
    /// before the parse; clear `_private` after it; the context must not outlive `self`.
    func install(on context: htmlParserCtxtPtr) {
        guard let sax = context.pointee.sax else { return }
        builder = sax.pointee
        tail?.builder = sax.pointee
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        sax.pointee.startElement = { context, name, attributes in ParseHooks.with(context) { $0.start(context, name, attributes) } }
    }

    /// Calls `body` with the hooks of `context` without retaining them: libxml2 calls back for
    /// every element and every piece of text.
    @inline(__always)
    static func with(_ context: UnsafeMutableRawPointer?, _ body: (ParseHooks) -> Void) {
        guard let context, let own = context.assumingMemoryBound(to: xmlParserCtxt.self).pointee._private else { return }
        Unmanaged<ParseHooks>.fromOpaque(own)._withUnsafeGuaranteedRef(body)
    }

    private func start(
        _ raw: UnsafeMutableRawPointer?, _ name: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        if let tail {
            tail.start(raw, name, attributes)
            // From the proposed heading on, the tree holds what the tail watch decides.
            guard tail.phase == .building else { return }
        } else {
            builder.startElement?(raw, name, attributes)
        }
        guard let stream, let raw, let node = raw.assumingMemoryBound(to: xmlParserCtxt.self).pointee.node else { return }
        stream.started(node)
    }
}
