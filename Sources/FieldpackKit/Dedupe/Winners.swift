/// Writes each id's winning record, read back from the records file, without its source and with
/// gaps (photo dimensions, a taxon's photo list) filled from the other occurrences, and a taxon's
/// species count the largest of its occurrences'.
struct Winners {
    let source: ReadableFile
    private var line = [UInt8](repeating: 0, count: 1 << 16)
    private var pending: [UInt8] = []
    private let parser = JSONParser()
    private var window: ReadWindow
    /// Each input's path by its index, to resolve an export observation's source.
    let sourceNames: [Int: String]
    /// The selection's rules dedupe applies to each winning observation (nil: none).
    let selection: DedupeSelection?
    /// Whether the export's photos table is among the inputs: then an export copy without photo
    /// rows has no open photo, else its export says nothing of its photos.
    let exportGivesPhotos: Bool

    init(source: ReadableFile, sourceNames: [Int: String], exportGivesPhotos: Bool = false, selection: DedupeSelection? = nil) {
        self.source = source
        self.sourceNames = sourceNames
        self.exportGivesPhotos = exportGivesPhotos
        self.selection = selection
        window = ReadWindow(source: source)
        pending.reserveCapacity(1 << 20)
    }

    /// Writes a group's winner (`writeRecord`); an observation that `selection` removes is taken
    /// back out and counted in `removed` instead.
    mutating func writeRecord(
        _ group: UnsafeBufferPointer<RecordOccurrence>, kind: RecordKind, removed: inout DedupedSelectionRecord?
    ) throws {
        guard kind == .observation, let selection, !group[0].isLinks else { return try writeRecord(group, kind: kind) }
        if !group[0].fromAPI && !group.contains(where: { $0.fromAPI && !$0.isLinks }) {
            // An export copy with no API copy: what the rules read is its own, so it was judged
            // when it was collected, and is neither read back nor rewritten when they remove it
            // (most of a regional guide's export).
            if let rule = group[0].removedBy {
                removed?.add(rule: selection.rules[rule], seen: group[0].seen == Int64.min ? nil : group[0].seen)
                return
            }
            return try writeRecord(group, kind: kind)
        }
        // Otherwise the winner as written (an API copy, or an export copy with columns from one).
        let start = pending.count
        try writeRecord(group, kind: kind)
        guard pending.count > start else { return }
        var written = JSONColumns()
        _ = written.load(try parse(Array(pending[start...]), offset: group[0].offset))
        guard let (rule, seen) = selection.removes(written) else { return }
        pending.removeSubrange(start...)
        removed?.add(rule: rule, seen: seen)
    }

    /// Writes a photo's winner (the first), filling what it lacks from the other occurrences:
    /// its dimensions from the first that has both and is as remote or hosted as it is, its
    /// `attribution_name` from the first that has a usable one, and, when it is a taxon's photo (no
    /// observer), its observer from the first observation's copy that names one (the best
    /// ranked: see `PhotoOccurrence.outranks`), so that the photo is credited to
    /// who took it whatever the selection keeps (`PhotoRecord.Column.observer`).
    mutating func writePhoto(_ group: UnsafeBufferPointer<PhotoOccurrence>, filled: inout Int) throws {
        let winner = group[0]
        var replacing: [Int: [UInt8]] = [:]
        // Only from a copy of the same kind: a remote copy's size is not the hosted file's (a
        // Wikimedia 75-px thumbnail took a hosted copy's 947×442).
        if winner.width <= 0 || winner.height <= 0, group.count > 1,
           let donor = group.first(where: { $0.width > 0 && $0.height > 0 && $0.isRemote == winner.isRemote }) {
            replacing[PhotoRecord.Column.width.rawValue] = Array(String(donor.width).utf8)
            replacing[PhotoRecord.Column.height.rawValue] = Array(String(donor.height).utf8)
            filled += 1
        }
        // The name its credit gives first (`attribution_name`), from the best ranked copy that
        // has a usable one when the winner has none: an observation's embedded copy of a taxon's
        // default photo carries none and outranks the taxa page's copy that names who took it,
        // which left the photo with no one to credit (excluded as `no-credit`).
        if !winner.namesCredit, let donor = group.dropFirst().first(where: \.namesCredit),
           let name = try load(offset: donor.offset, length: donor.length)[PhotoRecord.Column.attributionName] {
            var text = JSONWriter()
            text.value(name)
            replacing[PhotoRecord.Column.attributionName.rawValue] = text.bytes
        }
        if !winner.isObservationPhoto {
            for occurrence in group.dropFirst() where occurrence.isObservationPhoto {
                if let observer = try load(offset: occurrence.offset, length: occurrence.length).int64(PhotoRecord.Column.observer) {
                    replacing[PhotoRecord.Column.observer.rawValue] = Array(String(observer).utf8)
                    break
                }
            }
        }
        if replacing.isEmpty { return try emitDirect(offset: winner.offset, length: winner.length) }
        let record = try content(offset: winner.offset, length: winner.length)
        try rewrite(record, offset: winner.offset, replacing: replacing)
    }

    /// Writes a group's winner (the first). An observation whose copies are all export photo
    /// links (no observation row) is not written; an export copy that wins takes its photo links
    /// from its export's link rows (the best API copy's when the export's photos table is not
    /// among the inputs, which says nothing of its photos; with it, no row is no open photo,
    /// as a photo relicensed or deleted since the API copy) and, like an export taxon, every
    /// column the export lacks from the best API copy (`fillFromAPI`), and ends with its
    /// `ExportOrigin` (the export's file and line), which the bundle's rules for export
    /// observations read (`ExportObservationRules`): of copies that tie on everything (one export
    /// read twice, as its `.tar.gz` and unpacked), the first origin by path then line, so that it
    /// does not hang on the order of the inputs.
    mutating func writeRecord(_ group: UnsafeBufferPointer<RecordOccurrence>, kind: RecordKind) throws {
        let winner = group[0]
        if kind == .observation {
            typealias C = ObservationRecord.Column
            if winner.isLinks { return }
            if winner.fromAPI {
                let filling = winner.hasUnknown && group.count > 1
                if winner.hasList && !filling { return try emitDirect(offset: winner.offset, length: winner.length) }
                var replacing = filling ? try fillUnknown(group) : [:]
                // A copy that does not say which photos it has (`ObservationRecord.photosListed`)
                // takes them from the best API copy that does, else has none. Not from the
                // export's links: ingest prunes the links of an export row its own values remove
                // (`ExportLinkPruning`), so they would be there or not as the pipeline's select
                // pruned, and an older export's links would bring a photo the newest one no
                // longer holds open.
                if !winner.hasList { replacing[C.photos.rawValue] = try listedPhotos(group) ?? Array("[]".utf8) }
                if replacing.isEmpty { return try emitDirect(offset: winner.offset, length: winner.length) }
                let record = try content(offset: winner.offset, length: winner.length)
                return try rewrite(record, offset: winner.offset, replacing: replacing)
            }
            var replacing = try fillFromAPI(
                group, exportColumns: ObservationRecord.exportColumns, unknownIn: (winner, ObservationRecord.Column.unknown.rawValue))
            if let links = try exportLinks(group, seen: winner.seen) {
                replacing[C.photos.rawValue] = links
            } else if !exportGivesPhotos, let photos = try listedPhotos(group) {
                replacing[C.photos.rawValue] = photos
            } else {
                replacing[C.photos.rawValue] = Array("[]".utf8)
            }
            // A copy kept for its uuid alone that wins (no copy has values) ships as an export
            // copy, its mark dropped.
            if winner.isKeyOnly { replacing[C.part.rawValue] = Array("null".utf8) }
            let (record, source) = try contentAndSource(offset: winner.offset, length: winner.length)
            var origin = ExportOrigin(source: source, sourceNames: sourceNames)
            for other in group.dropFirst() where !other.isLinks && !winner.outranks(other) {
                let candidate = ExportOrigin(source: try contentAndSource(offset: other.offset, length: other.length).1, sourceNames: sourceNames)
                if candidate.precedes(origin) { origin = candidate }
            }
            return try rewrite(record, offset: winner.offset, replacing: replacing, appending: origin.json)
        }
        guard kind == .taxon && group.count > 1 else { return try emitDirect(offset: winner.offset, length: winner.length) }
        var replacing: [Int: [UInt8]] = winner.fromAPI
            ? [:] : try fillFromAPI(group, exportColumns: TaxonRecord.exportColumns, unknownIn: (winner, TaxonRecord.Column.unknown.rawValue))
        if !winner.hasList, let donor = group.first(where: { $0.hasList }) {
            // The photo list of a taxa-endpoint copy.
            let columns = try load(donor)
            var list = JSONWriter()
            if let photos = columns[TaxonRecord.Column.photos] { list.value(photos) } else { list.null() }
            replacing[TaxonRecord.Column.photos.rawValue] = list.bytes
        }
        // The largest species count of all copies: the same whatever order the pages came in, and
        // the same when one page is read twice (see `TaxonRecord.Column.speciesCount`).
        var largest: Int64? = nil
        for occurrence in group where occurrence.hasSpeciesCount {
            if let count = try load(occurrence).int64(TaxonRecord.Column.speciesCount) { largest = max(largest ?? count, count) }
        }
        if let largest {
            let current = winner.hasSpeciesCount ? try load(winner).int64(TaxonRecord.Column.speciesCount) : nil
            if current != largest { replacing[TaxonRecord.Column.speciesCount.rawValue] = Array(String(largest).utf8) }
        }
        if replacing.isEmpty { return try emitDirect(offset: winner.offset, length: winner.length) }
        let record = try content(offset: winner.offset, length: winner.length)
        try rewrite(record, offset: winner.offset, replacing: replacing)
    }

    /// The columns of the best API copy in `group` (sorted: the first one) that are not among
    /// `exportColumns`, as JSON, and those of them that the export copy `unknownIn` does not
    /// know (its bit mask at `column`: `ObservationRecord.Column.unknown`, a value dropped as
    /// unusable, a blank date; `TaxonRecord.Column.unknown`) where the API copy has a value;
    /// empty when no copy is from the API.
    private mutating func fillFromAPI(
        _ group: UnsafeBufferPointer<RecordOccurrence>, exportColumns: Set<Int>, unknownIn winner: (RecordOccurrence, column: Int)
    ) throws -> [Int: [UInt8]] {
        guard let donor = group.first(where: { $0.fromAPI && !$0.isLinks }) else { return [:] }
        let unknown = try load(winner.0).int64(winner.column) ?? 0
        let columns = try load(donor)
        var replacing: [Int: [UInt8]] = [:]
        for index in 1..<columns.count where exportColumns.contains(index) && unknown & (1 << Int64(index)) != 0 {
            guard let column = columns[index] else { continue }
            var value = JSONWriter()
            value.value(column)
            replacing[index] = value.bytes
        }
        for index in 1..<columns.count where !exportColumns.contains(index) {
            var value = JSONWriter()
            if let column = columns[index] { value.value(column) } else { value.null() }
            replacing[index] = value.bytes
        }
        return replacing
    }

    /// The values, as JSON, of the columns that the winning API copy of an observation (the
    /// first) marks unknown (`ObservationRecord.fillableFromOtherCopies`), each from the best
    /// other copy that knows it: an API copy that does not mark it unknown, or an export copy
    /// (one the selection removes included: its values are the export's) for a column the export
    /// carries and it does not mark unknown. A value a copy knows to be none (null) is taken as
    /// none. A column no other copy knows stays unknown, and null.
    private mutating func fillUnknown(_ group: UnsafeBufferPointer<RecordOccurrence>) throws -> [Int: [UInt8]] {
        typealias C = ObservationRecord.Column
        var left = try load(group[0]).int64(C.unknown) ?? 0
        var replacing: [Int: [UInt8]] = [:]
        for donor in group.dropFirst() where left != 0 && !donor.isLinks && !donor.isKeyOnly {
            let columns = try load(donor)
            let unknown = columns.int64(C.unknown) ?? 0
            for (column, _) in ObservationRecord.fillableFromOtherCopies
            where left & column.unknownBit != 0 && unknown & column.unknownBit == 0
                && (donor.fromAPI || ObservationRecord.exportColumns.contains(column.rawValue))
            {
                var value = JSONWriter()
                if let known = columns[column] { value.value(known) } else { value.null() }
                replacing[column.rawValue] = value.bytes
                left &= ~column.unknownBit
            }
        }
        return replacing
    }

    /// The photo list, as JSON, of the best API copy of an observation that lists its photos
    /// (`RecordOccurrence.hasList`); nil when none does.
    private mutating func listedPhotos(_ group: UnsafeBufferPointer<RecordOccurrence>) throws -> [UInt8]? {
        guard let donor = group.first(where: { $0.fromAPI && !$0.isLinks && $0.hasList }),
              let photos = try load(donor)[ObservationRecord.Column.photos]
        else { return nil }
        var list = JSONWriter()
        list.value(photos)
        return list.bytes
    }

    /// `[[photo id, position], …]` of the export link rows of one export (`seen`), by position
    /// then photo id, each photo once (at its lowest position); nil when it has none.
    private mutating func exportLinks(_ group: UnsafeBufferPointer<RecordOccurrence>, seen: Int64) throws -> [UInt8]? {
        var links: [(photo: Int64, position: Int64)] = []
        for occurrence in group where occurrence.isLinks && occurrence.seen == seen {
            if let link = occurrence.heldLink {
                links.append(link)
                continue
            }
            guard let list = try load(occurrence)[ObservationRecord.Column.photos] else { continue }
            for link in list.elements {
                var pair = link.elements.makeIterator()
                if let photo = pair.next()?.int64, let position = pair.next()?.int64 { links.append((photo, position)) }
            }
        }
        links.sort { $0.photo != $1.photo ? $0.photo < $1.photo : $0.position < $1.position }
        if links.isEmpty { return nil }
        var unique: [(photo: Int64, position: Int64)] = []
        for link in links where unique.last?.photo != link.photo { unique.append(link) }
        unique.sort { $0.position != $1.position ? $0.position < $1.position : $0.photo < $1.photo }
        var writer = JSONWriter()
        writer.beginArray()
        for link in unique {
            writer.beginArray(); writer.int(link.photo); writer.int(link.position); writer.endArray()
        }
        writer.endArray()
        return writer.bytes
    }

    /// The columns of the record at `occurrence` (valid until the next parse).
    private mutating func load(_ occurrence: RecordOccurrence) throws -> JSONColumns {
        try load(offset: occurrence.offset, length: occurrence.length)
    }

    /// The columns of the record at `offset` (valid until the next parse).
    private mutating func load(offset: Int64, length: Int32) throws -> JSONColumns {
        let record = try content(offset: offset, length: length)
        var columns = JSONColumns()
        _ = columns.load(try parse(record + [UInt8(ascii: "]")], offset: offset))
        return columns
    }

    private func parse(_ bytes: [UInt8], offset: Int64) throws -> JSONValue {
        do {
            return try parser.parse(PaddedBuffer(copying: bytes))
        } catch {
            throw FieldpackError.atByte(Int(offset), of: source.path, "the record is not valid JSON: \(error)")
        }
    }

    /// Emits `record` (without its source) with some columns replaced by raw JSON, and
    /// `appending` (raw JSON) after its columns.
    private mutating func rewrite(
        _ record: [UInt8], offset: Int64, replacing: [Int: [UInt8]], appending: [UInt8]? = nil
    ) throws {
        var columns = JSONColumns()
        _ = columns.load(try parse(record + [UInt8(ascii: "]")], offset: offset))
        var writer = JSONWriter()
        writer.beginArray()
        for index in 0..<columns.count {
            if let raw = replacing[index] { writer.raw(raw) } else if let value = columns[index] { writer.value(value) } else { writer.null() }
        }
        if let appending { writer.raw(appending) }
        writer.endArray()
        writer.newline()
        pending.append(contentsOf: writer.bytes)
    }

    /// The bytes of winners made and not yet handed over.
    var pendingCount: Int { pending.count }

    /// Adds to `photos` the photos that the records made since `start` (pending bytes, each a
    /// line) refer to: an observation's linked photos, a taxon's default photo and photo list,
    /// as the bundle reads them (`DedupeSelection.addPhotoReferences`).
    mutating func photoReferences(since start: Int, kind: RecordKind, into photos: inout [Int64]) throws {
        var lineStart = start
        while lineStart < pending.count {
            let end = pending[lineStart...].firstIndex(of: 0x0A) ?? pending.count
            var columns = JSONColumns()
            _ = columns.load(try parse(Array(pending[lineStart..<end]), offset: -1))
            DedupeSelection.addPhotoReferences(of: columns, kind: kind, to: &photos)
            lineStart = end + 1
        }
    }

    /// The winners made since the last call, handed over (the caller writes them in order).
    mutating func takePending() -> [UInt8] {
        let taken = pending
        pending.removeAll(keepingCapacity: true)
        return taken
    }

    /// Copies a winner that needs no filling straight from the read buffer.
    private mutating func emitDirect(offset: Int64, length: Int32) throws {
        try window.withBytes(at: Int(offset), length: Int(length)) { record in
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: record[0..<RecordSource.contentLength(record)]))
        }
        pending.append(UInt8(ascii: "]"))
        pending.append(0x0A)
    }

    /// The record at `offset` without its trailing `,"<source>"]`, and that source (`3:17`).
    private mutating func contentAndSource(offset: Int64, length: Int32) throws -> ([UInt8], String) {
        let record = try content(offset: offset, length: length)
        let count = Int(length)
        // `,"` after the content, `"]` at the end.
        let source = record.count + 2 <= count - 2 ? String(decoding: line[(record.count + 2)..<(count - 2)], as: UTF8.self) : ""
        return (record, source)
    }

    /// The record at `offset` without its trailing `,"<source>"]`.
    private mutating func content(offset: Int64, length: Int32) throws -> [UInt8] {
        let count = Int(length)
        if line.count < count { line = [UInt8](repeating: 0, count: count) }
        try window.withBytes(at: Int(offset), length: count) { record in
            line.withUnsafeMutableBytes { $0.copyMemory(from: record) }
        }
        let end = line.withUnsafeBytes { RecordSource.contentLength(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return Array(line[0..<end])
    }
}
