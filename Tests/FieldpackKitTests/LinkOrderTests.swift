@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// The loader's photo links (`LinkOrder`): a link after every link inserted so far goes in as it
/// comes; any other is held and goes in with the others held, in key order, after the last.
@Suite struct LinkOrderTests {
    /// A table with the links' columns and no key (the rowid keeps the order rows went in), and
    /// `links` (observation, photo) added in turn, line = position + 1.
    private func added(
        _ links: [(Int64, Int64)], in directory: TemporaryDirectory, runBytes: Int, table: String = "observation_photos (observation_id, photo_id, position)"
    ) throws -> (Database, Statement, LinkOrder) {
        let database = try Database(path: directory.file("links.sqlite"))
        try database.execute("CREATE TABLE \(table)")
        let statement = try database.prepare(RecordBatch.Table.observationPhotos.sql)
        let order = LinkOrder(space: SortSpace(folder: directory.path, runBytes: runBytes))
        let batch = RecordBatch()
        for (index, link) in links.enumerated() {
            batch.begin(.observationPhotos, line: index + 1)
            batch.int(link.0)
            batch.int(link.1)
            batch.int(Int64(index))
        }
        for row in batch.rows { try order.add(batch, row, with: statement, places: RecordPlaces(paths: ["deduped.jsonl"])) }
        return (database, statement, order)
    }

    private func inserted(_ database: Database) throws -> [[String]] {
        try database.rows("SELECT observation_id, photo_id FROM observation_photos ORDER BY rowid").map { $0.map { $0 ?? "null" } }
    }

    @Test(arguments: [ExternalSort<UInt8>.defaultRunBytes, 1])
    func linksInKeyOrderGoInAsTheyComeAndTheOthersAfterInKeyOrder(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let (database, statement, order) = try added(
            [(5, 1), (6, 1), (2, 1), (6, 3), (7, 1), (1, 1), (3, 2), (6, 2), (3, 1)], in: directory, runBytes: runBytes)
        // As they came: each after every one before it.
        #expect(try inserted(database) == [["5", "1"], ["6", "1"], ["6", "3"], ["7", "1"]])
        #expect(order.insertedAsTheyCame == 4)
        #expect(order.heldCount == 5)
        try order.insertHeld(with: statement, places: RecordPlaces(paths: ["deduped.jsonl"]))
        #expect(try inserted(database) == [
            ["5", "1"], ["6", "1"], ["6", "3"], ["7", "1"],
            ["1", "1"], ["2", "1"], ["3", "1"], ["3", "2"], ["6", "2"],
        ])
        // Each row kept its own position.
        #expect(try database.rows("SELECT position FROM observation_photos WHERE observation_id = 3 ORDER BY photo_id") == [["8"], ["6"]])
    }

    @Test func linksInRandomOrderGoInAsOneSweepInKeyOrderThroughSpilledRuns() throws {
        let directory = try TemporaryDirectory()
        var random = SortInPlaceTests.SplitMix64(state: 3)
        var links: [(Int64, Int64)] = (0..<5_000).map { _ in (Int64(random.next() % 1_000), Int64(random.next() % 1_000_000)) }
        // The first link is the largest key: every other is held.
        links.insert((2_000, 0), at: 0)
        // One link per key: the table's key would refuse a second.
        var seen = Set<[Int64]>()
        links = links.filter { seen.insert([$0.0, $0.1]).inserted }
        let (database, statement, order) = try added(links, in: directory, runBytes: 64 * MemoryLayout<LinkOrder.Entry>.stride)
        #expect(order.insertedAsTheyCame == 1)
        try order.insertHeld(with: statement, places: RecordPlaces(paths: ["deduped.jsonl"]))
        let rows = try inserted(database).map { (Int64($0[0])!, Int64($0[1])!) }
        #expect(rows.count == links.count)
        #expect(rows.first! == (2_000, 0))
        let held = Array(rows.dropFirst())
        #expect(zip(held, held.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test(arguments: [ExternalSort<UInt8>.defaultRunBytes, 1])
    func aLinkHeldTwiceIsRefusedNamingItsLineAndValues(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let (database, statement, order) = try added(
            [(9, 9), (4, 2), (1, 1), (4, 2)], in: directory, runBytes: runBytes,
            table: "observation_photos (observation_id, photo_id, position, PRIMARY KEY (observation_id, photo_id)) WITHOUT ROWID")
        let error = try #require(throws: FieldpackError.self) { try order.insertHeld(with: statement, places: RecordPlaces(paths: ["deduped.jsonl"])) }
        withExtendedLifetime(database) {}
        #expect(error.path == "deduped.jsonl")
        #expect(error.line == 4)
        #expect(error.message.contains("UNIQUE constraint failed"), "\(error.message)")
        #expect(error.message.contains("binding (4, 2, 3)"), "\(error.message)")
    }
}
