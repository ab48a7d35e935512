/// Records that repeat across observations (their users, their taxa and the taxa's photos),
/// collapsed within a chunk of input files: of the copies with the same id and the same content
/// (everything but `seen`, the observation and the source) only the best-ranked is kept, which is
/// the one dedupe would pick anyway; of a photo's copies that rank the same, the one whose source
/// comes first (`RecordSource`), so that the copy a conflict report names survives whichever
/// files share its chunk. Dedupe still sees every distinct variant, so the result is
/// the same, with far fewer records to write and read.
///
/// Chunks are fixed runs of input files (or one byte range of a large file, `IngestUnits.chunks`),
/// so the output does not depend on the number of workers.
struct Satellites {
    struct Key: Hashable {
        var kind: RecordKind
        var id: Int64
        var content: UInt64
    }

    typealias Rank = (seen: Int64, observation: Int64)

    private var index: [Key: Int] = [:]
    private var entries: [(rank: Rank, source: String, bytes: [UInt8])] = []
    private var pending: [(key: Key, rank: Rank, source: String, bytes: [UInt8])] = []
    /// The path of each input whose copies are held, by its index (for `RecordSource`).
    private var paths: [Int: String] = [:]
    private var current: (index: Int, path: String)? = nil

    /// The records stashed from now on come from input `index` at `path`.
    mutating func reading(_ index: Int, path: String) {
        paths[index] = path
        current = (index, path)
    }
    /// The most distinct satellites held before they are written out.
    static let limit = 100_000

    /// Moves the record just written at `start…` out of `out` into the pending satellites.
    mutating func stash(
        from out: inout JSONWriter, start: Int, dataEnd: Int, kind: RecordKind, id: Int64, rank: Rank, source: String
    ) {
        let all = out.buffer.bytes
        let content = stableHash(UnsafeRawBufferPointer(rebasing: all[start..<dataEnd]))
        pending.append((Key(kind: kind, id: id, content: content), rank, source, Array(all[start..<all.count])))
        out.truncate(to: start)
    }

    /// The record they came with was accepted: keep them.
    mutating func commit() {
        for (key, rank, source, bytes) in pending {
            if let slot = index[key] {
                // Sources decide only among a photo's copies (the conflict report names them);
                // a user's or taxon's copies that tie are the same bytes, whichever is kept.
                let keptRank = entries[slot].rank
                if rank > keptRank
                    || (key.kind == .photo && rank == keptRank && RecordSource.precedes(source, entries[slot].source, paths: paths))
                {
                    entries[slot] = (rank, source, bytes)
                }
            } else {
                index[key] = entries.count
                entries.append((rank, source, bytes))
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// The record they came with was rejected: drop them.
    mutating func discard() {
        pending.removeAll(keepingCapacity: true)
    }

    var isFull: Bool { entries.count >= Self.limit }

    /// Writes the kept satellites in first-seen order and forgets them.
    mutating func flush(into out: inout JSONWriter) {
        for entry in entries { out.buffer.append(entry.bytes) }
        entries.removeAll(keepingCapacity: true)
        index.removeAll(keepingCapacity: true)
        paths.removeAll(keepingCapacity: true)
        if let current { paths[current.index] = current.path }
    }
}
