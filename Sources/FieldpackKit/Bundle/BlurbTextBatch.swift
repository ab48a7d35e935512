/// Articles read in id order for the search index, a batch at a time: each one's id and title
/// as SQLite gave them, and its blurb's plain text (`PlainText.ofBlurb`), which `makeTexts()`
/// makes on another thread while the entries of the batch before are written
/// (`SearchIndex.build`). Its bytes are reused from batch to batch.
///
/// Not thread-safe: one thread fills it and writes from it, another makes its texts in between.
final class BlurbTextBatch: @unchecked Sendable {
    /// About how many bytes of blurbs a batch holds (a larger blurb is a batch alone).
    let blurbBytes: Int

    init(blurbBytes: Int = 1 << 20) {
        self.blurbBytes = blurbBytes
    }

    /// Each article's id, title and blurb, one after another.
    private var bytes: [UInt8] = []
    /// Where each article's values are in `bytes`; nil for NULL.
    private var articles: [(id: Range<Int>?, title: Range<Int>?, blurb: Range<Int>?)] = []
    /// The plain texts, one after another, nil for a NULL blurb.
    private var text: [UInt8] = []
    private var texts: [Range<Int>?] = []
    private var scratch: [UInt8] = []

    var isEmpty: Bool { articles.isEmpty }

    /// Empties the batch, then reads rows of `(id, title, blurb_html)` from `rows` until at least
    /// `blurbBytes` of blurbs are held or the rows end; returns whether they ended. (A statement
    /// stepped again after its last row starts over: the caller stops.)
    func fill(from rows: Statement) throws -> Bool {
        clear()
        var held = 0
        while held < blurbBytes {
            guard try rows.step() else { return true }
            let article = (id: append(rows.textBytes(0)), title: append(rows.textBytes(1)), blurb: append(rows.textBytes(2)))
            articles.append(article)
            held += article.blurb?.count ?? 0
        }
        return false
    }

    /// Empties the batch, keeping its memory.
    func clear() {
        bytes.removeAll(keepingCapacity: true)
        articles.removeAll(keepingCapacity: true)
        text.removeAll(keepingCapacity: true)
        texts.removeAll(keepingCapacity: true)
    }

    private func append(_ value: UnsafeRawBufferPointer?) -> Range<Int>? {
        guard let value else { return nil }
        let start = bytes.endIndex
        bytes.append(contentsOf: value)
        return start..<bytes.endIndex
    }

    /// Makes every article's plain text.
    func makeTexts() {
        bytes.withUnsafeBytes { all in
            for article in articles {
                guard let blurb = article.blurb else {
                    texts.append(nil)
                    continue
                }
                PlainText.ofBlurb(UnsafeRawBufferPointer(rebasing: all[blurb]), into: &scratch)
                let start = text.endIndex
                text.append(contentsOf: scratch)
                texts.append(start..<text.endIndex)
            }
        }
    }

    /// Calls `body` with each article's id, title and text (nil for NULL), in order; the bytes
    /// are valid only inside `body`.
    func forEach(
        _ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws -> Void
    ) rethrows {
        try bytes.withUnsafeBytes { all in
            try text.withUnsafeBytes { plain in
                for (article, range) in zip(articles, texts) {
                    try body(
                        article.id.map { UnsafeRawBufferPointer(rebasing: all[$0]) },
                        article.title.map { UnsafeRawBufferPointer(rebasing: all[$0]) },
                        range.map { UnsafeRawBufferPointer(rebasing: plain[$0]) })
                }
            }
        }
    }
}
