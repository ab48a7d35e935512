/// The keys that appear more than once in one object of a record, at any depth.
///
/// The rule for duplicate keys (JSON leaves it open): the first value is the one read, what
/// simdjson's lookup gives at every depth, and the record keeps it, with a salvage finding for
/// each duplicated key (`FileIngest`), at the top level (`quality_grade`) as inside a photo or a
/// taxon (`photos[0].id`, `taxon.name`).
///
/// Linear in the record's values, plus a sort of each object's 64-bit key hashes: first one walk
/// of simdjson's document in C++ (`JSONValue.hasDuplicateKeys`), and only for a record that has
/// a duplicate the walk here, where names are compared only on a hash match and a path is spelt
/// only for a duplicate. Reuses its buffers from record to record; not thread-safe (one per
/// `FileIngest`).
struct DuplicateKeys {
    /// A key met more than once in one object: its JSON path in the record, as findings name
    /// fields, and how often it appears there.
    struct Duplicate: Equatable {
        let path: String
        let count: Int
    }

    /// An object or array met in the walk, and where it sits in its parent (for its path).
    private struct Container {
        let value: JSONValue
        /// The parent's position in `containers`; -1 for the record itself.
        let parent: Int
        /// Its key in the parent object, or nil when the parent is an array.
        let key: JSONText?
        /// Its position in the parent array.
        let index: Int
    }

    private var containers: [Container] = []
    private var hashes: [UInt64] = []

    /// Every duplicated key of `record`, an object's own before those of the objects inside it
    /// (breadth first), each object's in the order of their first appearance. Empty for a value
    /// that is not an object.
    mutating func find(in record: JSONValue) -> [Duplicate] {
        // Nearly every record has none: one walk of the document in C++ says so (14% of ingest's
        // instructions under callgrind went to the walk below, on every record).
        guard record.isObject, record.hasDuplicateKeys else { return [] }
        containers.removeAll(keepingCapacity: true)
        containers.append(Container(value: record, parent: -1, key: nil, index: 0))
        var found: [Duplicate] = []
        var next = 0
        // Breadth first over an array, not recursion: a deeply nested record cannot overflow
        // the stack of the thread reading it.
        while next < containers.count {
            let container = containers[next]
            if container.value.isObject {
                hashes.removeAll(keepingCapacity: true)
                for (key, value) in container.value.members {
                    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
                    for byte in key.bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
                    hashes.append(hash)
                    if value.isObject || value.isArray {
                        containers.append(Container(value: value, parent: next, key: key, index: 0))
                    }
                }
                if hashes.count > 1 {
                    hashes.sort()
                    if zip(hashes, hashes.dropFirst()).contains(where: { $0 == $1 }) {
                        found += duplicates(in: container.value, at: next)
                    }
                }
            } else {
                for (index, element) in container.value.elements.enumerated() where element.isObject || element.isArray {
                    containers.append(Container(value: element, parent: next, key: nil, index: index))
                }
            }
            next += 1
        }
        return found
    }

    /// The duplicated keys of `object` (whose key hashes collide), by name.
    private func duplicates(in object: JSONValue, at position: Int) -> [Duplicate] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for (key, _) in object.members {
            let name = key.string
            if counts[name] == nil { order.append(name) }
            counts[name, default: 0] += 1
        }
        let prefix = path(of: position)
        return order.filter { counts[$0]! > 1 }.map {
            Duplicate(path: prefix.isEmpty ? $0 : "\(prefix).\($0)", count: counts[$0]!)
        }
    }

    /// The JSON path of the container at `position` (`""` for the record, `photos[0]`,
    /// `taxon.default_photo`).
    private func path(of position: Int) -> String {
        var steps: [Container] = []
        var current = position
        while current > 0 {
            steps.append(containers[current])
            current = containers[current].parent
        }
        var path = ""
        for step in steps.reversed() {
            if let key = step.key {
                path += path.isEmpty ? key.string : ".\(key.string)"
            } else {
                path += "[\(step.index)]"
            }
        }
        return path
    }
}
