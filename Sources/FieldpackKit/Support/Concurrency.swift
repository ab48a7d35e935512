/// Per-task results (or errors) of tasks run side by side.
final class Results<T>: @unchecked Sendable {
    // Not `Synchronization.Mutex`: its `sending` rules refuse a non-Sendable `T`. Nobody waits
    // on it; `ConditionLock` serves as a plain lock at a stable address.
    private let lock = ConditionLock()
    private var slots: [Result<T, Error>?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func record(_ task: Int, _ body: () throws -> T) {
        let outcome: Result<T, Error>
        do { outcome = .success(try body()) } catch { outcome = .failure(error) }
        lock.withLock { slots[task] = outcome }
    }

    /// Every task's value in task order; the first error (in task order) if any failed.
    func values() throws -> [T] {
        let all = lock.withLock { slots }
        return try all.map { slot in
            guard let slot else { throw FieldpackError("internal error: a task did not finish") }
            return try slot.get()
        }
    }
}

/// Hands a value to worker threads that only read it (or, for outputs, each use their own).
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
