import CLibXML2

#if canImport(Glibc)
import Glibc
#endif

/// Turns a Wikipedia article's HTML (Parsoid, legacy `action=parse` with `span.mw-headline`, or
/// MediaWiki ≥ 1.43 with `div.mw-heading`) into a `Blurb`, by the app's rules:
///
/// - only prose paragraphs (`p` without a class) and section headings are read; tables
///   (infoboxes, message boxes, navboxes), figures, lists, hatnotes, short descriptions,
///   reference lists, styles, categories, edit links and the table of contents are dropped;
/// - inside paragraphs, citation markers are removed as elements (`sup.reference`, `sup.mw-ref`,
///   Parsoid's `mw:Extension/ref`), so `[lower-alpha 1]`, `[a]`, `[1.1]`, `:104` go with them;
///   other superscripts stay ("cm²"); links keep their text only; `b`/`i` stay;
/// - boilerplate sections (`BlurbRules.skippedSections`) are skipped with their subsections;
///   headings shorter than `minimumHeadingLength` are not shown; a heading followed directly
///   by another heading (an empty section) is dropped;
/// - stub paragraphs (short, not ending in ".") and list introductions (ending in ":" or ":-")
///   are dropped;
/// - headings are written as `<br><b>UPPERCASED</b><br>`, paragraphs as `<p>…</p>`.
struct ArticleCleaner {
    let rules: BlurbRules

    func clean(_ document: HTMLDocument) -> Blurb {
        var state = State(rules: rules)
        let (root, title) = Self.contentRoot(document)
        if let root {
            walkChildren(of: root, visit: { state.visit($0) })
        }
        state.finish()
        return Blurb(
            kind: state.kind, html: String(decoding: state.markup.finish(), as: UTF8.self),
            summary: Self.summary(state.lead, length: rules.summaryLength), title: title, sections: state.sectionsShown)
    }

    /// The element holding the article (`div.mw-parser-output` in legacy pages, else `body`),
    /// and the document's title.
    static func contentRoot(_ document: HTMLDocument) -> (xmlNodePtr?, String?) {
        var body: xmlNodePtr? = nil
        var title: String? = nil
        var parserOutput: xmlNodePtr? = nil
        var node = document.topLevel
        while let current = node, !current.isElement || !current.named("html") { node = current.pointee.next }
        guard let html = node else { return (nil, nil) }
        var child = html.pointee.children
        while let current = child {
            if current.isElement && current.named("head") {
                var item = current.pointee.children
                while let entry = item {
                    if entry.isElement && entry.named("title") {
                        var text = ArticleText()
                        walkChildren(of: entry, visit: { node in
                            if node.isText { text.append(node.textBytes) }
                            return true
                        })
                        text.normalize()
                        title = text.plain.isEmpty ? nil : text.plain
                    }
                    item = entry.pointee.next
                }
            } else if current.isElement && current.named("body") {
                body = current
            }
            child = current.pointee.next
        }
        if let body {
            walkChildren(of: body, visit: { node in
                guard parserOutput == nil, node.isElement else { return false }
                if node.named("div") && node.hasClass("mw-parser-output") {
                    parserOutput = node
                    return false
                }
                return true
            })
        }
        return (parserOutput ?? body, title)
    }

    /// The lead's plain text cut at a sentence end near `length` characters: the last sentence
    /// end at or before it (if past half of it), else the first after it; with no sentence end at
    /// all, at a word boundary, with "…".
    static func summary(_ lead: [String], length: Int) -> String {
        let text = lead.joined(separator: " ")
        let characters = Array(text)
        guard characters.count > length else { return text }
        var ends: [Int] = []
        for index in 0..<(characters.count - 1) where ".!?".contains(characters[index]) && characters[index + 1] == " " {
            // Not an initial or an abbreviation like "e.g.": the next word starts a sentence.
            if index + 2 < characters.count, characters[index + 2].isUppercase || characters[index + 2].isNumber
                || characters[index + 2] == "\"" || characters[index + 2] == "“"
            {
                if index >= 1 && characters[index - 1].isUppercase && (index < 2 || characters[index - 2] == " ") { continue }
                ends.append(index + 1)
            }
        }
        if let best = ends.last(where: { $0 <= length && $0 >= length / 2 }) {
            return String(characters[0..<best])
        }
        if let next = ends.first(where: { $0 > length }), next <= length * 2 {
            return String(characters[0..<next])
        }
        var cut = length
        while cut > 0 && characters[cut] != " " { cut -= 1 }
        return String(characters[0..<(cut > 0 ? cut : length)]) + "…"
    }

    /// The walk's state: what has been written, the pending heading, the skipped section.
    struct State {
        let rules: BlurbRules
        var markup = SafeMarkup()
        var kind = Blurb.Kind.article
        var lead: [String] = []
        var inLead = true
        var pendingHeading: ArticleText? = nil
        /// Inside a skipped section of this heading level.
        var skipLevel: Int? = nil
        var sectionsShown = 0

        init(rules: BlurbRules) {
            self.rules = rules
        }

        mutating func visit(_ node: xmlNodePtr) -> Bool {
            guard node.isElement, let name = node.elementName else { return false }
            switch name[0] {
            case UInt8(ascii: "p") where name[1] == 0:
                if node.attribute("class") == nil { paragraph(node) }
                return false
            case UInt8(ascii: "h") where name[2] == 0 && name[1] >= UInt8(ascii: "1") && name[1] <= UInt8(ascii: "6"):
                if name[1] != UInt8(ascii: "1") { heading(node, level: Int(name[1] - UInt8(ascii: "0"))) }
                return false
            case UInt8(ascii: "l") where node.named("link"):
                if node.attribute("rel", hasWord: "mw:PageProp/redirect"), let target = node.attribute("href") {
                    kind = .redirect(Self.title(fromHref: String(cString: target)))
                }
                return false
            case UInt8(ascii: "m") where node.named("meta"):
                if node.attribute("property", hasWord: "mw:PageProp/disambiguation") { kind = .disambiguation }
                return false
            default:
                return !Self.isDropped(node, name: node.nameString)
            }
        }

        /// A redirect's target from its `href` (`./Great_tit` → `Great tit`).
        static func title(fromHref href: String) -> String {
            var text = Substring(href)
            if text.hasPrefix("./") { text = text.dropFirst(2) }
            if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
            return WikiTitle.normalize(String(text))
        }

        mutating func paragraph(_ node: xmlNodePtr) {
            var text = Self.inlineText(of: node)
            text.normalize()
            guard !text.isEmpty, skipLevel == nil else { return }
            let plain = text.plain
            if plain.hasSuffix(":") || plain.hasSuffix(":-") { return }
            if plain.count <= rules.stubLength && !plain.hasSuffix(".") { return }
            if let heading = pendingHeading {
                markup.boundary()
                markup.lineBreak()
                markup.begin(.bold)
                heading.write(into: &markup, uppercased: true)
                markup.end()
                markup.lineBreak()
                pendingHeading = nil
                sectionsShown += 1
            }
            markup.beginParagraph()
            text.write(into: &markup)
            markup.endParagraph()
            if inLead { lead.append(plain) }
        }

        mutating func heading(_ node: xmlNodePtr, level: Int) {
            inLead = false
            if let skipped = skipLevel {
                if level > skipped { return }
                skipLevel = nil
            }
            var text = Self.inlineText(of: node)
            text.normalize()
            let plain = text.plain
            if rules.skippedSections.contains(plain.lowercased()) {
                skipLevel = level
                pendingHeading = nil
                return
            }
            // A heading directly after another: the earlier one's section is empty.
            pendingHeading = plain.count < rules.minimumHeadingLength ? nil : text
        }

        mutating func finish() {
            pendingHeading = nil
            if case .redirect = kind { markup = SafeMarkup() }
            if case .disambiguation = kind { markup = SafeMarkup() }
        }

        /// The formatted text inside a paragraph or heading, without its references, edit links,
        /// hidden spans, styles, math and figures.
        static func inlineText(of element: xmlNodePtr) -> ArticleText {
            var text = ArticleText()
            walkChildren(of: element, visit: { node in
                if node.isText {
                    text.append(node.textBytes)
                    return false
                }
                guard node.isElement else { return false }
                let name = node.nameString
                switch name {
                case "b", "strong":
                    text.begin(.bold)
                    if node.pointee.children == nil { text.end(.bold) }
                    return true
                case "i", "em", "cite", "var":
                    text.begin(.italic)
                    if node.pointee.children == nil { text.end(.italic) }
                    return true
                case "br":
                    text.space()
                    return false
                case "sup", "sub":
                    if isDropped(node, name: name) { return false }
                    var inner = ArticleText()
                    walkChildren(of: node, visit: { child in
                        if child.isText { inner.append(child.textBytes) }
                        return child.isElement && !isDropped(child, name: child.nameString)
                    })
                    let raw = inner.runs.flatMap(\.bytes)
                    text.append(Self.scripted(String(decoding: raw, as: UTF8.self), superscript: name == "sup"))
                    return false
                default:
                    return !isDropped(node, name: name)
                }
            }, leave: { node in
                switch node.nameString {
                case "b", "strong": text.end(.bold)
                case "i", "em", "cite", "var": text.end(.italic)
                default: break
                }
            })
            return text
        }

        /// Digits and signs as Unicode super- or subscripts when every character has one
        /// ("2" → "²"); other text as it is.
        static func scripted(_ text: String, superscript: Bool) -> String {
            let from = Array("0123456789+-−=()n")
            let to = Array(superscript ? "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿ" : "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₙ")
            var out = ""
            for character in text {
                guard let index = from.firstIndex(of: character) else { return text }
                out.append(to[index])
            }
            return out
        }

        static let droppedNames: Set<String> = [
            "style", "script", "link", "meta", "noscript", "template", "svg", "math", "table", "figure", "figcaption",
            "img", "audio", "video", "object", "iframe", "embed", "ul", "ol", "dl", "input", "button", "form", "map",
            "caption", "title", "head", "nav", "textarea", "select", "canvas", "picture", "source", "track", "gallery",
            "h1", "blockquote", "pre",
        ]

        static let droppedClasses: Set<String> = [
            "hatnote", "navbox", "navbox-styles", "shortdescription", "noprint", "mw-editsection", "reference", "mw-ref",
            "reflist", "references", "mw-references-wrap", "mw-references", "infobox", "sidebar", "metadata", "thumb",
            "gallery", "toc", "mw-empty-elt", "mwe-math-element", "mw-cite-backlink", "noexcerpt", "catlinks",
            "printfooter", "mw-authority-control", "asbox", "dmbox", "mw-jump-link", "mw-indicators", "geo-nondefault",
            "geo-multi-punct", "IPA", "rt-commentedText", "portalbox", "side-box", "mw-kartographer-maplink",
        ]

        static func isDropped(_ node: xmlNodePtr, name: String) -> Bool {
            if droppedNames.contains(name) { return true }
            if name == "sup", node.attribute("id", contains: "cite_ref") { return true }
            if let classes = node.attribute("class") {
                var dropped = false
                eachWord(classes) { word in
                    if droppedClasses.contains(word) || word.hasSuffix("mbox") { dropped = true }
                }
                if dropped { return true }
            }
            if node.attribute("role", hasWord: "navigation") || node.attribute("role", hasWord: "note") { return true }
            if node.attribute("typeof", contains: "mw:Extension/ref") || node.attribute("typeof", contains: "mw:Extension/math")
                || node.attribute("typeof", contains: "mw:Extension/gallery")
            {
                return true
            }
            if let id = node.attribute("id"), strcmp(id, "coordinates") == 0 || strcmp(id, "toc") == 0 { return true }
            if node.attribute("style", contains: "display:none") || node.attribute("style", contains: "display: none") {
                return true
            }
            return false
        }

        private static func strcmp(_ text: UnsafePointer<UInt8>, _ literal: StaticString) -> Int32 {
            Glibc.strcmp(UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self),
                         UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self))
        }

        /// Calls `body` with each space-separated word of a C string.
        private static func eachWord(_ text: UnsafePointer<UInt8>, _ body: (String) -> Void) {
            var index = 0
            while text[index] != 0 {
                while text[index] == 0x20 || text[index] == 0x09 || text[index] == 0x0A { index += 1 }
                let start = index
                while text[index] != 0 && text[index] != 0x20 && text[index] != 0x09 && text[index] != 0x0A { index += 1 }
                if index > start {
                    body(String(decoding: UnsafeBufferPointer(start: text + start, count: index - start), as: UTF8.self))
                }
            }
        }
    }
}
