#if canImport(Glibc)
import Glibc
#endif

/// One input file's records: in memory, or spilled to a temp file once they outgrow `limit`
/// (a multi-GB JSON Lines dump must not be held in memory).
final class PartBuffer {
    private(set) var memory: ByteBuffer? = nil
    private(set) var spill: AtomicOutput? = nil
    let spillPath: String
    static let limit = 64 << 20

    init(spillPath: String) {
        self.spillPath = spillPath
    }

    /// Moves what the writer holds to the spill file (created on first use).
    func spill(_ writer: inout JSONWriter) throws {
        if spill == nil { spill = try AtomicOutput(path: spillPath) }
        try spill!.write(writer.buffer.bytes)
        writer.reset()
    }

    /// Takes the writer's bytes as the part's (in memory, or appended to the spill file).
    func finish(_ writer: inout JSONWriter) throws {
        if spill != nil {
            try spill(&writer)
            try spill!.commit(durable: false)
        } else {
            memory = writer.take(capacity: 1 << 20)
        }
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
                if let memory = next.part.memory {
                    try output.write(memory.bytes)
                } else if next.part.spill != nil {
                    try output.append(contentsOf: next.part.spillPath)
                    FileSystem.remove(next.part.spillPath)
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
