/// The report's charts, as inline SVG (no script, no external file): horizontal bars, stacked
/// bars with a legend, and histograms. Labels are escaped data; coordinates are integers, so the
/// same figures give the same bytes.
enum SVGChart {
    /// Bar colours, each dark enough for the white value text drawn inside a bar (11 px) to
    /// meet WCAG AA's 4.5:1 (the orange and the teal were 2.8:1 and 3.3:1).
    static let palette = ["#2f6f4f", "#9a5c0e", "#3f6fb5", "#b5473f", "#7a5aa6", "#2e6f6f", "#7a6c24", "#6a6a6a"]
    static let width = 720
    /// The widest a value text's character is drawn, in px (its font is 12 px: digits and most
    /// letters are 7 px or less).
    static let valueCharacterWidth = 7

    /// One bar per row, its value printed after it.
    static func bars(_ title: String, _ rows: [(label: String, value: Int64, text: String)], color: String = palette[0]) -> String {
        let labelWidth = 230, rowHeight = 24, top = 8
        // Room after the longest bar for the longest value text (about 7 px a character at the
        // chart's size): "1 234 576 obs · 12 351 taxa" ran past the chart's edge.
        let longestText = rows.map { $0.text.count }.max() ?? 0
        let barSpace = max(120, width - labelWidth - max(110, 6 + longestText * Self.valueCharacterWidth))
        let maximum = max(1, rows.map(\.value).max() ?? 1)
        let height = top * 2 + rowHeight * max(1, rows.count)
        var svg = open(title, height: height, values: rows.map { "\($0.label) \($0.text)" })
        for (index, row) in rows.enumerated() {
            let y = top + index * rowHeight
            let length = row.value <= 0 ? 0 : max(2, Int(Int64(barSpace) * row.value / maximum))
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 16)\" text-anchor=\"end\"\(label(row.label, 34, room: labelWidth - 10))</text>"
            svg += "<rect x=\"\(labelWidth)\" y=\"\(y + 4)\" width=\"\(length)\" height=\"\(rowHeight - 8)\" rx=\"2\" fill=\"\(color)\"/>"
            svg += "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + 16)\" class=\"value\">\(HTMLText.escaped(row.text))</text>"
        }
        if rows.isEmpty { svg += "<text x=\"\(labelWidth)\" y=\"\(top + 16)\" class=\"value\">none</text>" }
        return svg + "</svg>"
    }

    /// One bar per row split into segments (each row's shares of its total), with a legend.
    static func stacked(
        _ title: String, segments: [String], colors: [String]? = nil, _ rows: [(label: String, values: [Int64])]
    ) -> String {
        let color = { (part: Int) in colors.map { $0[part % $0.count] } ?? Self.color(part) }
        let labelWidth = 150, rowHeight = 28, top = 8, legendHeight = 26
        let barSpace = width - labelWidth - 70
        let height = top * 2 + rowHeight * max(1, rows.count) + legendHeight
        let values = rows.map { row in
            let parts = zip(segments, row.values).filter { $0.1 > 0 }.map { "\($0.0) \($0.1)" }
            return "\(row.label): " + (parts.isEmpty ? "none" : parts.joined(separator: ", "))
        }
        var svg = open(title, height: height, values: values)
        // One scale for every row, as `bars` draws: a row of 1 drew as long as a row of 38.
        let largest = rows.map { $0.values.reduce(0, +) }.max() ?? 0
        for (index, row) in rows.enumerated() {
            let y = top + index * rowHeight
            let total = row.values.reduce(0, +)
            svg += "<text x=\"\(labelWidth - 8)\" y=\"\(y + 18)\" text-anchor=\"end\"\(label(row.label, 22, room: labelWidth - 10))</text>"
            var x = labelWidth
            var done: Int64 = 0
            for (part, value) in row.values.enumerated() where value > 0 {
                // Cumulative rounding: the segments end exactly at the bar's end.
                done += value
                let end = labelWidth + Int(Int64(barSpace) * done / max(1, largest))
                svg += "<rect x=\"\(x)\" y=\"\(y + 4)\" width=\"\(max(1, end - x))\" height=\"\(rowHeight - 8)\" fill=\"\(color(part))\">"
                svg += "<title>\(HTMLText.escaped(segments[part])): \(value)</title></rect>"
                // Drawn inside only when it fits there (a 30-px segment's "60 000" ran onto the
                // white page, white on white).
                let text = ReportNumber.count(value)
                if end - x >= 8 + text.unicodeScalars.count * Self.valueCharacterWidth {
                    svg += "<text x=\"\((x + end) / 2)\" y=\"\(y + 18)\" text-anchor=\"middle\" class=\"inside\">\(text)</text>"
                }
                x = end
            }
            svg += "<text x=\"\(labelWidth + barSpace + 6)\" y=\"\(y + 18)\" class=\"value\">\(ReportNumber.count(total))</text>"
        }
        var x = labelWidth
        let legendY = top + rowHeight * max(1, rows.count) + 8
        for (part, name) in segments.enumerated() {
            svg += "<rect x=\"\(x)\" y=\"\(legendY)\" width=\"12\" height=\"12\" fill=\"\(color(part))\"/>"
            svg += "<text x=\"\(x + 16)\" y=\"\(legendY + 11)\" class=\"legend\">\(clip(name, 26))</text>"
            x += 28 + min(26, name.count) * 7
        }
        return svg + "</svg>"
    }

    /// Vertical bars over ordered bins, each labelled under it.
    static func histogram(_ title: String, _ bins: [(label: String, count: Int64)], color: String = palette[2]) -> String {
        let left = 44, top = 14, plotHeight = 120, labelSpace = 34
        let height = top + plotHeight + labelSpace
        let count = max(1, bins.count)
        let step = min(90, (width - left - 10) / count)
        let maximum = max(1, bins.map(\.count).max() ?? 1)
        var svg = open(title, height: height, values: bins.map { "\($0.label): \($0.count)" })
        svg += "<line x1=\"\(left)\" y1=\"\(top + plotHeight)\" x2=\"\(width - 10)\" y2=\"\(top + plotHeight)\" class=\"axis\"/>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + 4)\" text-anchor=\"end\" class=\"legend\">\(maximum)</text>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + plotHeight)\" text-anchor=\"end\" class=\"legend\">0</text>"
        if bins.allSatisfy({ $0.count <= 0 }) {
            svg += "<text x=\"\(left + 8)\" y=\"\(top + plotHeight / 2)\" class=\"value\">none</text>"
        }
        for (index, bin) in bins.enumerated() {
            let x = left + index * step
            let barHeight = bin.count <= 0 ? 0 : max(2, Int(Int64(plotHeight) * bin.count / maximum))
            svg += "<rect x=\"\(x + 2)\" y=\"\(top + plotHeight - barHeight)\" width=\"\(max(1, step - 4))\" height=\"\(barHeight)\" fill=\"\(color)\">"
            svg += "<title>\(HTMLText.escaped(bin.label)): \(bin.count)</title></rect>"
            if bin.count > 0 {
                svg += "<text x=\"\(x + step / 2)\" y=\"\(top + plotHeight - barHeight - 3)\" text-anchor=\"middle\" class=\"legend\">\(bin.count)</text>"
            }
            if bins.count <= 14 || index % 2 == 0 {
                svg += "<text x=\"\(x + step / 2)\" y=\"\(top + plotHeight + 15)\" text-anchor=\"middle\" class=\"legend\">\(clip(bin.label, 12))</text>"
            }
        }
        return svg + "</svg>"
    }

    static func color(_ index: Int) -> String { palette[index % palette.count] }

    /// The chart's element, named for screen readers by its title and every value it draws
    /// (`role="img"` hides the drawing's texts from them: the figures only charts show were
    /// out of their reach).
    private static func open(_ title: String, height: Int, values: [String]) -> String {
        let name = HTMLText.escaped(title)
        let label = HTMLText.escaped(values.isEmpty ? "\(title): none" : "\(title): " + values.joined(separator: "; "))
        return "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"\(label)\" "
            + "viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\"><title>\(name)</title>"
    }

    /// A label's `>` and text: at most `limit` characters (`clip`), and when they may be drawn
    /// wider than `room` px (capitals, wide scripts), squeezed into it (`textLength`): cut by
    /// characters alone, a label of capitals spilled off the chart's left edge, its "…" unseen.
    private static func label(_ text: String, _ limit: Int, room: Int) -> String {
        let shown = cut(text, limit)
        // Generous widths at the chart's 12 px: a capital or `m`/`w` 9 px, other ASCII 7, any other 12.
        let estimate = shown.unicodeScalars.reduce(0) { width, scalar in
            switch scalar.value {
            case 0x41...0x5A, 0x6D, 0x77: width + 9
            case 0...0x7F: width + 7
            default: width + 12
            }
        }
        let fit = estimate > room ? " textLength=\"\(room)\" lengthAdjust=\"spacingAndGlyphs\"" : ""
        return fit + ">" + HTMLText.escaped(shown)
    }

    /// At most `limit` characters (an ellipsis marks a cut), escaped.
    private static func clip(_ text: String, _ limit: Int) -> String { HTMLText.escaped(cut(text, limit)) }

    /// At most `limit` characters: an ellipsis marks a cut.
    private static func cut(_ text: String, _ limit: Int) -> String {
        text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
    }
}
