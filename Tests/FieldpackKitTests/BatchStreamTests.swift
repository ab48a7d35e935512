@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// The load's batches go back to the parsing thread once inserted (`BatchStream`'s emptied
/// channel): a batch filled again carries nothing of what it held before.
@Suite struct BatchStreamTests {
    @Test func aBatchFilledAgainHoldsOnlyItsNewRows() throws {
        let channel = Channel<RecordBatch>(capacity: 8)
        let emptied = Channel<RecordBatch>(capacity: 1)
        let stream = BatchStream(channel: channel, emptied: emptied)
        // A batch with a row of each kind of value, and every field the last batch carries.
        let first = try stream.begin(.users, line: 7)
        first.int(42)
        first.text("kestrel" as String?)
        first.real(1.5)
        first.int(nil)
        first.records = 3
        first.newestSeen = 99
        first.inputs = [DedupedInputRecord(path: "a.json", bytes: 1, sha256: "x", format: "json")]
        first.selected = SelectionCounts()
        first.missingParents = MissingParents()
        first.report = CostReport(policy: ShippingPolicy())
        try stream.endObservations()
        let sent = try #require(try channel.receive())
        #expect(sent === first)
        #expect(sent.observationsEnded)
        // Emptied by the inserting side and offered back: the next batch after this one is it.
        sent.reset()
        #expect(emptied.offer(sent))
        #expect(!emptied.offer(RecordBatch()), "one spare at a time")
        for _ in 0..<BatchStream.rowsPerBatch { _ = try stream.begin(.taxa, line: 1) }
        let again = try stream.begin(.photos, line: 9)
        #expect(again === first)
        again.int(5)
        #expect(again.rows.count == 1)
        #expect(again.values.count == 1)
        #expect(again.values(of: again.rows[0]) == [.integer(5)])
        #expect(again.arena.isEmpty)
        #expect(again.records == 0 && again.newestSeen == nil && again.inputs.isEmpty)
        #expect(again.report == nil && again.missingParents == nil && again.selected == nil)
        #expect(!again.observationsEnded)
    }
}
