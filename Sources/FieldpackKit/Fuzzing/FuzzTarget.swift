/// The fuzz targets (`Tests/Fuzz`, `make fuzz`): each runs one input, in memory, through the code
/// its stage runs, and says which invariant the input broke, if any.
///
/// The libFuzzer harness crashes on a broken invariant; `FuzzRegressionTests` replays every saved
/// crash input through the same entry point in the normal build. An input that makes a stage
/// throw its clear error is no violation: only a crash (which AddressSanitizer turns a silent
/// over-read into) or a broken invariant is.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `fieldpack-inat` on one input: an API page, a bare array, one record or JSON Lines.
    /// Invariant: every record written is a JSON array whose first element names a known kind.
    case ingest
    /// `fieldpack-sanitize`'s sanitizer. Invariant: its output passes verify's markup check.
    case sanitizer
    /// The article cleaner and blurb maker (`fieldpack-wiki`, `fieldpack-sanitize --article`).
    /// Invariant: the blurb passes verify's markup check.
    case article
    /// `fieldpack-wiki`'s input reader: libarchive (tar, gzip, raw), then each member by content
    /// (NDJSON, a JSON document, an HTML page), wanted articles made into blurbs.
    case archive
    /// `fieldpack-verify`'s blurb markup check, on any bytes.
    case markup
    /// `fieldpack-inat` on the open-data export's tables (up to four, apart by a line `%%`)
    /// with a `select`, pruned (`ExportLinkPruning`) and not. Invariant: pruning changes no
    /// finding, and a kept observation is written the same with as many photo links.
    case exportPruning

    /// Runs one input; returns the broken invariant, or nil.
    package func run(_ bytes: [UInt8]) -> String? {
        switch self {
        case .ingest: return FuzzEntry.ingest(bytes)
        case .sanitizer: return FuzzEntry.sanitize(bytes)
        case .article: return FuzzEntry.article(bytes)
        case .archive: return FuzzEntry.archive(bytes)
        case .markup: return FuzzEntry.markup(bytes)
        case .exportPruning: return FuzzEntry.exportPruning(bytes)
        }
    }
}
