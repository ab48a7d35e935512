import Dispatch
import Synchronization

/// Makes blurbs on worker threads while the dump is read: the reader hands over each wanted
/// article's HTML (copied out of the JSON parser's buffer) and collects finished blurbs. At
/// most `inFlight` articles wait or run, so memory stays bounded whatever the dump's size.
/// Results come back in any order; what is kept from them does not depend on it.
final class BlurbPool: @unchecked Sendable {
    struct Job {
        var article: WikiStage.Article
        var html: [UInt8]
    }

    private let maker: BlurbMaker
    private let slots: DispatchSemaphore
    private let group = DispatchGroup()
    private let finished = Mutex<[(WikiStage.Article, Result<Blurb, Error>)]>([])

    init(maker: BlurbMaker, inFlight: Int) {
        self.maker = maker
        slots = DispatchSemaphore(value: inFlight)
    }

    /// Queues a job, waiting while `inFlight` jobs are pending.
    func submit(_ job: Job) {
        slots.wait()
        DispatchQueue.global().async(group: group) { [self] in
            let result: Result<Blurb, Error> = job.html.withUnsafeBytes { bytes in
                Result { try maker.blurb(html: bytes) }
            }
            finished.withLock { $0.append((job.article, result)) }
            slots.signal()
        }
    }

    /// The jobs finished so far.
    func collect() -> [(WikiStage.Article, Result<Blurb, Error>)] {
        finished.withLock { list in
            let done = list
            list.removeAll(keepingCapacity: true)
            return done
        }
    }

    /// Waits for every job, then returns those not yet collected.
    func drain() -> [(WikiStage.Article, Result<Blurb, Error>)] {
        group.wait()
        return collect()
    }
}
