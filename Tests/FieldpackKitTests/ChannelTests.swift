import Dispatch
import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// The bounded hand-off between the bundle's parsing and inserting threads.
@Suite(.timeLimit(.minutes(1))) struct ChannelTests {
    struct Stop: Error, Equatable {}

    @Test func elementsArriveInOrderThenTheEnd() throws {
        let channel = Channel<Int>(capacity: 2)
        DispatchQueue.global().async {
            for value in 0..<100 { try? channel.send(value) }
            channel.finish()
        }
        var received: [Int] = []
        while let value = try channel.receive() { received.append(value) }
        #expect(received == Array(0..<100))
        #expect(try channel.receive() == nil)
    }

    @Test func aProducersErrorComesAfterWhatItSent() throws {
        let channel = Channel<Int>(capacity: 4)
        try channel.send(1)
        try channel.send(2)
        channel.fail(Stop())
        #expect(try channel.receive() == 1)
        #expect(try channel.receive() == 2)
        #expect(throws: Stop.self) { try channel.receive() }
    }

    /// What `receiveIfWaiting` found, as text: the element, "not yet" or "finished".
    private func polled(_ channel: Channel<Int>) throws -> String {
        switch try channel.receiveIfWaiting() {
        case .element(let value): "\(value)"
        case .notYet: "not yet"
        case .finished: "finished"
        }
    }

    /// The loader asks without waiting while it has observations to put in.
    @Test func aConsumerThatDoesNotWaitSeesNothingYetThenEachElementThenTheEnd() throws {
        let channel = Channel<Int>(capacity: 2)
        #expect(try polled(channel) == "not yet")
        try channel.send(1)
        try channel.send(2)
        #expect(try polled(channel) == "1")
        #expect(try polled(channel) == "2")
        #expect(try polled(channel) == "not yet")
        try channel.send(3)
        channel.finish()
        #expect(try polled(channel) == "3")
        #expect(try polled(channel) == "finished")
        #expect(try channel.receive() == nil)
    }

    @Test func aProducersErrorReachesAConsumerThatDoesNotWaitAfterWhatItSent() throws {
        let channel = Channel<Int>(capacity: 4)
        try channel.send(1)
        channel.fail(Stop())
        #expect(try polled(channel) == "1")
        #expect(throws: Stop.self) { try polled(channel) }
    }

    @Test func aClosedChannelIsFinishedForAConsumerThatDoesNotWait() throws {
        let channel = Channel<Int>(capacity: 4)
        try channel.send(1)
        channel.close()
        #expect(try polled(channel) == "finished")
    }

    @Test func theProducerWaitsOnceCapacityElementsAreWaiting() throws {
        let channel = Channel<Int>(capacity: 3)
        let sent = Counter()
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            for value in 0..<10 {
                guard (try? channel.send(value)) != nil else { return }
                sent.add()
            }
            channel.finish()
        }
        // Nobody receives: the producer gets exactly `capacity` elements in, then waits (given
        // time to run ahead, it does not).
        sent.wait(for: 3)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sent.value == 3)
        #expect(try channel.receive() == 0)
        sent.wait(for: 4)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(sent.value == 4)
        while try channel.receive() != nil {}
        done.wait()
        #expect(sent.value == 10)
    }

    @Test func aConsumerThatStopsReleasesABlockedProducer() throws {
        let channel = Channel<Int>(capacity: 1)
        let outcome = Box<String>()
        let sent = Counter()
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            do {
                for value in 0..<1000 {
                    try channel.send(value)
                    sent.add()
                }
                outcome.set("sent everything")
            } catch {
                outcome.set("\(error)")
            }
        }
        #expect(try channel.receive() == 0)
        // 0 taken and 1 waiting: the producer is (or is about to be) blocked sending 2.
        sent.wait(for: 2)
        Thread.sleep(forTimeInterval: 0.2)
        channel.close()
        // Without the close, the producer would wait forever.
        try #require(done.wait(timeout: .now() + 20) == .success, "the producer is still blocked")
        #expect(outcome.value == "the receiving side stopped")
        #expect(throws: Channel<Int>.Closed.self) { try channel.send(1) }
        #expect(try channel.receive() == nil)
    }

    @Test func aFailedInsertStopsTheParserAndNamesTheLineAndTheValues() throws {
        // The first taxon has no name (taxa.name is NOT NULL); tens of thousands follow, more than
        // the channel holds, so the parser is still sending when the insert fails.
        let directory = try TemporaryDirectory()
        var lines = [#"["taxon",1,"taxa",null,"species",10,null,null,null,null,true,null,[],null,null,1]"#]
        for id in 2...60_000 { lines.append(#"["taxon",\#(id),"taxa","Taxon \#(id)","species",10,null,null,null,null,true,null,[],null,null,1]"#) }
        let input = try directory.write("deduped.jsonl", lines.joined(separator: "\n") + "\n")
        let options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        // On its own thread: if the parser stayed blocked, the build would never return.
        let outcome = Box<Result<BundleBuilder.Summary, Error>>()
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) { outcome.set(Result { try BundleBuilder(options: options).run() }) }
        try #require(done.wait(timeout: .now() + 60) == .success, "the build did not return")
        let result = try #require(outcome.value)
        let error = try #require(throws: FieldpackError.self) { try result.get() }
        #expect(error.path == input)
        #expect(error.line == 1)
        #expect(error.message.hasPrefix("SQLite 1299: NOT NULL constraint failed: taxa.name, binding (1, NULL, 'species', 10.0, "))
        #expect(error.message.contains("INSERT INTO taxa (id, name, rank, rank_level, ancestry"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("content.sqlite")))
    }
}

/// A count shared between threads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }

    /// Waits until the count reaches `target` (the suite's time limit stops a wait that never ends).
    func wait(for target: Int) {
        while value < target { Thread.sleep(forTimeInterval: 0.01) }
    }
}

/// A value shared between threads.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T? = nil
    func set(_ value: T) { lock.withLock { stored = value } }
    var value: T? { lock.withLock { stored } }
}
