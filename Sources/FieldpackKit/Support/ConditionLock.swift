#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable, for state that threads wait on (a full or empty channel,
/// a window of work). Both live on the heap, allocated once, so their addresses never move (a
/// `pthread_mutex_t` stored as a Swift property has no stable address). For state nobody waits
/// on, use `Synchronization.Mutex`.
final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the lock until another thread broadcasts, then takes it again. Only call inside
    /// `withLock`, in a loop that re-checks what it waits for.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes every waiting thread. Call holding the lock.
    func broadcast() {
        pthread_cond_broadcast(condition)
    }
}
