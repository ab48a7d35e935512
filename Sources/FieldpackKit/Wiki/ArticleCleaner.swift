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
///   headings narrower than `minimumHeadingLength` columns (CJK characters are two) are not shown; a heading followed directly
///   by another heading (an empty section) is dropped;
/// - stub paragraphs (short, not ending a sentence in any script, `SentenceEnds`) and list
///   introductions (ending in ":" or ":-") are dropped; a paragraph cut short by a removed element
///   keeps its whole sentences only, and the rest of its sentence in the next paragraph goes too;
///   a quote's attribution goes with the quote;
/// - headings are written as `<br><b>UPPERCASED</b><br>`, paragraphs as `<p>…</p>`.
struct ArticleCleaner {
    let rules: BlurbRules

    func clean(_ document: HTMLDocument) -> Blurb {
        // Without a reader there is nothing read early to disagree with.
        clean(document, tailHeading: nil, readSoFar: nil)!.blurb
    }

    /// The blurb, and whether the rules read `tailHeading` (the heading a `TreeTail` stopped the
    /// tree after) as a skipped section of level 2: only then is nothing past it read, and a
    /// blurb made from a tree that stops there the blurb of the whole document.
    ///
    /// `stream` read (and freed) the first children of the content root while the tree was built:
    /// the walk goes on after them, from its state. Nil when it read a root other than the one
    /// the whole document has (the caller parses again without it).
    func clean(_ document: HTMLDocument, tailHeading: xmlNodePtr?, readSoFar stream: TreeStream?) -> (blurb: Blurb, skipsAfterTail: Bool)? {
        let (root, title) = Self.contentRoot(document)
        var state: State
        var next = root?.pointee.children
        if let stream, let read = stream.lastRead {
            guard root == stream.root else { return nil }
            state = stream.takeState()
            next = read.pointee.next
        } else {
            state = State(rules: rules)
        }
        state.tailHeading = tailHeading
        while let child = next {
            state.read(child)
            next = child.pointee.next
        }
        state.finish()
        let blurb = Blurb(
            kind: state.kind, html: String(decoding: state.markup.finish(), as: UTF8.self),
            summary: LeadSummary.make(state.lead, length: rules.summaryLength), title: title, sections: state.sectionsShown)
        return (blurb, state.skipsAfterTail)
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
        if let body, !body.hasClass("mw-parser-output") {
            // A saved page view holds parsed wikitext outside the article too, before it: the
            // page-status indicators (a protection lock, the good-article star, a place's title
            // coordinates) and the site notice. The article's own is inside `#mw-content-text`;
            // without that wrapper, the first one outside those blocks.
            var inContentText = false
            walkChildren(of: body, visit: { node in
                guard !inContentText, node.isElement else { return false }
                if node.attribute("id", hasWord: "mw-content-text") {
                    inContentText = true
                    parserOutput = Self.firstParserOutput(in: node) ?? parserOutput
                    return false
                }
                if node.hasClass("mw-indicators") || node.attribute("id", hasWord: "siteNotice") { return false }
                if Self.isParserOutput(node) {
                    if parserOutput == nil { parserOutput = node }
                    return false
                }
                return true
            })
        }
        return (parserOutput ?? body, title)
    }

    private static func isParserOutput(_ node: xmlNodePtr) -> Bool { node.named("div") && node.hasClass("mw-parser-output") }

    /// The first `div.mw-parser-output` under `node`, in document order.
    private static func firstParserOutput(in node: xmlNodePtr) -> xmlNodePtr? {
        var found: xmlNodePtr? = nil
        walkChildren(of: node, visit: { node in
            guard found == nil, node.isElement else { return false }
            if isParserOutput(node) {
                found = node
                return false
            }
            return true
        })
        return found
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
        /// The last paragraph read was cut short by a removed element.
        var previousWasCut = false
        /// The heading after which the tree was left unbuilt (`TreeTail`), if it was.
        var tailHeading: xmlNodePtr? = nil
        /// Whether reading `tailHeading` left a skipped section of level 2 open.
        var skipsAfterTail = false

        init(rules: BlurbRules) {
            self.rules = rules
        }

        /// Answers cached for this document (`Lookups`).
        let lookups = Lookups()

        /// Reads `child` of the content root and what it holds, as a walk of the root does.
        mutating func read(_ child: xmlNodePtr) {
            if child.isElement, child.pointee.children != nil {
                if visit(child) { walkChildren(of: child, visit: { visit($0) }) }
            } else {
                _ = visit(child)
            }
        }

        mutating func visit(_ node: xmlNodePtr) -> Bool {
            guard node.isElement, let name = node.elementName else { return false }
            switch name[0] {
            case UInt8(ascii: "p") where name[1] == 0:
                if node.attribute("class") == nil && !Self.isTitleDescription(node) { paragraph(node) }
                return false
            // name[1] first: for a name that is just "h" it is the terminator, and name[2] is past it.
            case UInt8(ascii: "h") where name[1] >= UInt8(ascii: "1") && name[1] <= UInt8(ascii: "6") && name[2] == 0:
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
                if name[0] == UInt8(ascii: "d") || name[0] == UInt8(ascii: "t"), let legacy = Self.legacyKind(node) {
                    kind = legacy
                    return false
                }
                return !Self.isDropped(node, kind: lookups.kind(of: node), lookups: lookups)
            }
        }

        /// Saved page views and `action=parse` output mark a redirect page and a disambiguation
        /// page in their markup, not with Parsoid's page properties: `div.redirectMsg`, whose
        /// link names the target (its `title`, else its `/wiki/` address), and the
        /// disambiguation box (`#disambigbox`, `.dmbox-disambig`). Read as articles, they shipped
        /// empty.
        static func legacyKind(_ node: xmlNodePtr) -> Blurb.Kind? {
            let isDiv = node.named("div")
            if isDiv, node.hasClass("redirectMsg") {
                var target: String? = nil
                walkChildren(of: node) { child in
                    if target == nil, child.isElement, child.named("a") {
                        if let title = child.attribute("title"), title.pointee != 0 {
                            target = String(cString: title)
                        } else if let href = child.attribute("href") {
                            var path = Substring(String(cString: href))
                            if let wiki = path.ranges(of: "/wiki/").first { path = path[wiki.upperBound...] }
                            target = Self.title(fromHref: String(path))
                        }
                    }
                    return target == nil
                }
                return target.map { .redirect(WikiTitle.normalize($0)) }
            }
            guard isDiv || node.named("table") else { return nil }
            if let id = node.attribute("id"), cString(id, equals: "disambigbox") { return .disambiguation }
            return node.hasClass("dmbox-disambig") ? .disambiguation : nil
        }

        /// A redirect's target from its `href` (`./Great_tit` → `Great tit`).
        static func title(fromHref href: String) -> String {
            var text = Substring(href)
            if text.hasPrefix("./") { text = text.dropFirst(2) }
            if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
            return WikiTitle.normalize(String(text))
        }

        mutating func paragraph(_ node: xmlNodePtr) {
            guard skipLevel == nil else { return }
            var text = Self.inlineText(of: node, lookups: lookups)
            text.normalize()
            guard !text.isEmpty else { return }
            let afterCut = previousWasCut
            previousWasCut = false
            if text.ends(with: ":") || text.ends(with: ":-") || text.ends(with: "：") {
                // Its last sentence introduces a list, which is dropped (and may go on after
                // it): that sentence goes, the whole sentences before it stay.
                previousWasCut = Self.isFollowedByRemovedBlock(node)
                // Only what is surely whole: past the stub length and no bracket left open, so an
                // abbreviation taken for a sentence end ("Birds breeding on St.", "(Gill et al.")
                // is not kept as a sentence.
                if !text.keepWholeSentences() || text.characterCount <= rules.stubLength || SentenceEnds.leavesBracketOpen(Array(text.plain.utf8)) { return }
            }
            // A quote's attribution goes with the quote (quotes are dropped).
            if Self.followsQuote(node) && (text.startsWithDash || Self.opensWithCite(node)) { return }
            // The rest of a sentence cut by a removed element: from its next sentence on.
            if afterCut && text.startsLowercase && !text.dropFirstSentence() { return }
            let complete = text.endsSentence
            if text.characterCount <= rules.stubLength && !complete { return }
            // Cut by a removed element (a formula, a list, a table): whole sentences only. Thai
            // and Lao mark no sentence end: a paragraph of theirs is whole before a figure or a
            // table, and before a list the introduction it is (`… ได้แก่`, namely).
            if !complete && (text.endsAtRemoval || Self.isFollowedByRemovedBlock(node))
                && (Self.isFollowedByList(node) || !SentenceEnds.endsInUnmarkedScript(text.bytes))
            {
                previousWasCut = true
                // No bracket left open, as for a list's introduction above (an abbreviation taken
                // for a sentence end left `<b>…</b> (лат.` as the paragraph).
                if !text.keepWholeSentences() || SentenceEnds.leavesBracketOpen(Array(text.plain.utf8)) { return }
            }
            if let heading = pendingHeading {
                markup.boundary()
                markup.lineBreak()
                markup.begin(.bold)
                heading.write(into: &markup, uppercasedIn: rules.language)
                markup.end()
                markup.lineBreak()
                pendingHeading = nil
                sectionsShown += 1
            }
            markup.beginParagraph()
            text.write(into: &markup)
            markup.endParagraph()
            if inLead { lead.append(text.plain) }
        }

        mutating func heading(_ node: xmlNodePtr, level: Int) {
            defer { if node == tailHeading { skipsAfterTail = skipLevel == 2 } }
            inLead = false
            previousWasCut = false
            if let skipped = skipLevel {
                if level > skipped { return }
                skipLevel = nil
            }
            let text = Self.headingText(of: node, lookups: lookups)
            if Self.isSkipped(text, rules: rules) {
                skipLevel = level
                pendingHeading = nil
                return
            }
            // A heading directly after another: the earlier one's section is empty.
            pendingHeading = text.displayWidth < rules.minimumHeadingLength ? nil : text
        }

        mutating func finish() {
            pendingHeading = nil
            if case .redirect = kind { markup = SafeMarkup() }
            if case .disambiguation = kind { markup = SafeMarkup() }
        }

        /// A heading's text, as the rules read it.
        static func headingText(of node: xmlNodePtr, lookups: Lookups) -> ArticleText {
            var text = inlineText(of: node, lookups: lookups)
            text.normalize()
            return text
        }

        static func isSkipped(_ text: ArticleText, rules: BlurbRules) -> Bool {
            rules.skippedSections.contains(text.plain.lowercased())
        }

        /// Whether the rules read heading `node` as a skipped section (`TreeTail` asks of the
        /// headings it does not leave in the tree).
        static func isSkippedSection(_ node: xmlNodePtr, rules: BlurbRules, lookups: Lookups) -> Bool {
            isSkipped(headingText(of: node, lookups: lookups), rules: rules)
        }

        /// The formatted text inside a paragraph or heading, without its references, edit links,
        /// hidden spans, styles, math and figures.
        static func inlineText(of element: xmlNodePtr, lookups: Lookups) -> ArticleText {
            var text = ArticleText()
            walkChildren(of: element, visit: { node in
                if node.isText {
                    text.append(node.textBytes)
                    return false
                }
                guard node.isElement else { return false }
                let kind = lookups.kind(of: node)
                switch kind {
                case .bold:
                    text.begin(.bold)
                    if node.pointee.children == nil { text.end(.bold) }
                    return true
                case .italic:
                    text.begin(.italic)
                    if node.pointee.children == nil { text.end(.italic) }
                    return true
                case .lineBreak:
                    text.space()
                    return false
                case .rubyText:
                    // A reading over its base (`<ruby>四十雀<rt>しじゅうから</rt></ruby>`): in
                    // brackets after it, as a browser without ruby shows it with `<rp>`.
                    guard node.pointee.children != nil, !isDropped(node, kind: kind, lookups: lookups) else { return false }
                    if let (open, _) = Self.rubyBrackets(node) { text.append(open) }
                    return true
                case .superscript, .lowered:
                    if isDropped(node, kind: kind, lookups: lookups) {
                        // A reference or a marker: tidied around as a citation leftover is, so
                        // that no space is left before the punctuation after it (`India [1].`).
                        if kind == .superscript && node.pointee.children != nil { text.markCitation() }
                        return false
                    }
                    var inner = ArticleText()
                    walkChildren(of: node, visit: { child in
                        if child.isText { inner.append(child.textBytes) }
                        return child.isElement && !isDropped(child, kind: lookups.kind(of: child), lookups: lookups)
                    })
                    let raw = inner.runs.flatMap(\.bytes)
                    text.append(Self.scripted(String(decoding: raw, as: UTF8.self), superscript: kind == .superscript))
                    return false
                case .dropped, .other:
                    if kind == .other, node.pointee.children == nil, let variant = LanguageVariant.text(of: node) {
                        variant.withUnsafeBufferPointer { text.append($0) }
                        return false
                    }
                    guard isDropped(node, kind: kind, lookups: lookups) else { return true }
                    // An element with content is gone: tidy what it leaves (`FlatText.tidyRemovals`).
                    if node.pointee.children != nil { text.markRemoval() }
                    return false
                }
            }, leave: { node in
                switch lookups.kind(of: node) {
                case .bold: text.end(.bold)
                case .italic: text.end(.italic)
                case .rubyText: if let (_, close) = Self.rubyBrackets(node) { text.append(close) }
                default: break
                }
            })
            return text
        }

        /// The brackets to put around reading `node`: none when its `ruby` gives its own (`<rp>`),
        /// full-width ones around a reading in a CJK script (kana, bopomofo), else ASCII ones
        /// (pinyin on an English page).
        static func rubyBrackets(_ node: xmlNodePtr) -> (String, String)? {
            var sibling = node.pointee.parent?.pointee.children
            while let current = sibling {
                if current.isElement && current.named("rp") { return nil }
                sibling = current.pointee.next
            }
            var first: UInt8 = 0
            walkChildren(of: node, visit: { child in
                if first == 0, child.isText, let byte = child.textBytes.first { first = byte }
                return first == 0
            })
            // U+3000 and above (kana, bopomofo, CJK ideographs) start with 0xE3 or more in UTF-8.
            return first >= 0xE3 ? ("（", "）") : ("(", ")")
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
            "h1", "blockquote", "pre", "header",
        ]

        static let droppedClasses: Set<String> = [
            "hatnote", "navbox", "navbox-styles", "shortdescription", "noprint", "mw-editsection", "reference", "mw-ref",
            "reflist", "references", "mw-references-wrap", "mw-references", "infobox", "sidebar", "metadata", "thumb",
            "gallery", "toc", "mw-empty-elt", "mwe-math-element", "mw-cite-backlink", "noexcerpt", "catlinks",
            "printfooter", "mw-authority-control", "asbox", "dmbox", "mw-jump-link", "mw-indicators", "geo-nondefault",
            "geo-multi-punct", "geo-default", "geo-dms", "geo-dec", "IPA", "API", "infobox_v2", "infobox_v3", "rt-commentedText", "portalbox", "side-box", "mw-kartographer-maplink",
            "Inline-Template", "Template-Fact", "need_ref_tag", "haudio", "quotebox", "templatequote",
            "templatequotecite", "pullquote", "pcs-header", "pcs-edit-section-title-description",
        ]

        /// The mobile-html header's short description (`p#pcs-edit-section-title-description`).
        static func isTitleDescription(_ node: xmlNodePtr) -> Bool {
            guard let id = node.attribute("id") else { return false }
            return cString(id, equals: "pcs-edit-section-title-description")
        }

        /// Whether the element right before `node` is a quote (a dropped `blockquote` or quote box).
        static func followsQuote(_ node: xmlNodePtr) -> Bool {
            guard let previous = node.previousVisibleElement else { return false }
            return previous.named("blockquote") || previous.hasClass("quotebox") || previous.hasClass("templatequote")
        }

        /// Whether the first text inside `node` (spaces passed over) opens with a bracket, `[`
        /// or a full-width `［`, as a maintenance marker's does.
        static func opensWithBracket(_ node: xmlNodePtr) -> Bool {
            var found: Bool? = nil
            walkChildren(of: node, visit: { child in
                guard found == nil else { return false }
                if child.isText {
                    // Past spaces, no-break spaces (U+00A0) and word joiners (U+2060).
                    let bytes = child.textBytes
                    var start = 0
                    while start < bytes.count {
                        if bytes[start] == 0x20 || bytes[start] == 0x0A || bytes[start] == 0x09 {
                            start += 1
                        } else if bytes[start] == 0xC2, start + 1 < bytes.count, bytes[start + 1] == 0xA0 {
                            start += 2
                        } else if bytes[start] == 0xE2, start + 2 < bytes.count, bytes[start + 1] == 0x81, bytes[start + 2] == 0xA0 {
                            start += 3
                        } else {
                            break
                        }
                    }
                    guard start < bytes.count else { return false }
                    found = bytes[start] == UInt8(ascii: "[")
                        || (bytes[start] == 0xEF && start + 2 < bytes.count && bytes[start + 1] == 0xBC && bytes[start + 2] == 0xBB)
                    return false
                }
                return child.isElement
            })
            return found ?? false
        }

        /// Whether the paragraph's first content is a `cite` element (an attribution line).
        static func opensWithCite(_ node: xmlNodePtr) -> Bool {
            var child = node.pointee.children
            while let current = child {
                if current.isElement { return current.named("cite") }
                if current.isText, current.textBytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 }) { return false }
                child = current.pointee.next
            }
            return false
        }

        /// Whether a block the blurb drops comes right after the paragraph (a list, a table, a
        /// display formula, a figure, a quote), where its sentence may go on.
        static func isFollowedByRemovedBlock(_ node: xmlNodePtr) -> Bool {
            guard let next = node.nextVisibleElement else { return false }
            if next.named("div") { return !next.hasClass("mw-heading") && !next.hasClass("pcs-edit-section-header") }
            return next.named("ul") || next.named("ol") || next.named("dl") || next.named("table") || next.named("figure")
                || next.named("blockquote") || next.named("pre") || next.named("center") || next.named("math")
        }

        /// Whether a list comes right after the paragraph (which then introduces it).
        static func isFollowedByList(_ node: xmlNodePtr) -> Bool {
            guard let next = node.nextVisibleElement else { return false }
            return next.named("ul") || next.named("ol") || next.named("dl")
        }

        static func isDropped(_ node: xmlNodePtr, kind: ElementKind, lookups: Lookups) -> Bool {
            if kind == .dropped { return true }
            // One pass over the attributes for the five that matter.
            var classes: UnsafePointer<UInt8>? = nil
            var role: UnsafePointer<UInt8>? = nil
            var typeOf: UnsafePointer<UInt8>? = nil
            var id: UnsafePointer<UInt8>? = nil
            var style: UnsafePointer<UInt8>? = nil
            var property = node.pointee.properties
            while let current = property {
                property = current.pointee.next
                guard let attributeName = current.pointee.name, let text = current.pointee.children,
                      text.pointee.type == XML_TEXT_NODE, let value = text.pointee.content
                else { continue }
                switch attributeName[0] {
                case UInt8(ascii: "c") where cString(attributeName, equals: "class"): classes = UnsafePointer(value)
                case UInt8(ascii: "r") where cString(attributeName, equals: "role"): role = UnsafePointer(value)
                case UInt8(ascii: "t") where cString(attributeName, equals: "typeof"): typeOf = UnsafePointer(value)
                case UInt8(ascii: "i") where cString(attributeName, equals: "id"): id = UnsafePointer(value)
                case UInt8(ascii: "s") where cString(attributeName, equals: "style"): style = UnsafePointer(value)
                default: break
                }
            }
            if let classes, lookups.classesDrop(classes) { return true }
            if let role, cString(role, equals: "navigation") || cString(role, equals: "note") { return true }
            if let typeOf, cString(typeOf, contains: "mw:Extension/ref") || cString(typeOf, contains: "mw:Extension/math")
                || cString(typeOf, contains: "mw:Extension/gallery")
            {
                return true
            }
            // A superscript that a template makes is an inline maintenance marker when it reads
            // as one, bracketed (`[dubious]`, `[réf. nécessaire]`: {{Fix}} and its kin in every
            // language; those with their classes, `noprint`, `Inline-Template`, went above).
            // Not the letters of an ordinal or a century ({{e}}, {{er}}, {{sup}}: `2e`,
            // `XXe siècle`), which the article reads with.
            if kind == .superscript, let typeOf, cString(typeOf, contains: "mw:Transclusion"), Self.opensWithBracket(node) { return true }
            if let id {
                if cString(id, equals: "coordinates") || cString(id, equals: "toc")
                    || cString(id, equals: "pcs-edit-section-title-description")
                {
                    return true
                }
                if kind == .superscript && cString(id, contains: "cite_ref") { return true }
            }
            // Hidden elements go, except sections and their content: the apps' mobile-html
            // collapses them with `display: none`, and they are the article.
            if let style, cString(style, contains: "display:none") || cString(style, contains: "display: none") {
                if node.named("section") { return false }
                if let id, strncmp(UnsafeRawPointer(id).assumingMemoryBound(to: CChar.self), "pcs-section-content-", 20) == 0 { return false }
                return true
            }
            return false
        }

        /// Whether a `class` value holds a dropped class (or one ending in "mbox").
        static func classesDrop(_ classes: UnsafePointer<UInt8>) -> Bool {
            anyWord(in: classes) { bytes in
                let word = String(decoding: bytes, as: UTF8.self)
                return droppedClasses.contains(word) || word.hasSuffix("mbox")
            }
        }
    }

    /// What an element is to the inline walk.
    enum ElementKind {
        case bold, italic, lineBreak, superscript, lowered, rubyText, dropped, other

        init(name: String) {
            switch name {
            case "b", "strong": self = .bold
            case "i", "em", "cite", "var": self = .italic
            case "br": self = .lineBreak
            case "sup": self = .superscript
            case "sub": self = .lowered
            case "rt": self = .rubyText
            default: self = State.droppedNames.contains(name) ? .dropped : .other
            }
        }
    }

    /// Per-document caches: the kind of each distinct element name and the verdict on each
    /// distinct `class` value (`BytesKeyedCache`). Not by the name's pointer: libxml2's HTML tree
    /// builder gives every element its own copy of its name, and a `TreeStream` frees elements
    /// while the document is read, so an address can come back holding another name.
    final class Lookups {
        private var kinds = BytesKeyedCache<ElementKind>()
        private var classVerdicts = BytesKeyedCache<Bool>()

        func kind(of node: xmlNodePtr) -> ElementKind {
            guard let name = node.pointee.name else { return .dropped }
            return kinds.value(for: name) { ElementKind(name: String(cString: name)) }
        }

        func classesDrop(_ classes: UnsafePointer<UInt8>) -> Bool {
            classVerdicts.value(for: classes) { State.classesDrop(classes) }
        }
    }

    /// Answers cached by a NUL-terminated string's bytes: found by their 64-bit FNV-1a hash, each
    /// entry checked against the bytes it was made for (names and classes are the page's own: one
    /// written to collide with `script`'s hash must not borrow its answer; it is computed anew).
    struct BytesKeyedCache<Value> {
        private var entries: [UInt64: (text: [UInt8], value: Value)] = [:]

        mutating func value(for text: UnsafePointer<UInt8>, _ make: () -> Value) -> Value {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            var count = 0
            while text[count] != 0 {
                hash = (hash ^ UInt64(text[count])) &* 0x0000_0100_0000_01B3
                count += 1
            }
            if let known = entries[hash] {
                if known.text.count == count && (count == 0 || known.text.withUnsafeBytes { memcmp($0.baseAddress!, text, count) == 0 }) {
                    return known.value
                }
                return make()
            }
            let value = make()
            entries[hash] = (Array(UnsafeBufferPointer(start: text, count: count)), value)
            return value
        }
    }
}
