import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// Turns any HTML into safe blurb markup (see `SafeMarkup`): formatting (`b`/`strong`,
/// `i`/`em`), paragraphs and line breaks are kept; block elements become paragraph boundaries;
/// other elements are unwrapped (their text kept, escaped); elements whose content is not
/// ordinary text in a browser (scripts, styles, templates, raw text, SVG, MathML, embedded
/// documents, forms' option lists) are dropped with their content. Comments, processing
/// instructions, CDATA and doctypes are dropped.
///
/// Used by `fieldpack-sanitize`, so the sanitizer can be judged from outside on hostile input.
public struct Sanitizer: Sendable {
    /// Inputs larger than this are refused (nil), never parsed.
    public var maximumBytes: Int

    public init(maximumBytes: Int = 2 << 20) {
        self.maximumBytes = maximumBytes
    }

    /// The safe markup for `html`, or nil if the input is refused (too large, or so deeply
    /// nested that libxml2 cut the parse short).
    public func sanitize(_ html: UnsafeRawBufferPointer) -> String? {
        // Nothing but whitespace: nothing to show (libxml2 returns no document for it).
        if html.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0x0C }) { return "" }
        guard let document = try? HTMLDocument.parse(html, limit: maximumBytes) else { return nil }
        var markup = SafeMarkup(capacity: html.count)
        Self.walk(document.topLevel, into: &markup)
        return String(decoding: markup.finish(), as: UTF8.self)
    }

    public func sanitize(_ html: String) -> String? {
        var copy = html
        return copy.withUTF8 { sanitize(UnsafeRawBufferPointer($0)) }
    }

    /// What an element becomes.
    enum Role {
        case drop, unwrap, block, paragraph, bold, italic, lineBreak
    }

    static func role(of element: xmlNodePtr) -> Role {
        guard let name = element.elementName else { return .drop }
        return roles[String(cString: name)] ?? .unwrap
    }

    static let roles: [String: Role] = {
        var roles: [String: Role] = [:]
        for name in [
            "script", "style", "template", "noscript", "noembed", "noframes", "iframe", "frame", "frameset", "xmp",
            "plaintext", "textarea", "title", "select", "option", "optgroup", "datalist", "svg", "math", "object",
            "embed", "applet", "param", "canvas", "audio", "video", "source", "track", "picture", "img",
            "image", "input", "button", "map", "area", "base", "link", "meta", "basefont", "bgsound", "marquee",
            "portal", "slot", "dialog",
        ] { roles[name] = .drop }
        for name in [
            "div", "section", "article", "aside", "header", "footer", "nav", "main", "blockquote", "li", "ul", "ol",
            "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tfoot", "tr", "td",
            "th", "caption", "figure", "figcaption", "pre", "address", "hr", "center", "details", "summary",
            "fieldset", "legend", "form", "body", "html", "head", "hgroup", "menu", "listing",
        ] { roles[name] = .block }
        roles["p"] = .paragraph
        roles["b"] = .bold
        roles["strong"] = .bold
        roles["i"] = .italic
        roles["em"] = .italic
        roles["br"] = .lineBreak
        return roles
    }()

    /// Walks the nodes from `first` and its siblings in document order, without recursion.
    static func walk(_ first: xmlNodePtr?, into markup: inout SafeMarkup) {
        // Each open element and what to do when it ends.
        var closing: [Role] = []
        var node = first
        while let current = node {
            var descend = false
            switch current.pointee.type {
            case XML_TEXT_NODE:
                if let content = current.pointee.content {
                    markup.text(UnsafeBufferPointer(start: content, count: strlen(UnsafeRawPointer(content).assumingMemoryBound(to: CChar.self))))
                }
            case XML_ELEMENT_NODE:
                let role = role(of: current)
                switch role {
                case .drop: break
                case .lineBreak: markup.lineBreak()
                case .unwrap, .block, .paragraph, .bold, .italic:
                    switch role {
                    case .block: markup.boundary()
                    case .paragraph: markup.beginParagraph()
                    case .bold: markup.begin(.bold)
                    case .italic: markup.begin(.italic)
                    default: break
                    }
                    if current.pointee.children != nil {
                        closing.append(role)
                        descend = true
                    } else {
                        finish(role, &markup)
                    }
                }
            default:
                break  // comments, CDATA, processing instructions, doctypes, entity references
            }
            if descend {
                node = current.pointee.children
                continue
            }
            // The next sibling; at the end of a list of children, end their parent and go on
            // after it. At the end of the top-level list, stop.
            var cursor = current
            while cursor.pointee.next == nil {
                guard let role = closing.popLast(), let parent = cursor.pointee.parent else { return }
                finish(role, &markup)
                cursor = parent
            }
            node = cursor.pointee.next
        }
    }

    private static func finish(_ role: Role, _ markup: inout SafeMarkup) {
        switch role {
        case .block: markup.boundary()
        case .paragraph: markup.endParagraph()
        case .bold, .italic: markup.end()
        default: break
        }
    }
}
