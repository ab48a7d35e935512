/// How the wiki stage gives the memory of a large article back to the system as soon as it is
/// freed, rather than when the allocator's own timer says: after an article of at least
/// `afterBytes` of HTML has been made into a blurb and its copy and libxml2 tree freed, `release`
/// is called on that worker's thread (fieldpack-wiki purges jemalloc's arenas). Without one,
/// the allocator keeps a freed multi-megabyte tree's pages while the next is being built.
public struct FreedMemoryRelease: Sendable {
    public var afterBytes: Int
    public var release: @Sendable () -> Void

    public init(afterBytes: Int = 1 << 20, release: @escaping @Sendable () -> Void) {
        self.afterBytes = afterBytes
        self.release = release
    }
}
