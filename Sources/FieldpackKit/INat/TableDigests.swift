import Dispatch
import Synchronization

/// The whole-file digests an unsharded ingest owes the tables it reads in byte ranges (each
/// table's `input` record names its SHA-256, which no range can take alone): taken one after
/// another on a thread of their own from the start of the run, beside the pruning plan and the
/// reading. A worker used to take each after the chunk of the table's first range, and the other
/// workers, once they were the sink's window ahead of it, waited for it (on the benchmark's 1M
/// export, most of the reading's time once its rows came from the plan, `ExportRowFates`).
///
/// `wait` gives the digests by unit index, or the first failure to take one (which fails the
/// run once every worker is done, never before). `stop` ends the thread at its next read (a run
/// that failed); the object must be stopped or waited for before it goes away.
final class TableDigests: Sendable {
    private struct Taken {
        var digests: [Int: (digest: String, bytes: Int)] = [:]
        var failure: FieldpackError? = nil
    }

    private let taken = Mutex(Taken())
    private let going = Atomic<Bool>(true)
    private let done = DispatchGroup()

    /// Starts hashing `tables` (unit index, path), in order.
    init(_ tables: [(unit: Int, path: String)]) {
        guard !tables.isEmpty else { return }
        done.enter()
        DispatchQueue.global().async { [self] in
            defer { done.leave() }
            for (unit, path) in tables {
                do {
                    guard let digest = try SHA256.hex(ofFile: path, while: { going.load(ordering: .relaxed) }) else { return }
                    taken.withLock { $0.digests[unit] = digest }
                } catch {
                    let failure = error as? FieldpackError ?? FieldpackError(path: path, "\(error)")
                    taken.withLock { $0.failure = $0.failure ?? failure }
                    return
                }
            }
        }
    }

    /// Waits for every digest.
    ///
    /// - Throws: the first failure to take one.
    func wait() throws -> [Int: (digest: String, bytes: Int)] {
        done.wait()
        return try taken.withLock { taken in
            if let failure = taken.failure { throw failure }
            return taken.digests
        }
    }

    /// Stops the hashing at its next read, and waits for it.
    func stop() {
        going.store(false, ordering: .relaxed)
        done.wait()
    }
}
