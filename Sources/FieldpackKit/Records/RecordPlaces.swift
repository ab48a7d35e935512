/// Where the bundle's load found each deduped record, for its errors: one deduped file, or the
/// parts of a sharded dedupe k-way merged (`MergedRecords`).
///
/// A loaded row, a held observation or photo link carries one number for its place
/// (`MergedRecords.placeNumber`): with one file its line; with several parts its number in the
/// merge, which is turned back into its part and line only when an error names it, by merging
/// the parts again up to it (the merge gives the same records in the same order every time).
/// So a row carries 4 bytes whatever the number of parts, and an error about a record of part 3
/// names part 3 and its line, not the first part with a line of another record.
struct RecordPlaces: Sendable {
    let paths: [String]

    init(paths: [String]) {
        precondition(!paths.isEmpty, "a load reads one deduped file or more")
        self.paths = paths
    }

    /// The file and line of place `number` (0: none, e.g. a display target's row).
    func place(_ number: Int) -> (path: String, line: Int?) {
        if paths.count == 1 { return (paths[0], number > 0 ? number : nil) }
        let merged = "\(paths[0]) (merged with \(paths.count - 1) more parts)"
        guard number > 0 else { return (merged, nil) }
        // Merged again up to the record: a part that fails before it leaves the merge's name.
        do {
            let records = try MergedRecords(paths: paths, progress: .silent("bundle"))
            while let (_, _, path, line, _) = try records.next() {
                if records.placeNumber == number { return (path, line) }
            }
        } catch {}
        return (merged, nil)
    }

    /// An error about the record at place `number`.
    func error(at number: Int, _ message: String) -> FieldpackError {
        let (path, line) = place(number)
        return FieldpackError(path: path, line: line, message)
    }

    /// The record at place `number` as a message names it beside the one at `other` (which its
    /// error names): `line 12` in the same file, else `path:12`.
    func name(_ number: Int, beside other: Int) -> String {
        let (path, line) = place(number)
        let text = line.map { "line \($0)" } ?? "a line not known"
        return path == place(other).path ? text : "\(path):\(line.map(String.init) ?? "?")"
    }
}

extension SQLiteError {
    /// This error as `inserting(_:from:line:)` gives it, about the record at place `number` of `places`.
    func inserting(_ values: [SQLValue], at number: Int, of places: RecordPlaces) -> FieldpackError {
        let (path, line) = places.place(number)
        return inserting(values, from: path, line: line)
    }
}
