#if canImport(Glibc)
import Glibc
#endif

/// Reads another source ahead, on a thread of its own, a few blocks at a time: so that inflating
/// a gzip stream (`GzipSource`) runs beside the parsing of what it gave, on a second core, not
/// before it on the same one. The bytes, and every error, come out exactly as the source gives
/// them, in order: a `StreamDamage` is thrown where it fell, and reading goes on after it as the
/// source does (a gzip member whose check fails); any other error ends the stream, and is thrown
/// again by every later read.
///
/// At most `blocks` blocks of `blockBytes` are read ahead, handed over through two `Channel`s
/// (the blocks filled, in order, and the blocks emptied, to fill again). The thread stops at the
/// source's end, at an error that ends it, or when the reader is stopped (`stop`, or freed); the
/// source is never read by two threads at once. After `stop` the reader gives the blocks already
/// read, then reads the source itself: stopping changes what is read from where, never what is
/// read. Not thread-safe itself: one reader.
final class ReadAheadSource: ByteSource {
    /// One block read from the source: its bytes, or the error the read threw.
    private final class Block: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
        var count = 0
        var error: (any Error)? = nil

        init(bytes count: Int) { bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16) }
        deinit { bytes.deallocate() }
    }

    private let source: ByteSource
    private let filled: Channel<Block>
    /// Closed by `stop`: the thread takes no block more.
    private let emptied: Channel<Block>
    private var thread: pthread_t? = nil
    private var current: Block? = nil
    private var used = 0
    private var ended = false
    private var failure: (any Error)? = nil

    var name: String? { source.name }

    init(_ source: ByteSource, blocks: Int = 4, blockBytes: Int = 1 << 20) {
        precondition(blocks > 0 && blockBytes > 0, "a read-ahead needs a block to read into")
        self.source = source
        let (filled, emptied) = (Channel<Block>(capacity: blocks), Channel<Block>(capacity: blocks))
        (self.filled, self.emptied) = (filled, emptied)
        for _ in 0..<blocks { emptied.offer(Block(bytes: blockBytes)) }
        let box = UncheckedBox(source)
        thread = Self.start {
            // The channels hold every block at most once: a send never waits, and nil is `stop`.
            while let block = try? emptied.receive() {
                block.count = 0
                block.error = nil
                do {
                    block.count = try box.value.read(into: block.bytes)
                } catch {
                    block.error = error
                }
                guard (try? filled.send(block)) != nil else { break }
                // The end, or an error after which the source gives nothing more.
                if block.count == 0 && !(block.error is StreamDamage) { break }
            }
            filled.finish()
        }
    }

    deinit { stop() }

    /// Stops the thread and waits for it: after this the source is the caller's again (its
    /// digest, its count of bytes read), and reading goes on from it directly once the blocks
    /// already read are given.
    func stop() {
        guard let running = thread else { return }
        emptied.close()
        pthread_join(running, nil)
        thread = nil
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            if let block = current {
                if used < block.count {
                    let count = min(buffer.count, block.count - used)
                    buffer.baseAddress!.copyMemory(from: block.bytes.baseAddress! + used, byteCount: count)
                    used += count
                    return count
                }
                emptied.offer(block)
                current = nil
            }
            if let failure { throw failure }
            if ended { return 0 }
            guard let next = try filled.receive() else {
                // Stopped before the source's end: the rest comes from the source itself.
                precondition(thread == nil, "the read-ahead thread ended without the source's end")
                return try source.read(into: buffer)
            }
            if let error = next.error {
                emptied.offer(next)
                if !(error is StreamDamage) { failure = error }
                throw error
            }
            if next.count == 0 {
                emptied.offer(next)
                ended = true
                return 0
            }
            current = next
            used = 0
        }
    }

    /// Runs `body` on a new thread (a plain pthread: a worker that blocks for the reader must not
    /// hold one of Dispatch's pool threads, which the readers themselves may be on).
    private static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        final class Body { let run: @Sendable () -> Void; init(_ run: @escaping @Sendable () -> Void) { self.run = run } }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        precondition(status == 0, "pthread_create failed: \(status)")
        return thread
    }
}

extension ReadAheadSource {
    /// Whether a gzip input is worth a thread of its own: one of at least 8 MiB compressed, or
    /// standard input (of unknown size). Many small files (API pages gzipped one by one) are read
    /// faster each on its reader's own thread: a thread and its blocks per file cost more than
    /// they save (by hand, 300 gzipped API pages of 36 MB in all: 0.53 s without, 0.70 s with,
    /// the system time doubled).
    static func isWorthwhile(forGzip path: String) -> Bool {
        path == StandardInput.argument || (FileSystem.size(path) ?? Int.max) >= 8 << 20
    }

    /// `source`, the input at `path` as `openInput` opened it, read ahead when it is gzip and
    /// worth it (`isWorthwhile`); nil: read it as it is.
    static func reading(_ source: ByteSource, gzip: Bool, path: String) -> ReadAheadSource? {
        gzip && isWorthwhile(forGzip: path) ? ReadAheadSource(source) : nil
    }
}

/// The bytes of the input at `path` (`openInput`, not hashed), read ahead when that is worth it
/// (`ReadAheadSource.reading`): for a reader that needs nothing of the raw file afterwards.
func openInputReadingAhead(_ path: String) throws -> ByteSource {
    let (source, _, gzip) = try openInput(path, hashing: false)
    return ReadAheadSource.reading(source, gzip: gzip, path: path) ?? source
}
