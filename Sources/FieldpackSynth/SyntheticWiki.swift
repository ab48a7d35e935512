import FieldpackKit
#if canImport(Glibc)
import Glibc
#endif

/// Writes a deterministic synthetic Wikimedia Enterprise dump for the wiki benchmark: NDJSON
/// lines whose `article_body.html` is Parsoid-like HTML of realistic shape and size (median about
/// 50 KB, a long tail to about 1 MB): a lead with a short description, hatnote and infobox,
/// content sections with linked, referenced prose, figures and lists, then the boilerplate
/// (see also, a long reference list, external links, a navbox). Also writes a pipeline that
/// wants `wantedShare` of the articles (as destinations), so the rest are lines to skip.
public struct SyntheticWiki {
    public struct Options: Sendable {
        public var articles: Int
        public var seed: UInt64
        public var output: String
        public var wantedShare = 0.8
        /// A long tail of large articles (`SyntheticDamage.largeArticleBytes`): 1 in 100 of 1.2 to 6 MB.
        public var largeTail = false

        public init(articles: Int, seed: UInt64, output: String) {
            self.articles = articles
            self.seed = seed
            self.output = output
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// Writes `DIR/articles.ndjson` and `DIR/pipeline.json`; returns the dump's bytes and the
    /// bytes of article HTML in it.
    public func run() throws -> (bytes: Int, htmlBytes: Int) {
        try FileSystem.makeDirectories(options.output)
        let dump = try AtomicOutput(path: "\(options.output)/articles.ndjson")
        var writer = JSONWriter(capacity: 4 << 20)
        var htmlBytes = 0
        var bytes = 0
        var wanted: [String] = []
        for index in 0..<options.articles {
            var random = SplitMix64(seed: options.seed, stream: 0x57494B49, index: UInt64(index))
            let title = "Synthetic species \(index + 1)"
            let large = options.largeTail ? SyntheticDamage.largeArticleBytes(seed: options.seed, index: index) : nil
            let html = Self.article(title: title, random: &random, size: large)
            htmlBytes += html.utf8.count
            if Double(random.below(1000)) < options.wantedShare * 1000 { wanted.append(title) }
            writer.beginObject()
            writer.key("name"); writer.string(title)
            writer.key("identifier"); writer.int(Int64(1_000_000 + index))
            writer.key("url"); writer.string("https://en.wikipedia.org/wiki/" + title.replacingOccurrences(of: " ", with: "_"))
            writer.key("date_modified"); writer.string("2026-10-0\(1 + index % 9)T12:00:00Z")
            writer.key("version"); writer.beginObject(); writer.key("identifier"); writer.int(Int64(1_200_000_000 + index)); writer.endObject()
            writer.key("in_language"); writer.beginObject(); writer.key("identifier"); writer.string("en"); writer.endObject()
            writer.key("main_entity"); writer.beginObject(); writer.key("identifier"); writer.string("Q\(5_000_000 + index)"); writer.endObject()
            writer.key("license"); writer.beginArray(); writer.beginObject(); writer.key("identifier"); writer.string("CC-BY-SA-4.0")
            writer.endObject(); writer.endArray()
            writer.key("article_body"); writer.beginObject()
            writer.key("html"); writer.string(html)
            writer.key("wikitext"); writer.string("'''\(title)''' is a species.")
            writer.endObject()
            writer.endObject()
            writer.newline()
            if writer.count > 2 << 20 {
                bytes += writer.count
                try dump.write(writer.bytes)
                writer.reset()
            }
        }
        bytes += writer.count
        try dump.write(writer.bytes)
        try dump.commit(durable: false)
        var pipeline = JSONWriter()
        pipeline.beginObject()
        pipeline.key("name"); pipeline.string("wikibench")
        pipeline.key("inat"); pipeline.beginArray(); pipeline.string("\(options.output)/no-inat"); pipeline.endArray()
        pipeline.key("wikipedia"); pipeline.beginArray(); pipeline.string("\(options.output)/articles.ndjson"); pipeline.endArray()
        pipeline.key("destinations"); pipeline.beginArray()
        for (index, title) in wanted.enumerated() {
            pipeline.beginObject()
            pipeline.key("id"); pipeline.string("d\(index + 1)")
            pipeline.key("name"); pipeline.string(title)
            pipeline.key("wikipedia"); pipeline.string(title)
            pipeline.endObject()
        }
        pipeline.endArray()
        pipeline.endObject()
        try AtomicOutput.write(String(decoding: pipeline.bytes, as: UTF8.self), to: "\(options.output)/pipeline.json")
        return (bytes, htmlBytes)
    }

    static let words = [
        "the", "species", "is", "found", "in", "woodland", "and", "open", "heath", "across", "Europe", "where", "it", "feeds",
        "on", "insects", "seeds", "berries", "during", "winter", "males", "sing", "from", "high", "perches", "females",
        "build", "nests", "of", "moss", "lined", "with", "hair", "breeding", "season", "begins", "early", "spring", "clutch",
        "usually", "holds", "eight", "eggs", "which", "hatch", "after", "two", "weeks", "population", "has", "declined",
        "locally", "but", "remains", "widespread", "stable", "overall", "according", "to", "recent", "surveys", "by",
        "naturalists", "régions", "Müller", "observed", "that", "“bright”", "plumage", "varies", "—", "with", "age",
    ]

    static func capitalized(_ word: String) -> String { word.prefix(1).uppercased() + word.dropFirst() }

    static func sentence(_ random: inout SplitMix64, links: Bool) -> String {
        let count = 8 + random.below(18)
        var text = ""
        for index in 0..<count {
            var word = words[random.below(words.count)]
            if index == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
            if links && random.below(9) == 0 {
                word = "<a rel=\"mw:WikiLink\" href=\"./\(word)\" title=\"\(word)\">\(word)</a>"
            } else if random.below(40) == 0 {
                word = "<i>\(word)</i>"
            }
            text += (index == 0 ? "" : " ") + word
        }
        text += "."
        if random.below(3) == 0 {
            let note = 1 + random.below(120)
            text += "<sup about=\"#mwt\(note)\" class=\"mw-ref reference\" id=\"cite_ref-\(note)\" rel=\"dc:references\" "
                + "typeof=\"mw:Extension/ref\" data-mw='{\"name\":\"ref\",\"attrs\":{}}'><a href=\"./X#cite_note-\(note)\">"
                + "<span class=\"mw-reflink-text\"><span class=\"cite-bracket\">[</span>\(note)<span class=\"cite-bracket\">]</span></span></a></sup>"
        }
        return text
    }

    static func paragraph(_ random: inout SplitMix64, id: inout Int) -> String {
        id += 1
        var text = "<p id=\"mw\(id)\">"
        for _ in 0..<(2 + random.below(5)) { text += sentence(&random, links: true) + " " }
        return text + "</p>\n"
    }

    /// One article's HTML; its size follows a log-normal law around 50 KB, unless `size` is given.
    static func article(title: String, random: inout SplitMix64, size: Int? = nil) -> String {
        // Box–Muller on two uniforms: a normal deviate, for a log-normal size.
        let u1 = max(Double(random.next() >> 11) / Double(1 << 53), 1e-12)
        let u2 = Double(random.next() >> 11) / Double(1 << 53)
        let normal = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
        let target = size ?? Int(min(max(exp(log(50_000.0) + 0.85 * normal), 4_000), 1_100_000))
        var id = 0
        var html = """
            <!DOCTYPE html>
            <html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/"><head prefix="mwr: https://en.wikipedia.org/wiki/Special:Redirect/">\
            <meta charset="utf-8"/><meta property="mw:pageNamespace" content="0"/><meta property="mw:htmlVersion" content="2.8.0"/>\
            <base href="//en.wikipedia.org/wiki/"/><title>\(title)</title>\
            <link rel="stylesheet" href="/w/load.php?lang=en&amp;modules=mediawiki.skinning.content.parsoid"/></head>
            <body lang="en" class="mw-content-ltr sitedir-ltr ltr mw-body-content parsoid-body mediawiki mw-parser-output" dir="ltr">
            <section data-mw-section-id="0" id="mwAQ"><div class="shortdescription nomobile noexcerpt noprint searchaux" style="display:none">Species of bird</div>
            <div role="note" class="hatnote navigation-not-searchable">For other uses, see <a rel="mw:WikiLink" href="./X_(disambiguation)">X (disambiguation)</a>.</div>
            <style data-mw-deduplicate="TemplateStyles:r1" typeof="mw:Extension/templatestyles">.mw-parser-output .infobox{border:1px solid #a2a9b1}</style>
            <table class="infobox biota" about="#mwt2" typeof="mw:Transclusion"><tbody>
            """
        for row in 0..<(10 + random.below(12)) {
            html += "<tr><th>Rank \(row)</th><td><a rel=\"mw:WikiLink\" href=\"./Taxon_\(row)\">Taxon \(row)</a></td></tr>"
        }
        html += "</tbody></table>\n<p id=\"mwAg\"><b>\(title)</b> is a species of bird. " + sentence(&random, links: true) + "</p>\n"
        html += paragraph(&random, id: &id) + paragraph(&random, id: &id) + "</section>\n"
        var section = 1
        let contentShare = target * 6 / 10
        while html.utf8.count < contentShare {
            html += "<section data-mw-section-id=\"\(section)\"><h2 id=\"Section_\(section)\">\(Self.capitalized(words[random.below(words.count)])) and \(words[random.below(words.count)])</h2>\n"
            if random.below(3) == 0 {
                html += "<figure typeof=\"mw:File/Thumb\"><a href=\"./File:X.jpg\" class=\"mw-file-description\"><img src=\"//upload.wikimedia.org/x.jpg\" class=\"mw-file-element\" width=\"220\" height=\"165\"/></a><figcaption>" + sentence(&random, links: true) + "</figcaption></figure>\n"
            }
            for _ in 0..<(2 + random.below(5)) { html += paragraph(&random, id: &id) }
            if random.below(4) == 0 {
                html += "<p id=\"mw\(id + 1)\">The forms are:</p><ul>"
                for _ in 0..<(3 + random.below(6)) { html += "<li>" + sentence(&random, links: true) + "</li>" }
                html += "</ul>\n"
            }
            if random.below(3) == 0 {
                html += "<section data-mw-section-id=\"\(section + 1000)\"><h3 id=\"Sub_\(section)\">Details of the \(words[random.below(words.count)])</h3>\n"
                html += paragraph(&random, id: &id) + "</section>\n"
            }
            html += "</section>\n"
            section += 1
        }
        html += "<section data-mw-section-id=\"\(section)\"><h2 id=\"See_also\">See also</h2><ul>"
        for index in 0..<6 { html += "<li><a rel=\"mw:WikiLink\" href=\"./Related_\(index)\">Related \(index)</a></li>" }
        html += "</ul></section>\n<section data-mw-section-id=\"\(section + 1)\"><h2 id=\"References\">References</h2>"
            + "<div class=\"reflist\"><div class=\"mw-references-wrap mw-references-columns\" typeof=\"mw:Extension/references\"><ol class=\"mw-references references\">"
        var note = 1
        while html.utf8.count < target * 95 / 100 {
            html += "<li about=\"#cite_note-\(note)\" id=\"cite_note-\(note)\"><span class=\"mw-cite-backlink\"><a href=\"./X#cite_ref-\(note)\" rel=\"mw:referencedBy\"><span class=\"mw-linkback-text\">↑ </span></a></span> "
                + "<span id=\"mw-reference-text-cite_note-\(note)\" class=\"mw-reference-text reference-text\"><cite class=\"citation journal cs1\">Author, A. (20\(10 + note % 15)). "
                + "\"" + sentence(&random, links: false) + "\" <i>Journal of Field Ornithology</i>. <b>\(note)</b>: 1–20. "
                + "<a rel=\"mw:ExtLink nofollow\" href=\"https://doi.org/10.1000/\(note)\" class=\"external text\">doi:10.1000/\(note)</a></cite></span></li>\n"
            note += 1
        }
        html += "</ol></div></div></section>\n<section data-mw-section-id=\"\(section + 2)\"><h2 id=\"External_links\">External links</h2><ul><li><a rel=\"mw:ExtLink\" href=\"https://example.org\">Example</a></li></ul>"
        html += "<div role=\"navigation\" class=\"navbox\" aria-labelledby=\"Birds\"><table class=\"nowraplinks\"><tbody>"
        while html.utf8.count < target {
            html += "<tr><td><a rel=\"mw:WikiLink\" href=\"./Other_\(note)\">Other species \(note)</a> · </td></tr>"
            note += 1
        }
        html += "</tbody></table></div><link rel=\"mw:PageProp/Category\" href=\"./Category:Birds\"/></section></body></html>"
        return html
    }
}
