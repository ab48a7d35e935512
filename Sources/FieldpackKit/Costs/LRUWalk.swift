/// Scrolling the shipped photos in bundle order through an LRU of `budget` bytes, one photo at a
/// time as they are counted, so that no list of every photo is kept: how many thumbnails fit
/// from the top (the walk stops at the first that does not), and how many are still cached once
/// the end is reached (the longest run at the end that fits, photos larger than the whole budget
/// left out, as they are never cached). Memory: the photos that fit in the budget at the end.
struct LRUWalk: Sendable {
    let budget: Int
    private(set) var fitFromTop = 0
    private var usedFromTop = 0
    private var topIsFull = false
    /// The decoded bytes of the photos cached at the end so far, oldest first from `start`.
    private var window: [Int] = []
    private var start = 0
    private var windowBytes = 0

    init(budget: Int) {
        self.budget = budget
    }

    /// The next photo in bundle order, by its decoded bytes.
    mutating func add(_ bytes: Int) {
        if !topIsFull {
            if usedFromTop + bytes > budget {
                topIsFull = true
            } else {
                usedFromTop += bytes
                fitFromTop += 1
            }
        }
        guard bytes <= budget else { return }
        window.append(bytes)
        windowBytes += bytes
        while windowBytes > budget {
            windowBytes -= window[start]
            start += 1
        }
        if start >= 4096 && start * 2 >= window.count {
            window.removeFirst(start)
            start = 0
        }
    }

    var cachedAtTheEnd: Int { window.count - start }
}
