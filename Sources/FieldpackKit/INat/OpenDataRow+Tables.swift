/// The export's tables as the readers before ingest read them (`ExportLinkPruning`, `ExportTaxa`,
/// `ExportParents`): the rows ingest writes something of, split by one `OpenDataRow`.
extension OpenDataRow {
    /// Calls `body` with each row of the table at `path` (or of its byte range `range`) that
    /// ingest writes something of: past the header, not empty, not an incomplete row at the end
    /// of a damaged stream (`rowBytes(_:of:)`), while `body` returns true.
    ///
    /// - Throws: what `body` throws, and a read error (never an early end); one that names no
    ///   file names the table (`naming`).
    static func forEachRow(
        in path: String, range: Range<Int>? = nil, header: OpenDataTable.Header, seen: Int64?,
        _ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        do {
            let reader = try range.map { try ByteRangeLines.reader(path: path, range: $0) }
                ?? LineReader(source: try openInput(path, hashing: false).source)
            let row = OpenDataRow(header: header, seen: seen)
            while let line = try reader.next() {
                guard line.number > 1, let bytes = rowBytes(line, of: reader) else { continue }
                if try !body(row, bytes) { return }
            }
        } catch {
            throw naming(error, path: path)
        }
    }

    /// `error`, naming the table at `path` when it is a `FieldpackError` that names no file.
    static func naming(_ error: any Error, path: String) -> any Error {
        if let plain = error as? FieldpackError, plain.path == nil { return FieldpackError(path: path, plain.message) }
        return error
    }
}
