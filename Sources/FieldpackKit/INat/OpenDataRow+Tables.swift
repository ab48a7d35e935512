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
    /// pass (`ExportTaxa.Reader`, `ExportParents.Listed`), rather than in a pass of their own,
    /// while it returns true; with `judging`, each other table goes to it with its reader, to be
    /// read in the same pass too.
    ///
    /// - Throws: when the file cannot be read (never an early end), or a member's header names
    ///   some of a table's columns but not all (as ingest does); what `taxa` and `judging` throw.
    static func tables(
        inArchive path: String, taxa: ((OpenDataRow, UnsafeRawBufferPointer) throws -> Bool)? = nil,
        judging: ((ExportTableFile, LineReader) throws -> Void)? = nil
    ) throws -> [(table: ExportTableFile, bytes: Int)] {
        var tables: [(table: ExportTableFile, bytes: Int)] = []
        try forEachMember(ofArchive: path) { member, archive in
            guard let header = member.header else { return true }
            let table = ExportTableFile(archive: path, position: member.position, name: member.name, header: header)
            tables.append((table, archive.memberBytes))
            do {
                if header.table == .taxa, let taxa {
                    _ = try OpenDataRow.rows(of: member.reader, header: header, seen: nil, taxa)
                } else if header.table != .taxa, let judging {
                    try judging(table, member.reader)
                }
            } catch {
                throw OpenDataRow.naming(error, path: table.name)
            }
            return true
        }
        return tables
    }

    /// One member of the export's tar archive, as ingest and the readers before it take it: its
    /// position among the members, its name, its reader (its head peeked), and its table's header
    /// (nil: not a table of the export, which ingest passes over).
    struct Member {
        let position: Int
        let name: String
        let reader: LineReader
        let header: OpenDataTable.Header?
    }

    /// Calls `body` with each member of `archive` (the export's tar archive at `path`) in its
    /// order, while `body` returns true; each member's lines at most `maxLineBytes` long. Damage
    /// met between members (a cut inside a tar header or its padding, or inside a member's header
    /// line) ends the archive, as damage a member's reader meets ends that member: the rows before
    /// it are read. That damage is returned (nil when the archive ended whole, or `body` stopped).
    ///
    /// - Throws: a read error (never an early end), a member's header that names some of a
    ///   table's columns but not all, and what `body` throws.
    static func forEachMember(
        of archive: ArchiveReader, path: String, maxLineBytes: Int = 256 << 20, _ body: (Member) throws -> Bool
    ) throws -> StreamDamage? {
        var position = 0
        while true {
            let name: String?
            do {
                name = try archive.nextMember()
            } catch let damage as StreamDamage {
                return damage
            }
            guard let name else { return nil }
            let reader = LineReader(source: archive.memberSource(named: "\(archive.path)#\(name)"), maxLineBytes: maxLineBytes)
            // The head is a view into the reader's buffer: the reader must outlive every use of it.
            let header = try withExtendedLifetime(reader) { () throws -> OpenDataTable.Header?? in
                let head = try reader.peek(atLeast: 1 << 16)
                // Cut inside its header line: the member has no line to read, and the archive ends.
                if reader.damage != nil && !head.contains(0x0A) { return .none }
                return .some(try FileIngest.openDataHeader(head, path: "\(path)#\(name)"))
            }
            guard let header else { return reader.damage }
            if try !body(Member(position: position, name: name, reader: reader, header: header)) { return nil }
            position += 1
        }
    }

    /// `forEachMember(of:path:_:)` over the archive at `path`, opened as ingest opens it (its
    /// gzip inflated on a thread of its own, `ReadAheadSource`), with the archive positioned at
    /// each member.
    static func forEachMember(ofArchive path: String, _ body: (Member, ArchiveReader) throws -> Bool) throws {
        let archive = try ArchiveReader(source: try openInputReadingAhead(path), path: path)
        _ = try forEachMember(of: archive, path: path) { try body($0, archive) }
    }
}

/// The export's tables as the readers before ingest read them (`ExportLinkPruning`, `ExportTaxa`,
/// `ExportParents`): the rows ingest writes something of, split by one `OpenDataRow`.
extension OpenDataRow {
    /// Calls `body` with each row of `table` (or of its byte range `range`, for a file) that
    /// ingest writes something of: past the header, not empty, not an incomplete row at the end
    /// of a damaged stream (`rowBytes(_:of:)`), while `body` returns true.
    ///
    /// - Returns: how many lines start in the range (or the file); nil when `body` stopped the
    ///   reading, or for an archive's member.
    /// - Throws: what `body` throws, and a read error (never an early end); one that names no
    ///   file names the table (`naming`).
    @discardableResult
    static func forEachRow(
        in table: ExportTableFile, range: Range<Int>? = nil, seen: Int64?,
        _ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Int? {
        guard table.member == nil else {
            precondition(range == nil, "an archive member is read whole")
            try forEachRow(in: [table], seen: seen) { _, row, bytes in try body(row, bytes) }
            return nil
        }
        do {
            // The lines before the range are not counted: the header (line 1) is told apart,
            // and the rows are numbered within the range (its first line 2 past the file's
            // start), which with the count returned places them (`ExportRowFates.start(of:path:)`).
            let reader = try range.map { try ByteRangeLines.reader(path: table.path, range: $0, numbered: false) }
                ?? LineReader(source: try openInputReadingAhead(table.path))
            guard try rows(of: reader, header: table.header, seen: seen, body) else { return nil }
            return reader.linesRead - (range.map { $0.lowerBound > 0 ? 1 : 0 } ?? 0)
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
            // What an error names: the member being read, else the archive.
            var reading = path
            do {
                try ExportTableFile.forEachMember(ofArchive: path) { member, _ in
                    guard let table = wanted[member.position] else { return true }
                    reading = tables[table].name
                    going = try rows(of: member.reader, header: tables[table].header, seen: seen) { row, bytes in try body(table, row, bytes) }
                    reading = path
                    left -= 1
                    return going && left > 0
                }
            } catch {
                throw naming(error, path: reading)
            }
            if !going { return }
            index = end
        }
    }

    /// Calls `body` with each row of the table `reader` reads from its start; false when `body`
    /// stopped it.
    static func rows(
        of reader: LineReader, header: OpenDataTable.Header, seen: Int64?, _ body: (OpenDataRow, UnsafeRawBufferPointer) throws -> Bool
    ) throws -> Bool {
        let row = OpenDataRow(header: header, seen: seen)
        while let line = try reader.next() {
            guard line.number > 1, let bytes = rowBytes(line, of: reader) else { continue }
            row.lineOffset = line.offset
            row.lineNumber = line.number
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
