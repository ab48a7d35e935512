/// The wiki stage's `wiki-report.json`: what was wanted, found and missing, and what the dumps
/// held. A whole run and the merge of a sharded run write it here, so their bytes agree.
struct WikiReport: Sendable {
    var wanted: Int
    var found: Int
    var missing: [String]
    /// Wanted titles that are redirects, and their targets, by title.
    var redirectsFollowed: [(alias: String, target: String)]
    var disambiguations: [String]
    var duplicates: Int
    var filesSkipped: Int
    var lines: Int
    var skipped: Int
    /// Of the lines, those of the pipeline's wiki, and those of other wikis by wiki.
    var linesOfTheWiki: Int
    var otherWikis: [String: Int]
    var rejected: Int
    var passes: Int
    var bytes: Int
    var htmlBytes: Int
    /// The Wikipedia inputs given: none when the pipeline names no `wikipedia` (its wanted
    /// articles were not looked for, not missing).
    var inputs: Int

    func json() -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("inputs"); writer.int(inputs)
        writer.key("wanted"); writer.int(wanted)
        writer.key("found"); writer.int(found)
        writer.key("missing")
        writer.beginArray()
        for title in missing { writer.string(title) }
        writer.endArray()
        writer.key("redirects_followed")
        writer.beginObject()
        for (alias, target) in redirectsFollowed {
            writer.key(dynamic: alias); writer.string(target)
        }
        writer.endObject()
        writer.key("disambiguation_pages_skipped")
        writer.beginArray()
        for title in disambiguations { writer.string(title) }
        writer.endArray()
        writer.key("duplicate_pages"); writer.int(duplicates)
        writer.key("files_skipped"); writer.int(filesSkipped)
        writer.key("lines"); writer.int(lines)
        writer.key("lines_skipped"); writer.int(skipped)
        writer.key("lines_of_the_wiki"); writer.int(linesOfTheWiki)
        writer.key("lines_of_other_wikis")
        writer.beginObject()
        for (wiki, count) in otherWikis.sorted(by: { $0.key < $1.key }) {
            writer.key(dynamic: wiki); writer.int(count)
        }
        writer.endObject()
        writer.key("lines_rejected"); writer.int(rejected)
        writer.key("passes"); writer.int(passes)
        writer.key("bytes_read"); writer.int(bytes)
        writer.key("html_bytes_cleaned"); writer.int(htmlBytes)
        writer.endObject()
        return PrettyJSON.format(writer.bytes)
    }
}
