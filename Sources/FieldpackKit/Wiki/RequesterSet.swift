extension WikiWants {
    /// Who asked for one article. Almost always one taxon or destination, so that one is kept
    /// inline: a `Set` per wanted title cost a heap block of about 100 bytes each, 16 MB of the
    /// stage's memory with 160,000 titles wanted. From a second requester on, a `Set`.
    public struct RequesterSet: Sendable, Equatable, Sequence, ExpressibleByArrayLiteral {
        private enum Storage: Sendable, Equatable {
            case none
            case one(Requester)
            case many(Set<Requester>)
        }

        private var storage = Storage.none

        public init() {}

        public init(arrayLiteral requesters: Requester...) {
            for requester in requesters { insert(requester) }
        }

        public var isEmpty: Bool { storage == .none }

        public var count: Int {
            switch storage {
            case .none: 0
            case .one: 1
            case .many(let set): set.count
            }
        }

        public mutating func insert(_ requester: Requester) {
            switch storage {
            case .none:
                storage = .one(requester)
            case .one(let only):
                if only != requester { storage = .many([only, requester]) }
            case .many(var set):
                storage = .none  // the set's only reference is `set` while it grows
                set.insert(requester)
                storage = .many(set)
            }
        }

        public mutating func formUnion(_ other: RequesterSet) {
            for requester in other { insert(requester) }
        }

        public func union(_ other: RequesterSet) -> RequesterSet {
            var both = self
            both.formUnion(other)
            return both
        }

        public func contains(_ requester: Requester) -> Bool {
            switch storage {
            case .none: false
            case .one(let only): only == requester
            case .many(let set): set.contains(requester)
            }
        }

        public func makeIterator() -> IndexingIterator<[Requester]> {
            switch storage {
            case .none: [Requester]().makeIterator()
            case .one(let only): [only].makeIterator()
            case .many(let set): Array(set).makeIterator()
            }
        }
    }
}
