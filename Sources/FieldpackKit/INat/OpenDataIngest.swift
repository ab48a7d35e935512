#if canImport(Glibc)
import Glibc
#endif

/// Reading the open-data export: each table (plain, gzip-compressed, or a member of the export's
/// `.tar.gz`, streamed through libarchive) is read line by line, its rows split on tabs in the
/// line reader's buffer; a field becomes a value only when its record is written. Memory does
/// not grow with the table.
///
/// Rows become the records API pages give (see `OpenDataRow`): the export's copies of
/// observations, photos, taxa and users, dated by their export (`OpenDataDate`), so that dedupe
/// merges them with API copies of the same records.
extension FileIngest {
    /// Whether `head` (an input's first decompressed bytes) is a tar archive.
    static func isTar(_ head: UnsafeRawBufferPointer) -> Bool {
        head.count >= 262 && UnsafeRawBufferPointer(rebasing: head[257..<262]).elementsEqual("ustar".utf8)
    }

    /// The export table whose header is the first line of `head`, if any.
    static func openDataHeader(_ head: UnsafeRawBufferPointer, path: String) throws -> OpenDataTable.Header? {
        guard let base = head.baseAddress, head.count > 0 else { return nil }
        let end = memchr(base, 0x0A, head.count).map { UnsafeRawPointer($0) - base } ?? head.count
        do {
            return try OpenDataTable.header(UnsafeRawBufferPointer(rebasing: head[0..<end]))
        } catch let error as FieldpackError {
            throw FieldpackError(path: path, line: 1, error.message)
        }
    }

    /// Reads the members of the export's tar archive (`ExportTableFile.forEachMember`, as the
    /// plan before it reads them): each table by its header; other members (`projects.csv`,
    /// notes) are passed over with a notice.
    ///
    /// - Throws: when the archive cannot be read, is damaged anywhere (`refuseDamage`), or holds
    ///   no export table.
    func ingestOpenDataArchive(_ reader: LineReader, path: String, output: PartBuffer, result: inout Result) throws {
        let archive = try ArchiveReader(source: reader.remainder(), path: path)
        var tables = 0
        var read = Set<OpenDataTable>()
        var damageInMember: StreamDamage? = nil
        var compressedMembers: [String] = []
        let betweenMembers = try ExportTableFile.forEachMember(of: archive, path: path, maxLineBytes: maxDocumentBytes) { member in
            let name = "\(path)#\(member.name)"
            guard let header = member.header else {
                if member.name.hasSuffix(".gz") { compressedMembers.append(member.name) }
                note(&result, Finding(path: name, outcome: .notice, reason: "not a table of the open-data export fieldpack reads: skipped"))
                return true
            }
            tables += 1
            read.insert(header.table)
            try ingestOpenDataTable(
                member.reader, header: header, path: name, source: "\(fileIndexForRecords):\(member.name.filter { $0 != "," }):",
                date: OpenDataDate.of(member: member.name, inArchive: path), output: output, result: &result, counting: tables == 1,
                refusesDamage: false)
            // Damage inside a member's rows ends the archive there too.
            if let damage = member.reader.damage { damageInMember = damage }
            return true
        }
        if let damage = betweenMembers ?? damageInMember ?? reader.damage {
            if tables == 0 { throw FieldpackError(path: path, "damaged before its first table: \(damage.message)") }
            let missing = OpenDataTable.allCases.filter { !read.contains($0) }
            if !missing.isEmpty {
                throw FieldpackError(
                    path: path,
                    "damaged (\(damage.message)) after its \(OpenDataTable.allCases.filter(read.contains).map(\.rawValue).joined(separator: ", ")) table\(read.count == 1 ? "" : "s"): no \(missing.map(\.rawValue).joined(separator: " or ")) table was reached, and a table the damage cut off is lost whole; download it again")
            }
            try Self.refuseDamage(damage, path: path)
        }
        // One of the export's tables gzipped inside the tar is the table itself, not another
        // file: passed over, the guide shipped without it (0 observations, with exit 0).
        // (A gzipped copy beside the table read plain, a spare, is passed over as before.)
        let compressedTables = compressedMembers.filter { name in
            OpenDataTable.allCases.contains { !read.contains($0) && "\($0.rawValue).csv.gz" == name.split(separator: "/").last.map(String.init) }
        }
        if tables > 0, let member = compressedTables.first {
            throw FieldpackError(
                path: "\(path)#\(member)",
                "the export's \(member.split(separator: "/").last!.dropLast(7)) table gzip-compressed inside the tar, which a tar "
                    + "does not unpack: give a tar of the tables uncompressed (as iNaturalist publishes it), or the tables themselves")
        }
        // An export's archive without one of its tables (iNaturalist's holds all four): said, as
        // its guide has none of that table's rows.
        if tables > 0 {
            for table in OpenDataTable.allCases where !read.contains(table) {
                note(&result, Finding(
                    path: path, outcome: .notice,
                    reason: "holds no \(table.rawValue) table (the export's archive holds observations, photos, taxa and observers): "
                        + "the guide has none of its rows from this archive"))
            }
        }
        if tables == 0 {
            // A tar of the bucket's gzipped tables: the members are compressed, not missing.
            let compressed = compressedMembers.isEmpty ? "" : "; its members are gzip-compressed (\(compressedMembers.prefix(4).joined(separator: ", "))), "
                + "which a tar does not unpack: give the .csv.gz files themselves, or a tar of the tables uncompressed"
            throw FieldpackError(
                path: path, "a tar archive with no table of the iNaturalist open-data export in it (observations, photos, taxa, observers)\(compressed)")
        }
        // The gzip under the tar is ingest's own stream: its member checks are the line reader's,
        // or the archive's when libarchive read the bytes through.
        let failed = archive.failedMembers.isEmpty ? reader.failedMembers.first?.message : archive.failureReason ?? "a gzip member fails its check"
        try Self.refuseFailedMembers(failed, path: path)
    }

    /// An export table or archive cut short or damaged (its gzip stream ends without its trailer,
    /// its tar stops inside a member) is refused whole, as one whose gzip fails its check: the
    /// rows after the damage are lost, unknown and uncounted (one table is one stream, so a reject
    /// rate says nothing of them), and a guide built from part of an export is a wrong guide.
    static func refuseDamage(_ damage: StreamDamage, path: String) throws {
        throw FieldpackError(
            path: path,
            "damaged (\(damage.message)): the rows after the damage are lost, and an open-data export cut short is refused whole; download it again")
    }

    /// A table whose last line has no line end, which every table of the export ends with
    /// (INAT.md §4): cut short, as a download that stopped, and refused whole.
    static func cutShort(path: String, line: Int) -> FieldpackError {
        FieldpackError(
            path: path, line: line,
            "cut short: the table's last line has no line end (every table of the export ends in one), so its last row may be "
                + "cut anywhere; an open-data export cut short is refused whole; download it again")
    }

    /// An export whose gzip fails its check is refused whole: its rows are not told apart by
    /// member (a table's rows are not reread as API files are), and no damaged row may ship.
    static func refuseFailedMembers(_ reason: String?, path: String) throws {
        guard let reason else { return }
        throw FieldpackError(
            path: path, "\(reason): an open-data export whose gzip fails its check is refused whole; download it again")
    }

    /// Reads one table's rows (the header is the reader's first line). Under `linkPruning` an
    /// observations table marks the rows its rules remove and a photos table leaves out the links
    /// to them; the rows it leaves out whole (`ExportLinkPruning.Singles`) are counted in a
    /// `select` line after the table's records.
    ///
    /// - Parameters:
    ///   - first: whether the reader starts at the table's first line (not a later byte range).
    ///   - counting: whether this table may count the taxa and users left out for the whole job
    ///     (`ExportParents.countingInput`): of an archive's members, the first table only.
    ///   - refusesDamage: whether damage to the stream fails the file here (`refuseDamage`); an
    ///     archive's member leaves it to the archive, which names the tables it cut off.
    ///   - unit: the unit of ingest's reading this is (a file, or its byte range), whose rows'
    ///     fates the plan may have found (`ExportRowFates`); nil for an archive's member.
    func ingestOpenDataTable(
        _ reader: LineReader, header: OpenDataTable.Header, path: String, source: String, date: Int64?,
        output: PartBuffer, result: inout Result, first: Bool = true, counting: Bool = true, refusesDamage: Bool = true,
        unit: ExportRowFates.Unit? = nil
    ) throws {
        let seen = date ?? openDataDate
        if seen == nil && first {
            note(&result, Finding(
                path: path, outcome: .notice,
                reason: "no export date (no inaturalist-open-data-YYYYMMDD in its name, and no open_data_date in the pipeline): "
                    + "its rows rank below every dated copy of the same records"))
        }
        if first { _ = try reader.next() }  // the header (a later byte range starts past it)
        let row = OpenDataRow(header: header, seen: seen)
        // A taxa or observers table too, when ingest leaves out the taxa and users no kept row
        // needs (`ExportParents`): the first range of one such table counts them for the job.
        if let linkPruning, header.table == .photos || header.table == .observations || linkPruning.parents != nil {
            row.pruning = linkPruning
            row.countsParents = first && counting && fileIndexForRecords == linkPruning.parents?.countingInput
            result.prunedBy = linkPruning.fingerprint
        }
        defer {
            result.prunedLinks += row.prunedLinks
            result.leftOutRows += row.leftOutParentRows
        }
        // The plan's fates of this unit's rows: a quiet row whose key has no other row is counted
        // by its key alone, not split and parsed again.
        let fates = row.pruning?.fates
        let cursor = try unit.flatMap { unit in try fates?.cursor(for: unit, path: path) }
        let ruleNames = fates?.ruleNames ?? []
        var lastLine = 0
        while let line = try reader.next() {
            lastLine = line.number
            guard let bytes = OpenDataRow.rowBytes(line) else { continue }
            func finding(_ outcome: Finding.Outcome, _ field: String?, _ reason: String) -> Finding {
                Finding(path: path, line: line.number, offset: line.offset, field: field, outcome: outcome, reason: reason)
            }
            if OpenDataRow.isIncomplete(line, of: reader), let damage = reader.damage {
                reject(&result, finding(.rejected, nil, "incomplete row at the end of a damaged stream (\(damage.message))"))
                continue
            }
            // An intact stream whose last row has no line end: the table itself was cut (a
            // plain .csv whose download stopped mid-row). Its last row may be cut anywhere, a
            // name or a number short, and look whole: the table is refused, never read as it is.
            if line.unterminated { throw Self.cutShort(path: path, line: line.number) }
            if let cursor {
                let fate = try cursor.next(line: line.number)
                if fate != 0, row.leavesOut(bytes, fate: fate, ruleNames: ruleNames, counts: &extractor.counts) {
                    result.accepted += 1
                    continue
                }
            }
            let mark = extractor.out.count
            let counts = extractor.counts
            do throws(RecordError) {
                try row.write(bytes, number: line.number, into: &extractor, source: source)
                result.accepted += 1
                // A NUL in the row is written U+FFFD (the records' writer); said of the row
                // whether or not pruning writes it, so pruning never changes the findings.
                if OpenDataRow.holdsNUL(bytes) {
                    note(&result, finding(.salvaged, nil, TextRepair.reason))
                }
                for part in row.dropped { note(&result, finding(.salvaged, part.field, part.reason)) }
            } catch {
                extractor.out.truncate(to: mark)
                extractor.counts = counts
                reject(&result, finding(.rejected, error.field.isEmpty ? nil : error.field, error.reason))
            }
            if extractor.out.count > PartBuffer.limit { try output.spill(&extractor.out) }
        }
        if refusesDamage, let damage = reader.damage { try Self.refuseDamage(damage, path: path) }
        try cursor?.finish(line: lastLine)
        // What was counted instead of written, for dedupe to add to its counts.
        if let leftOut = row.leftOut {
            extractor.out.buffer.append(leftOut.encoded())
            result.leftOutRows += leftOut.removed.values.reduce(leftOut.photosNotSelected, +)
        }
    }
}

/// The export's date, which dates every row of it: the `YYYYMMDD` of `inaturalist-open-data-YYYYMMDD`
/// (the bundle's name, and the folder inside it), or the pipeline's `open_data_date` for loose
/// tables. A copy of a record from the export is as new as the export: newer than an API copy
/// last updated before that day, older than one updated after it.
public enum OpenDataDate {
    /// The date in the last `inaturalist-open-data-YYYYMMDD` of `name`, as Unix ms at 00:00 UTC.
    public static func of(_ name: String) -> Int64? {
        let marker = Array("inaturalist-open-data-".utf8)
        let bytes = Array(name.utf8)
        var found: Int64? = nil
        var index = 0
        while index + marker.count + 8 <= bytes.count {
            if bytes[index..<(index + marker.count)].elementsEqual(marker) {
                let digits = bytes[(index + marker.count)..<(index + marker.count + 8)]
                if digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                    let text = String(decoding: digits, as: UTF8.self)
                    let iso = "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.suffix(2))"
                    if let millis = Timestamp.day(iso) { found = millis }
                }
            }
            index += 1
        }
        return found
    }

    /// The date of the rows of `member` of the export's tar archive at `path`: its own name's, else
    /// the archive's.
    static func of(member: String, inArchive path: String) -> Int64? { of(member) ?? of(path) }
}
