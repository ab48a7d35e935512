@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// The loader inserts the observations a few at a time while it waits for the photos' parse
/// (`ObservationOrder.insert(upTo:with:path:)`): each call goes on where the last stopped, in id
/// order, whether the rows were held in memory or spilled in many runs.
@Suite struct ObservationOrderTests {
    /// A table with the observations' columns, and an order holding `ids` (line = position + 1).
    private func held(_ ids: [Int64], in directory: TemporaryDirectory, runBytes: Int) throws -> (Database, ObservationOrder) {
        let database = try Database(path: directory.file("order.sqlite"))
        // No key: the rowid keeps the order the rows went in.
        try database.execute("CREATE TABLE observations (\(ObservationOrder.columns.joined(separator: ", ")))")
        let order = ObservationOrder(space: SortSpace(folder: directory.path, runBytes: runBytes))
        let batch = RecordBatch()
        for (index, id) in ids.enumerated() {
            batch.begin(.observations, line: index + 1)
            for column in ObservationOrder.columns {
                switch column {
                case "id": batch.int(id)
                case "uuid": batch.text("uuid-\(id)-\(index)")
                default: batch.int(nil)
                }
            }
            batch.int(Int64(index + 1))
        }
        for row in batch.rows { try order.add(batch, row) }
        return (database, order)
    }

    @Test(arguments: [ExternalSort<UInt8>.defaultRunBytes, 1])
    func observationsGoInAFewAtATimeEachCallGoingOnWhereTheLastStopped(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let ids: [Int64] = [42, 7, 19, 3, 88, 1, 56]
        let (database, order) = try held(ids, in: directory, runBytes: runBytes)
        let statement = try database.prepare(ObservationOrder.insertSQL)
        try order.endAdding()
        var counts: [Int64] = []
        var left = true
        while left {
            left = try order.insert(upTo: 3, with: statement, places: RecordPlaces(paths: ["deduped.jsonl"]))
            counts.append(try database.int("SELECT count(*) FROM observations") ?? -1)
        }
        #expect(counts == [3, 6, 7])
        let positions = ids.indices.sorted { ids[$0] < ids[$1] }
        #expect(try database.rows("SELECT id, uuid FROM observations ORDER BY rowid")
            == positions.map { ["\(ids[$0])", "uuid-\(ids[$0])-\($0)"] })
        // Nothing is left for the load's last call.
        try order.insert(with: statement, places: RecordPlaces(paths: ["deduped.jsonl"]))
        #expect(try database.int("SELECT count(*) FROM observations") == 7)
    }

    /// An id met twice is refused in whichever call meets it, naming both lines.
    @Test(arguments: [ExternalSort<UInt8>.defaultRunBytes, 1])
    func aRepeatedIdMetInALaterCallIsRefusedNamingBothLines(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let (database, order) = try held([5, 1, 9, 2, 9], in: directory, runBytes: runBytes)
        let statement = try database.prepare(ObservationOrder.insertSQL)
        try order.endAdding()
        #expect(try order.insert(upTo: 2, with: statement, places: RecordPlaces(paths: ["deduped.jsonl"])))
        let error = try #require(throws: FieldpackError.self) { try order.insert(upTo: 3, with: statement, places: RecordPlaces(paths: ["deduped.jsonl"])) }
        #expect(error.line == 5)
        #expect(error.message == "observation uuid-9-4 has the id 9 of observation uuid-9-2 (line 3): an id names one observation")
    }
}
