import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Rows for the bundle tables, copied out of the JSON parser so that one thread can parse the
/// deduped records while another inserts them (the two halves of the load then overlap).
final class RecordBatch {
    enum Table: UInt8 {
        case users, photos, taxa, observations, observationPhotos, taxonPhotos
        /// `UPDATE taxa SET default_photo_id = ?, hero_photo_id = ? WHERE id = ?`, once the
        /// photos are decided.
        case taxonPhotoChoice
        case displayTargets, sizeCosts
    }

    struct Value {
        /// 0 null, 1 integer, 2 real, 3 text (`payload` = arena offset).
        var tag: UInt8
        var payload: Int64
        var length: Int32
    }

    struct Row {
        var table: Table
        var first: Int32
        var count: Int32
    }

    var arena: [UInt8] = []
    var values: [Value] = []
    var rows: [Row] = []
    var records = 0
    var newestSeen: Int64? = nil
    var inputs: [(path: String, bytes: Int64, sha256: String)] = []
    /// On the last batch: what the photos cost (see `PhotoShippingLoad`).
    var report: CostReport? = nil

    init() {
        arena.reserveCapacity(1 << 20)
        values.reserveCapacity(1 << 16)
        rows.reserveCapacity(1 << 13)
    }

    func begin(_ table: Table) {
        rows.append(Row(table: table, first: Int32(values.count), count: 0))
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

    /// Binds row `row`'s values to `statement` (parameters 1…n).
    func bind(_ row: Row, to statement: Statement) throws {
        try arena.withUnsafeBytes { arena in
            for index in 0..<Int(row.count) {
                let value = values[Int(row.first) + index]
                switch value.tag {
                case 1: try statement.bind(value.payload, at: index + 1)
                case 2: try statement.bind(Double(bitPattern: UInt64(bitPattern: value.payload)), at: index + 1)
                case 3:
                    try statement.bind(
                        bytes: UnsafeRawBufferPointer(rebasing: arena[Int(value.payload)..<(Int(value.payload) + Int(value.length))]),
                        at: index + 1)
                default: try statement.bindNull(index + 1)
                }
            }
        }
    }
}

/// Fills batches for the inserting thread, handing each over once it holds `rowsPerBatch` rows.
final class BatchStream {
    static let rowsPerBatch = 8192
    let channel: BatchChannel
    private(set) var batch = RecordBatch()

    init(channel: BatchChannel) {
        self.channel = channel
    }

    /// Starts a row of `table`, in a fresh batch if the current one is full; returns the batch
    /// to add the row's values to.
    func begin(_ table: RecordBatch.Table) -> RecordBatch {
        if batch.rows.count >= Self.rowsPerBatch {
            channel.send(batch)
            batch = RecordBatch()
        }
        batch.begin(table)
        return batch
    }

    /// Sends the last batch, carrying `report`, and the end.
    func finish(report: CostReport) {
        batch.report = report
        channel.send(batch)
        channel.send(nil)
    }
}

/// A bounded hand-off between one producer and one consumer thread.
final class BatchChannel: @unchecked Sendable {
    private var queue: [RecordBatch?] = []
    private var failure: Error? = nil
    private var lock = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&lock)
    }

    /// Sends a batch (nil = end), waiting while the channel is full.
    func send(_ batch: RecordBatch?) {
        pthread_mutex_lock(&lock)
        while queue.count >= capacity { pthread_cond_wait(&changed, &lock) }
        queue.append(batch)
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
    }

    func fail(_ error: Error) {
        pthread_mutex_lock(&lock)
        failure = error
        queue.append(nil)
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
    }

    /// The next batch; nil at the end. Rethrows the producer's error.
    func receive() throws -> RecordBatch? {
        pthread_mutex_lock(&lock)
        while queue.isEmpty { pthread_cond_wait(&changed, &lock) }
        let batch = queue.removeFirst()
        let error = failure
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
        if batch == nil, let error { throw error }
        return batch
    }
}
