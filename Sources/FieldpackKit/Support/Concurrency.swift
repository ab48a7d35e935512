import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Per-task results (or errors) of tasks run side by side; lock-protected.
final class Results<T>: @unchecked Sendable {
    private var slots: [Result<T, Error>?]
    private var lock = pthread_mutex_t()

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
        pthread_mutex_init(&lock, nil)
    }

    deinit { pthread_mutex_destroy(&lock) }

    func record(_ task: Int, _ body: () throws -> T) {
        let outcome: Result<T, Error>
        do { outcome = .success(try body()) } catch { outcome = .failure(error) }
        pthread_mutex_lock(&lock)
        slots[task] = outcome
        pthread_mutex_unlock(&lock)
    }

    /// Every task's value in task order; the first error (in task order) if any failed.
    func values() throws -> [T] {
        try slots.map { slot in
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
