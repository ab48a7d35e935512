import CLibXML2

/// Reads an article while libxml2 builds its tree, and frees what it has read, so that the tree
/// of a large article never holds more than about one of its top-level sections: a 6 MB article
/// no longer needs its whole tree (tens of MB) at once.
///
/// It reads only a content root that is known when it starts: a `body` carrying
/// `mw-parser-output` (Parsoid and Enterprise HTML). When an element starts as a child of that
/// root, every child before it is complete, and so is everything reading a child looks at: its
/// own subtree, and its siblings' names, classes and text up to that element
/// (`nextVisibleElement`, `previousVisibleElement`; link, meta and style elements are looked past,
/// so they do not start a read). Those children are read with the cleaner's own walk, in
/// document order, and their subtrees freed; the emptied elements stay, with their attributes,
/// for the sibling questions. `ArticleCleaner.clean(_:tailHeading:readSoFar:)` reads the rest
/// after the parse from the same state, so the blurb is the one a walk of the whole tree makes.
///
/// `ParseHooks` calls it while the tree is being built, up to the trailing boilerplate's proposed
/// heading (`TreeTail`); nothing from there on is read early.
final class TreeStream {
    private var state: ArticleCleaner.State
    /// The content root, once its start showed it to be one.
    private(set) var root: xmlNodePtr?
    /// The last child of `root` read and emptied; reading goes on from the next.
    private(set) var lastRead: xmlNodePtr?
    /// How many children of the root were read while the tree was built.
    private(set) var readEarly = 0

    init(rules: BlurbRules) {
        state = ArticleCleaner.State(rules: rules)
    }

    /// An element `node` has just been built.
    func started(_ node: xmlNodePtr) {
        guard let parent = node.pointee.parent else { return }
        guard let root else {
            if parent.isElement, parent.named("html"), node.named("body"), node.hasClass("mw-parser-output") { self.root = node }
            return
        }
        guard parent == root, !(node.named("link") || node.named("meta") || node.named("style")) else { return }
        var child = lastRead == nil ? root.pointee.children : lastRead?.pointee.next
        while let current = child, current != node {
            state.read(current)
            if current.isElement, let subtree = current.pointee.children {
                current.pointee.children = nil
                current.pointee.last = nil
                xmlFreeNodeList(subtree)
            }
            lastRead = current
            readEarly += 1
            child = current.pointee.next
        }
    }

    /// The state after what was read, taken out of the reader (so that the cleaner's markup is
    /// not copied when it goes on writing).
    func takeState() -> ArticleCleaner.State {
        let taken = state
        state = ArticleCleaner.State(rules: taken.rules)
        return taken
    }
}
