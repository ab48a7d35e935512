/// One table of the export as the readers before ingest open it (`ExportLinkPruning`,
/// `ExportTaxa`, `ExportParents`): a file, plain or gzip, or a member of the export's tar
/// archive, which is read from the archive's start (inflated again) up to that member.
struct ExportTableFile: Sendable {
    let path: String
    /// Which member of the archive at `path` the table is: its position among the archive's
    /// members (a tar may repeat a name) and its name; nil: the file is the table.
    let member: (position: Int, name: String)?
    let header: OpenDataTable.Header

    init(path: String, header: OpenDataTable.Header) {
        self.path = path
        member = nil
        self.header = header
    }

    init(archive path: String, position: Int, name: String, header: OpenDataTable.Header) {
        self.path = path
        member = (position, name)
        self.header = header
    }

    /// How ingest names the table in findings and sources (`path#member` for a member).
    var name: String { member.map { "\(path)#\($0.name)" } ?? path }

    /// The export's tables in the tar archive at `path`, in its order, with their sizes (one pass
    /// over it, each member's head read as ingest reads it). Damage ends the list where ingest's
    /// reading of the archive ends. With `taxa`, the rows of its taxa tables go to it in the same
    /// pass (`ExportTaxa.Reader`), rather than in a pass of their own.
    ///
    /// - Throws: when the file cannot be read (never an early end).
    static func tables(
        inArchive path: String, taxa: ((OpenDataRow, UnsafeRawBufferPointer) -> Bool)? = nil
    ) throws -> [(table: ExportTableFile, bytes: Int)] {
        var tables: [(table: ExportTableFile, bytes: Int)] = []
        try forEachMember(ofArchive: path) { position, name, archive in
            let reader = LineReader(source: archive.memberSource())
            // The head is a view into the reader's buffer: the reader must outlive every use of it.
            let header = try withExtendedLifetime(reader) { try? FileIngest.openDataHeader(try reader.peek(atLeast: 1 << 16), path: name) }
            guard let header else { return true }
            tables.append((ExportTableFile(archive: path, position: position, name: name, header: header), archive.memberBytes))
            if header.table == .taxa, let taxa { _ = try OpenDataRow.rows(of: reader, header: header, seen: nil, taxa) }
            return true
        }
        return tables
    }

    /// Calls `body` with each member of the export's tar archive at `path` (its position, its
    /// name, and the archive positioned at it), in the archive's order, while `body` returns true.
    /// The archive is opened as ingest opens it (`FileIngest.ingestOpenDataArchive`), and reading
    /// stops where ingest's stops: damage met between members ends the archive, as damage that a
    /// member's reader met does (ingest then keeps the rows before it).
    ///
    /// - Throws: a read error of the file (never an early end), or what `body` throws.
    static func forEachMember(
        ofArchive path: String, _ body: (_ position: Int, _ name: String, _ archive: ArchiveReader) throws -> Bool
    ) throws {
        let archive = try ArchiveReader(source: try openInputReadingAhead(path), path: path)
        var position = 0
        while true {
            let member: String?
            do {
                member = try archive.nextMember()
            } catch is StreamDamage {
                return
            }
            guard let member, try body(position, member, archive) else { return }
            position += 1
        }
    }
}

/// The export's tables as the readers before ingest read them (`ExportLinkPruning`, `ExportTaxa`,
/// `ExportParents`): the rows ingest writes something of, split by one `OpenDataRow`.
extension OpenDataRow {
    /// Calls `body` with each row of `table` (or of its byte range `range`, for a file) that
    /// ingest writes something of: past the header, not empty, not an incomplete row at the end
    /// of a damaged stream (`rowBytes(_:of:)`), while `body` returns true.
    ///
    /// - Throws: what `body` throws, and a read error (never an early end); one that names no
    ///   file names the table (`naming`).
    static func forEachRow(
        in table: ExportTableFile, range: Range<Int>? = nil, seen: Int64?,
        _ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        guard table.member == nil else {
            precondition(range == nil, "an archive member is read whole")
            return try forEachRow(in: [table], seen: seen) { _, row, bytes in try body(row, bytes) }
        }
        do {
            let reader = try range.map { try ByteRangeLines.reader(path: table.path, range: $0) }
                ?? LineReader(source: try openInputReadingAhead(table.path))
            _ = try rows(of: reader, header: table.header, seen: seen, body)
        } catch {
            throw naming(error, path: table.path)
        }
    }

    /// Calls `body` with each row of each of `tables` in turn (and the table's index), while it
    /// returns true. The members of one archive that follow one another in `tables` are read in
    /// one pass over it, in the archive's order.
    static func forEachRow(
        in tables: [ExportTableFile], seen: Int64? = nil, _ body: (Int, OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        var index = 0
        while index < tables.count {
            let path = tables[index].path
            guard tables[index].member != nil else {
                var going = true
                try forEachRow(in: tables[index], seen: seen) { row, bytes in
                    going = try body(index, row, bytes)
                    return going
                }
                if !going { return }
                index += 1
                continue
            }
            // This archive's members among the next tables, by their position in it.
            var wanted: [Int: Int] = [:]
            var end = index
            while end < tables.count, tables[end].path == path, let member = tables[end].member {
                wanted[member.position] = end
                end += 1
            }
            var left = wanted.count
            var going = true
            do {
                try ExportTableFile.forEachMember(ofArchive: path) { position, _, archive in
                    guard let table = wanted[position] else { return true }
                    let reader = LineReader(source: archive.memberSource())
                    going = try rows(of: reader, header: tables[table].header, seen: seen) { row, bytes in try body(table, row, bytes) }
                    left -= 1
                    return going && left > 0
                }
            } catch {
                throw naming(error, path: path)
            }
            if !going { return }
            index = end
        }
    }

    /// Calls `body` with each row of the table `reader` reads from its start; false when `body`
    /// stopped it.
    fileprivate static func rows(
        of reader: LineReader, header: OpenDataTable.Header, seen: Int64?, _ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        let row = OpenDataRow(header: header, seen: seen)
        while let line = try reader.next() {
            guard line.number > 1, let bytes = rowBytes(line, of: reader) else { continue }
            if try !body(row, bytes) { return false }
        }
        return true
    }

    /// `error`, naming the table at `path` when it is a `FieldpackError` that names no file.
    static func naming(_ error: any Error, path: String) -> any Error {
        if let plain = error as? FieldpackError, plain.path == nil { return FieldpackError(path: path, plain.message) }
        return error
    }
}
