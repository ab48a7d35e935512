#if canImport(Glibc)
import Glibc
#endif

/// One input file's records: in memory, or spilled to a temp file once they outgrow `limit`
/// (a multi-GB JSON Lines dump must not be held in memory).
final class PartBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var spill: AtomicOutput? = nil
    let spillPath: String
    let limit: Int

    init(spillPath: String, limit: Int = 64 << 20) {
        self.spillPath = spillPath
        self.limit = limit
    }

    func write(_ chunk: [UInt8]) throws {
        if let spill {
            try spill.write(chunk)
            return
        }
        bytes.append(contentsOf: chunk)
        if bytes.count > limit {
            let file = try AtomicOutput(path: spillPath)
            try file.write(bytes)
            bytes = []
            spill = file
        }
    }

    /// Finishes a spilled part so it can be copied; returns its path.
    func finish() throws -> String? {
        guard let spill else { return nil }
        try spill.commit(durable: false)
        return spillPath
    }
}

/// Joins the workers' parts into the output in input order, as soon as each next part is ready,
/// and keeps workers from running more than `window` files ahead of the writer, so memory stays
/// bounded whatever the number of inputs. Lock-protected.
final class OrderedSink: @unchecked Sendable {
    private let output: AtomicOutput
    private let count: Int
    private let window: Int
    private var nextClaim = 0
    private var nextWrite = 0
    private var ready: [Int: (header: [UInt8], part: PartBuffer)] = [:]
    private(set) var results: [FileIngest.Result?]
    private(set) var failure: (index: Int, error: FieldpackError)? = nil
    private var lock = pthread_mutex_t()
    private var advanced = pthread_cond_t()

    init(output: AtomicOutput, count: Int, window: Int) {
        self.output = output
        self.count = count
        self.window = window
        results = Array(repeating: nil, count: count)
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&advanced, nil)
    }

    deinit {
        pthread_cond_destroy(&advanced)
        pthread_mutex_destroy(&lock)
    }

    /// The next file index to process, or nil when all are taken (or a file failed).
    func claim() -> Int? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while nextClaim < count && failure == nil && nextClaim >= nextWrite + window {
            pthread_cond_wait(&advanced, &lock)
        }
        guard nextClaim < count, failure == nil else { return nil }
        nextClaim += 1
        return nextClaim - 1
    }

    /// Hands in a finished file; writes every part that is now next in order.
    func submit(_ index: Int, result: FileIngest.Result, header: [UInt8], part: PartBuffer) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        results[index] = result
        ready[index] = (header, part)
        while failure == nil, let next = ready.removeValue(forKey: nextWrite) {
            do {
                try output.write(next.header)
                if let spilled = try next.part.finish() {
                    try output.append(contentsOf: spilled)
                    FileSystem.remove(spilled)
                } else {
                    try output.write(next.part.bytes)
                }
            } catch let error as FieldpackError {
                failure = (nextWrite, error)
            } catch {
                failure = (nextWrite, FieldpackError("\(error)"))
            }
            nextWrite += 1
        }
        pthread_cond_broadcast(&advanced)
    }

    func fail(_ index: Int, _ error: FieldpackError) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if failure == nil || index < failure!.index { failure = (index, error) }
        pthread_cond_broadcast(&advanced)
    }
}
