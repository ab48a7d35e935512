import Dispatch

/// Rows for the bundle tables, copied out of the JSON parser so that one thread can parse the
/// deduped records while another inserts them (the two halves of the load then overlap).
final class RecordBatch {
    /// The statements rows go to. The record tables' INSERTs are generated from the records'
    /// column tables (see `RecordColumnSet`); a row binds exactly the statement's parameters.
    enum Table: UInt8, CaseIterable {
        case users, photos, taxa, observations, observationPhotos, taxonPhotos
        /// The default and hero photo of a taxon, once the photos are decided.
        case taxonPhotoChoice
        case displayTargets, sizeCosts

        var sql: String {
            switch self {
            case .users: UserRecord.Column.insertSQL(into: "users")
            case .photos: PhotoRecord.Column.insertSQL(into: "photos", extra: PhotoShippingLoad.derivedPhotoColumns)
            case .taxa: TaxonRecord.Column.insertSQL(into: "taxa", extra: ["article_id"])
            case .observations: ObservationOrder.insertSQL  // held, and run in id order once the last has come
            case .observationPhotos: SQLText.insert(into: "observation_photos", columns: ["observation_id", "photo_id", "position"])
            case .taxonPhotos: SQLText.insert(into: "taxon_photos", columns: ["taxon_id", "position", "photo_id"])
            case .taxonPhotoChoice: "UPDATE taxa SET default_photo_id = ?, hero_photo_id = ? WHERE id = ?"
            case .displayTargets:
                SQLText.insert(
                    into: "display_targets",
                    columns: ["id", "name", "width_points", "height_points", "scale", "mode", "box_width", "box_height"])
            case .sizeCosts:
                SQLText.insert(
                    into: "size_costs",
                    columns: [
                        "remote", "original_width", "original_height", "target_id", "tier", "served_width", "served_height",
                        "display_width", "display_height", "decoded_bytes", "transient_bytes", "download_bytes", "upscaled",
                        "assumed_dimensions",
                    ])
            }
        }
    }

    struct Value {
        /// 0 null, 1 integer, 2 real, 3 text (`payload` = arena offset).
        var tag: UInt8
        var payload: Int64
        var length: Int32
    }

    struct Row {
        var table: Table
        /// The deduped records line the row comes from (0: none, e.g. display targets).
        var line: Int32
        var first: Int32
        var count: Int32
    }

    // Appended to for every value of every row: unchecked at run time, like `ByteBuffer`'s
    // storage (the checks were the parsing thread's largest cost after simdjson). Nothing takes
    // an `inout` to them across a call, so accesses cannot overlap.
    @exclusivity(unchecked) var arena: [UInt8] = []
    @exclusivity(unchecked) var values: [Value] = []
    @exclusivity(unchecked) var rows: [Row] = []
    var records = 0
    var newestSeen: Int64? = nil
    var inputs: [DedupedInputRecord] = []
    /// On the last batch: what the photos cost (see `PhotoShippingLoad`).
    var report: CostReport? = nil
    /// On the last batch: the export observations' missing parents (`ExportObservationRules`).
    var missingParents: MissingParents? = nil
    /// On the last batch, with a selection: what its observation rules removed during the load.
    var selected: SelectionCounts? = nil
    /// Whether every observation was in this batch or an earlier one: no observations row follows.
    var observationsEnded = false

    init() {
        arena.reserveCapacity(1 << 20)
        values.reserveCapacity(1 << 16)
        rows.reserveCapacity(1 << 13)
    }

    /// Empties the batch for another fill, keeping its storage: a fresh batch's megabyte of
    /// storage came from newly mapped pages each time (the page faults and their zeroing were
    /// about 6% of the parsing thread's time while it parsed the observations).
    func reset() {
        arena.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        records = 0
        newestSeen = nil
        inputs = []
        report = nil
        missingParents = nil
        selected = nil
        observationsEnded = false
    }

    func begin(_ table: Table, line: Int) {
        rows.append(Row(table: table, line: Int32(clamping: line), first: Int32(values.count), count: 0))
    }

    @inline(__always)
    private func add(_ value: Value) {
        values.append(value)
        rows[rows.count - 1].count += 1
    }

    func int(_ value: Int64?) {
        add(value.map { Value(tag: 1, payload: $0, length: 0) } ?? Value(tag: 0, payload: 0, length: 0))
    }

    func real(_ value: Double?) {
        add(value.map { Value(tag: 2, payload: Int64(bitPattern: $0.bitPattern), length: 0) } ?? Value(tag: 0, payload: 0, length: 0))
    }

    func text(_ value: JSONText?) {
        guard let value else { return add(Value(tag: 0, payload: 0, length: 0)) }
        let offset = arena.count
        arena.append(contentsOf: value.bytes)
        add(Value(tag: 3, payload: Int64(offset), length: Int32(value.count)))
    }

    func text(_ value: String?) {
        guard var value else { return add(Value(tag: 0, payload: 0, length: 0)) }
        let offset = arena.count
        value.withUTF8 { arena.append(contentsOf: $0) }
        add(Value(tag: 3, payload: Int64(offset), length: Int32(arena.count - offset)))
    }

    func bool(_ value: Bool?) { int(value.map { $0 ? 1 : 0 }) }

    /// Adds `columns` of `record`, each as its column table says.
    func add<C: RecordColumnSet>(_ columns: [C], from record: JSONColumns) {
        for column in columns { add(column, from: record) }
    }

    /// Adds `column` of `record`, as its column table says.
    @inline(__always)
    func add<C: RecordColumnSet>(_ column: C, from record: JSONColumns) {
        switch column.spec.value {
        case .integer: int(record.int64(column))
        case .real: real(record.double(column))
        case .text: text(record.text(column))
        case .bool: bool(record.bool(column))
        case .list: preconditionFailure("a list column has no bundle column")
        }
    }

    /// The row's values (for error messages).
    func values(of row: Row) -> [SQLValue] {
        (0..<Int(row.count)).map { index in
            let value = values[Int(row.first) + index]
            switch value.tag {
            case 1: return .integer(value.payload)
            case 2: return .real(Double(bitPattern: UInt64(bitPattern: value.payload)))
            case 3:
                let start = Int(value.payload)
                return .text(String(decoding: arena[start..<(start + Int(value.length))], as: UTF8.self))
            default: return .null
            }
        }
    }

    /// Runs `statement` with row `row`'s values (parameters 1…n). Texts are bound where the
    /// arena holds them, not copied (`Statement.bind(borrowing:at:)`): the statement runs, and
    /// its bindings are cleared, while the arena's bytes are in reach.
    func run(_ row: Row, with statement: Statement) throws {
        precondition(Int(row.count) == statement.parameterCount, "a \(row.table) row binds \(row.count) of \(statement.parameterCount) parameters")
        try arena.withUnsafeBytes { arena in
            try statement.run {
                for index in 0..<Int(row.count) {
                    let value = values[Int(row.first) + index]
                    switch value.tag {
                    case 1: try statement.bind(value.payload, at: index + 1)
                    case 2: try statement.bind(Double(bitPattern: UInt64(bitPattern: value.payload)), at: index + 1)
                    case 3:
                        try statement.bind(
                            borrowing: UnsafeRawBufferPointer(rebasing: arena[Int(value.payload)..<(Int(value.payload) + Int(value.length))]),
                            at: index + 1)
                    default: try statement.bindNull(index + 1)
                    }
                }
            }
        }
    }
}

/// Fills batches for the inserting thread, handing each over once it holds `rowsPerBatch` rows.
final class BatchStream {
    static let rowsPerBatch = 8192
    let channel: Channel<RecordBatch>
    /// Batches the inserting side has emptied (`RecordBatch.reset`), filled again before a new
    /// one is made; nil: always a new one.
    let emptied: Channel<RecordBatch>?
    private(set) var batch = RecordBatch()

    init(channel: Channel<RecordBatch>, emptied: Channel<RecordBatch>? = nil) {
        self.channel = channel
        self.emptied = emptied
    }

    /// An emptied batch if one is waiting, else a new one.
    private func nextBatch() -> RecordBatch {
        if let emptied, case .element(let batch)? = try? emptied.receiveIfWaiting() { return batch }
        return RecordBatch()
    }

    /// Starts a row of `table`, in a fresh batch if the current one is full; returns the batch
    /// to add the row's values to.
    ///
    /// - Throws: `Channel.Closed` once the inserting side has stopped.
    func begin(_ table: RecordBatch.Table, line: Int) throws -> RecordBatch {
        if batch.rows.count >= Self.rowsPerBatch {
            try channel.send(batch)
            batch = nextBatch()
        }
        batch.begin(table, line: line)
        return batch
    }

    /// No observations row follows: sends the batch now, marked so (`RecordBatch.observationsEnded`),
    /// so that the inserting side can put the observations in while the rest is parsed.
    func endObservations() throws {
        batch.observationsEnded = true
        try channel.send(batch)
        batch = nextBatch()
    }

    /// Sends the last batch, carrying `report`, `missingParents` and `selected`, and the end.
    func finish(report: CostReport, missingParents: MissingParents, selected: SelectionCounts? = nil) throws {
        batch.report = report
        batch.missingParents = missingParents
        batch.selected = selected
        try channel.send(batch)
        channel.finish()
    }
}
