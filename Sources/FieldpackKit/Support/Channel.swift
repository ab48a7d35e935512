/// A bounded hand-off of elements between threads, in order, that either side can stop.
///
/// The producer `send`s and then `finish`es (or `fail`s with its error); the consumer
/// `receive`s until nil. A consumer that stops early `close`s the channel: a producer blocked
/// in `send`, or sending later, gets `Channel.Closed` instead of waiting forever. Use it for
/// coarse work (batches of thousands of rows), not per row. Thread-safe.
package final class Channel<Element>: @unchecked Sendable {
    /// Thrown by `send` once the consumer has closed the channel.
    package struct Closed: Error, CustomStringConvertible {
        package var description: String { "the receiving side stopped" }
    }

    private let lock = ConditionLock()
    /// At most `capacity` elements: removing the first is cheap.
    private var queue: [Element] = []
    private var finished = false
    private var closed = false
    private var failure: Error? = nil
    package let capacity: Int

    package init(capacity: Int) {
        precondition(capacity > 0, "a channel holds at least one element")
        self.capacity = capacity
    }

    /// Hands `element` over, waiting while `capacity` elements are waiting.
    ///
    /// - Throws: `Closed` if the consumer closed the channel (the element is dropped).
    package func send(_ element: Element) throws(Closed) {
        let accepted = lock.withLock {
            while queue.count >= capacity && !closed { lock.wait() }
            guard !closed else { return false }
            queue.append(element)
            lock.broadcast()
            return true
        }
        if !accepted { throw Closed() }
    }

    /// Hands `element` over if fewer than `capacity` elements are waiting; never waits.
    /// Whether it was taken (not when full, closed or finished).
    @discardableResult
    package func offer(_ element: Element) -> Bool {
        lock.withLock {
            guard queue.count < capacity && !closed && !finished else { return false }
            queue.append(element)
            lock.broadcast()
            return true
        }
    }

    /// The producer is done: `receive` returns nil once the elements sent are taken.
    package func finish() {
        lock.withLock {
            finished = true
            lock.broadcast()
        }
    }

    /// The producer failed: `receive` throws `error` once the elements sent are taken.
    package func fail(_ error: Error) {
        lock.withLock {
            if failure == nil { failure = error }
            finished = true
            lock.broadcast()
        }
    }

    /// The consumer stops: pending and later sends throw `Closed`; what was queued is dropped.
    package func close() {
        lock.withLock {
            closed = true
            queue.removeAll()
            lock.broadcast()
        }
    }

    /// What `receiveIfWaiting` found.
    package enum Polled {
        /// The next element.
        case element(Element)
        /// None yet: the producer has not sent the next one.
        case notYet
        /// None any more: the producer has finished and every element was taken (or the channel
        /// is closed).
        case finished
    }

    /// The next element if one is waiting, without waiting for one: so a consumer can do other
    /// work while the producer is busy.
    ///
    /// - Throws: the producer's error, after the elements it sent before failing.
    package func receiveIfWaiting() throws -> Polled {
        try lock.withLock { try takeLocked() }
    }

    /// The next element, the end or none yet, as `receiveIfWaiting` says; called with the lock held.
    private func takeLocked() throws -> Polled {
        if !queue.isEmpty {
            let element = queue.removeFirst()
            lock.broadcast()
            return .element(element)
        }
        if closed { return .finished }
        if let failure { throw failure }
        return finished ? .finished : .notYet
    }

    /// The next element, waiting for one; nil once the producer has finished and every element
    /// was taken (or once the channel is closed).
    ///
    /// - Throws: the producer's error, after the elements it sent before failing.
    package func receive() throws -> Element? {
        try lock.withLock { () throws -> Element? in
            while queue.isEmpty && !finished && !closed { lock.wait() }
            // After the wait an element is waiting or none will come: never "not yet".
            guard case .element(let element) = try takeLocked() else { return nil }
            return element
        }
    }
}
