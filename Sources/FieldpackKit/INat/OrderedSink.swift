#if canImport(Glibc)
import Glibc
#endif

/// Where ingest's records go: one records file (an unsharded run), or a sharded run's parts
/// (`PartitionedOutput`).
protocol RecordsOutput: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
    func append(contentsOf path: String) throws
    /// A temp path beside the output, for names of scratch files derived from it.
    var temporaryPath: String { get }
    func commit(durable: Bool) throws
}

extension AtomicOutput: RecordsOutput {}
extension PartitionedOutput: RecordsOutput {}

/// One input file's records: in memory, or spilled to a temp file once they outgrow `limit`
/// (a multi-GB JSON Lines dump must not be held in memory, nor the records of the export's
/// `.tar.gz`, one unit however large). 16 MiB: at 64 MiB the buffer doubled to 128 MiB before it
/// spilled, and ingest of the benchmark's 10M export as one `.tar.gz` peaked at 164 MB instead of
/// 65 MB (62 MB at 1M either way; the same records; by hand, 2026-12-05). A range of an export
/// table (4 MiB of rows) or a page of the API never reaches it.
final class PartBuffer {
    private(set) var memory: ByteBuffer? = nil
    private(set) var spill: AtomicOutput? = nil
    /// Bytes moved to the spill file so far.
    private(set) var spilled = 0
    let spillPath: String
    static let limit = 16 << 20
    /// The largest buffer kept for reuse once its part is written (`OrderedSink`): a larger one
    /// is freed, so that a few large parts do not stay held as spares for the rest of the run.
    static let spareCapacity = 16 << 20

    init(spillPath: String) {
        self.spillPath = spillPath
    }

    /// Drops the in-memory bytes once written (the buffer may live on, reused).
    func release() { memory = nil }

    /// Moves what the writer holds to the spill file (created on first use).
    func spill(_ writer: inout JSONWriter) throws {
        if spill == nil { spill = try AtomicOutput(path: spillPath) }
        spilled += writer.count
        try spill!.write(writer.buffer.bytes)
        writer.reset()
    }

    /// Takes the writer's bytes as the part's (in memory, or appended to the spill file); the
    /// writer goes on in `replacement`, a buffer already written out (no fresh pages to fault in).
    func finish(_ writer: inout JSONWriter, replacement: ByteBuffer?) throws {
        if spill != nil {
            try spill(&writer)
            Leftovers.register(spillPath)
            try spill!.commit(durable: false)
        } else {
            memory = writer.take(replacement: replacement, capacity: 1 << 20)
        }
    }

    /// Like `finish`, but copies the bytes into a buffer of their size and leaves the writer its
    /// own buffer: for the rejects, a few KB per chunk, where a fresh 1 MiB buffer per chunk
    /// was allocated and faulted in only to hold them.
    func finishCopying(_ writer: inout JSONWriter) throws {
        if spill != nil {
            try finish(&writer, replacement: nil)
            return
        }
        let copy = ByteBuffer(capacity: writer.count)
        copy.append(writer.buffer.bytes)
        memory = copy
        writer.reset()
    }
}

/// Joins the workers' parts into the output in input order, as soon as each next part is ready,
/// and keeps workers from running more than `window` chunks ahead of the writer, so memory stays
/// bounded whatever the number of inputs. Lock-protected.
final class OrderedSink: @unchecked Sendable {
    private let output: any RecordsOutput
    private let rejects: AtomicOutput
    private let count: Int
    private let window: Int
    private var nextClaim = 0
    private var nextWrite = 0
    private var ready: [Int: (part: PartBuffer, rejects: PartBuffer)] = [:]
    private var writing = false
    /// Buffers of parts already written, for workers to reuse: at most one per worker (half the
    /// window), of at most `PartBuffer.spareCapacity` each. (Up to eight of any size were kept,
    /// so a few large parts could stay held for the rest of the run.)
    private var spare: [ByteBuffer] = []
    private(set) var results: [[FileIngest.Result]?]
    private(set) var failure: (index: Int, error: FieldpackError)? = nil
    /// Guards everything above; broadcast when a part is written or a worker fails.
    private let lock = ConditionLock()

    init(output: any RecordsOutput, rejects: AtomicOutput, count: Int, window: Int) {
        self.output = output
        self.rejects = rejects
        self.count = count
        self.window = window
        results = Array(repeating: nil, count: count)
    }

    /// The next chunk to process, or nil when all are taken (or one failed).
    func claim() -> Int? {
        lock.withLock {
            while nextClaim < count && failure == nil && nextClaim >= nextWrite + window { lock.wait() }
            guard nextClaim < count, failure == nil else { return nil }
            nextClaim += 1
            return nextClaim - 1
        }
    }

    /// Hands in a finished file. Whoever finds the next parts in order writes them, outside the
    /// lock, while the other workers go on parsing; one writer at a time.
    func submit(_ index: Int, results chunk: [FileIngest.Result], part: PartBuffer, rejects rejectsPart: PartBuffer) {
        let writer = lock.withLock { () -> Bool in
            results[index] = chunk
            ready[index] = (part, rejectsPart)
            if writing { return false }
            writing = true
            return true
        }
        guard writer else { return }
        while true {
            let (batch, first, position) = lock.withLock { () -> ([(part: PartBuffer, rejects: PartBuffer)], Int, Int) in
                var batch: [(part: PartBuffer, rejects: PartBuffer)] = []
                var position = nextWrite
                while failure == nil, let next = ready.removeValue(forKey: position) {
                    batch.append(next)
                    position += 1
                }
                if batch.isEmpty {
                    writing = false
                    lock.broadcast()
                }
                return (batch, nextWrite, position)
            }
            if batch.isEmpty { return }
            var writeError: FieldpackError? = nil
            var written = 0
            do {
                for (part, rejectsPart) in batch {
                    for (part, output) in [(part, output), (rejectsPart, rejects as any RecordsOutput)] {
                        if let memory = part.memory {
                            try output.write(memory.bytes)
                        } else if part.spill != nil {
                            try output.append(contentsOf: part.spillPath)
                            FileSystem.remove(part.spillPath)
                            Leftovers.forget(part.spillPath)
                        }
                    }
                    written += 1
                }
            } catch let caught as FieldpackError {
                writeError = caught
            } catch {
                writeError = FieldpackError("\(error)")
            }
            // The parts a failed write left unwritten go with the run (`discardUnwritten`).
            if writeError != nil { for (part, rejectsPart) in batch.dropFirst(written) { Self.discard(part); Self.discard(rejectsPart) } }
            lock.withLock {
                for (part, rejectsPart) in batch {
                    if let memory = part.memory, spare.count < max(1, window / 2), memory.capacity <= PartBuffer.spareCapacity {
                        spare.append(memory)
                    }
                    part.release()
                    rejectsPart.release()
                }
                nextWrite = position
                if let writeError, failure == nil { failure = (first, writeError) }
                lock.broadcast()
            }
        }
    }

    /// A written part's buffer to reuse, if one is free.
    func spareBuffer() -> ByteBuffer? {
        lock.withLock { spare.popLast() }
    }

    /// Removes what the parts never written left on disk (a spilled part's file, which may hold
    /// a whole `.tar.gz` export's records), once every worker is done and a chunk failed: the
    /// output is not committed, and nothing of the run is to stay behind.
    func discardUnwritten() {
        lock.withLock {
            for (_, parts) in ready {
                Self.discard(parts.part)
                Self.discard(parts.rejects)
            }
            ready.removeAll()
        }
    }

    /// Removes a part's spill file, if it has one.
    private static func discard(_ part: PartBuffer) {
        guard part.spill != nil else { return }
        FileSystem.remove(part.spillPath)
        Leftovers.forget(part.spillPath)
    }

    func fail(_ index: Int, _ error: FieldpackError) {
        lock.withLock {
            if failure == nil || index < failure!.index { failure = (index, error) }
            lock.broadcast()
        }
    }
}
