import Dispatch

/// Makes blurbs on worker threads while the dump is read: the reader hands over each wanted
/// article's HTML and collects finished blurbs. What waits or runs is bounded by its bytes, not
/// by a count: an article is admitted while the HTML in flight stays within `byteBudget` (and
/// `maximumJobs`), and one larger than the budget only when nothing else is in flight, so a
/// long tail of multi-megabyte articles never has several of their libxml2 trees alive at once.
/// The HTML is copied out of the reader's buffer only once admitted, and freed as soon as its
/// blurb is made; after a large article (`FreedMemoryRelease`) the pages its copy and tree used
/// can be given back to the system at once.
/// Results come back in any order; what is kept from them does not depend on it.
final class BlurbPool: @unchecked Sendable {
    private let maker: BlurbMaker
    /// The bytes of article HTML that may be in flight (waiting or running) at once.
    let byteBudget: Int
    /// The articles that may be in flight at once, whatever their size.
    let maximumJobs: Int
    private let release: FreedMemoryRelease?
    private let group = DispatchGroup()
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var bytesInFlight = 0
    private var jobsInFlight = 0
    private var largestInFlight = 0
    private var finished: [(WikiStage.Article, Result<Blurb, Error>)] = []

    init(maker: BlurbMaker, byteBudget: Int, maximumJobs: Int, release: FreedMemoryRelease? = nil) {
        self.maker = maker
        self.byteBudget = byteBudget
        self.maximumJobs = max(1, maximumJobs)
        self.release = release
    }

    /// Queues an article's blurb, first waiting until its HTML fits in the budget beside what is
    /// in flight (or, larger than the budget, until nothing is).
    func submit(_ article: WikiStage.Article, html: UnsafeRawBufferPointer) {
        let cost = html.count
        lock.withLock {
            while jobsInFlight > 0 && (jobsInFlight >= maximumJobs || bytesInFlight + cost > byteBudget) { lock.wait() }
            bytesInFlight += cost
            jobsInFlight += 1
            largestInFlight = max(largestInFlight, bytesInFlight)
        }
        // Freed by the job itself: an array captured by the closure would live until Dispatch
        // drops the closure, after the pages are to be given back. Only that job touches it.
        nonisolated(unsafe) let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: cost, alignment: 1)
        if cost > 0 { copy.copyMemory(from: html) }
        DispatchQueue.global().async(group: group) { [self] in
            let result = Result { try maker.blurb(html: UnsafeRawBufferPointer(copy)) }
            copy.deallocate()
            if let release, cost >= release.afterBytes { release.release() }
            lock.withLock {
                finished.append((article, result))
                bytesInFlight -= cost
                jobsInFlight -= 1
                lock.broadcast()
            }
        }
    }

    /// The jobs finished so far.
    func collect() -> [(WikiStage.Article, Result<Blurb, Error>)] {
        lock.withLock {
            let done = finished
            finished.removeAll(keepingCapacity: true)
            return done
        }
    }

    /// Waits for every job, then returns those not yet collected.
    func drain() -> [(WikiStage.Article, Result<Blurb, Error>)] {
        group.wait()
        return collect()
    }

    /// The most bytes of HTML that were in flight at once (for tests).
    var peakBytesInFlight: Int { lock.withLock { largestInFlight } }
}
