/// The frame every report page shares: one self-contained HTML document (inline CSS and SVG,
/// no script, no external resource), readable offline.
struct ReportPage {
    var html = HTMLText()

    init(title: String, subtitle: String) {
        html.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        html.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n")
        html.raw("<title>")
        html.text(title)
        html.raw("</title>\n<style>\n\(Self.css)</style>\n</head>\n<body>\n<header>\n")
        html.element("h1", title)
        html.element("p", subtitle, class: "subtitle")
        html.raw("</header>\n<main>\n")
    }

    mutating func section(_ id: String, _ title: String, _ body: (inout ReportPage) -> Void) {
        html.raw("<section id=\"\(id)\">\n")
        html.element("h2", title)
        html.raw("\n")
        body(&self)
        html.raw("</section>\n")
    }

    mutating func paragraph(_ text: String, class name: String? = nil) {
        html.element("p", text, class: name)
        html.raw("\n")
    }

    /// A chart's SVG (built by `SVGChart`) in a figure with an escaped caption.
    mutating func figure(_ svg: String, caption: String? = nil) {
        html.raw("<figure>")
        html.raw(svg)
        if let caption {
            html.raw("<figcaption>")
            html.text(caption)
            html.raw("</figcaption>")
        }
        html.raw("</figure>\n")
    }

    /// A table; columns after the first are right-aligned when `numeric` says so. Every other
    /// column's cells may break anywhere (a file's path, a name from the data, a 300-letter
    /// licence code), but no narrower than a short word (`td` keeps a minimum width), so that
    /// neither a long name pushes the table off its card nor the layout squeezes a short word
    /// into pieces ("rejec/ted"). On a phone a table wider than its card scrolls inside it; the
    /// page never scrolls sideways.
    mutating func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = []) {
        func kind(_ index: Int) -> String { numeric.contains(index) ? "num" : "wrap" }
        html.raw("<div class=\"table\"><table>\n<thead><tr>")
        for (index, name) in header.enumerated() { html.element("th", name, class: numeric.contains(index) ? "num" : nil) }
        html.raw("</tr></thead>\n<tbody>\n")
        for row in rows {
            html.raw("<tr>")
            for (index, cell) in row.enumerated() { html.element("td", cell, class: kind(index)) }
            html.raw("</tr>\n")
        }
        html.raw("</tbody>\n</table></div>\n")
    }

    /// Key figures as large numbers in a row of tiles.
    mutating func tiles(_ figures: [(label: String, value: String)]) {
        html.raw("<div class=\"tiles\">")
        for figure in figures {
            html.raw("<div class=\"tile\"><span class=\"figure\">")
            html.text(figure.value)
            html.raw("</span><span class=\"label\">")
            html.text(figure.label)
            html.raw("</span></div>")
        }
        html.raw("</div>\n")
    }

    mutating func list(_ items: [String]) {
        html.raw("<ul>")
        for item in items { html.element("li", item) }
        html.raw("</ul>\n")
    }

    func finished(footer: String) -> [UInt8] {
        var html = self.html
        html.raw("</main>\n<footer>")
        html.text(footer)
        html.raw("</footer>\n</body>\n</html>\n")
        return html.bytes
    }

    static let css = """
        :root { --ink: #1d2a24; --muted: #5d6b64; --line: #d9e0dc; --card: #ffffff; --page: #f3f6f4; --accent: #2f6f4f; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--page); color: var(--ink);
               font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
        header { background: var(--accent); color: #fff; padding: 22px 32px 18px; }
        header h1 { margin: 0 0 4px; font-size: 24px; font-weight: 650; }
        header .subtitle { margin: 0; opacity: 0.9; font-size: 14px; }
        main { max-width: 820px; margin: 0 auto; padding: 8px 16px 24px; }
        section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin: 16px 0; padding: 14px 20px 16px; }
        h2 { font-size: 18px; margin: 0 0 10px; color: var(--accent); }
        h3 { font-size: 15px; margin: 14px 0 6px; }
        p { margin: 6px 0; overflow-wrap: anywhere; }
        .note { color: var(--muted); font-size: 13px; }
        div.table { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; margin: 8px 0 4px; font-size: 13.5px; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: break-word; }
        td.wrap { overflow-wrap: anywhere; min-width: 8.5em; }
        th { color: var(--muted); font-weight: 600; overflow-wrap: normal; }
        .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        th.num { white-space: normal; }
        figure { margin: 8px 0; overflow-x: auto; }
        figcaption { color: var(--muted); font-size: 12.5px; }
        svg.chart { display: block; max-width: 100%; min-width: 540px; height: auto; font-size: 12px; fill: var(--ink); }
        svg.chart text.value, svg.chart text.legend { fill: var(--muted); font-size: 11.5px; }
        svg.chart text.inside { fill: #fff; font-size: 11px; }
        svg.chart .axis { stroke: var(--line); stroke-width: 1; }
        .tiles { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 10px; }
        .tile { flex: 1 1 120px; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
        .tile .figure { display: block; font-size: 22px; font-weight: 650; color: var(--accent); }
        .tile .label { color: var(--muted); font-size: 12.5px; }
        ul { margin: 4px 0; padding-left: 20px; }
        li { overflow-wrap: anywhere; }
        footer { max-width: 820px; margin: 0 auto; padding: 0 16px 24px; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
        @media (max-width: 480px) { header { padding: 16px 16px 14px; } main { padding: 4px 8px 16px; } section { padding: 12px 12px 14px; } }

        """
}
