/// Which of the export's taxa and users ingest writes, when every input is an export table and it
/// prunes by a selection (`ExportLinkPruning.Singles`): only those a kept row may need. The others
/// are read and checked (their findings are the same) but not written, and counted once for the
/// whole job, each id once, in ingest's `select` line (`DedupedSelectionRecord.Column.taxaLeftOut`,
/// `.usersLeftOut`); the bundle adds them to the taxa it considered and the users it removed, so
/// the bundle and its report are the same bytes. A regional guide of the export keeps a few of
/// its taxa and observers, and every stage after ingest held all of them: at 10M observations
/// 59 of dedupe's 61 MB of occurrences were the 240,004 taxa and 500,000 observers.
///
/// What a kept row may need, a superset of what the bundle keeps or reads:
/// - users: the observer of every observations row the rules keep (the bundle keeps the users of
///   its kept observations), and the observer of every row of a photo that such a row may link,
///   or that has measured sizes (the bundle credits a photo it decides with its own row's
///   observer, who may be another user than its observation's, and dedupe may pick any row of
///   the photo as the winner);
/// - taxa: the taxon of every observations row the rules keep, and every id in the ancestry of
///   any row of those taxa (the bundle keeps its kept observations' taxa and their ancestors,
///   from the winning row's ancestry).
/// A taxon or user outside these is never kept, linked or credited by the bundle, so leaving it
/// out changes nothing but what the bundle would have counted as considered or removed.
///
/// Memory: a bit per id (`IDSet`: about 1 MB for iNaturalist's user ids, 0.25 MB for its taxon
/// ids) for the needed and for the seen ids of each kind while they are read, and a Bloom filter of
/// 4 MiB of the photos kept rows link.
final class ExportParents: Sendable {
    let taxa: IDSet
    let users: IDSet
    /// The distinct ids of the export's taxa and observers tables not written.
    let taxaLeftOut: Int
    let usersLeftOut: Int
    /// The input (its index in ingest's inputs) whose first range writes the counts: the first
    /// taxa or observers table; nil when there is none.
    let countingInput: Int?

    init(taxa: IDSet, users: IDSet, taxaLeftOut: Int, usersLeftOut: Int, countingInput: Int?) {
        self.taxa = taxa
        self.users = users
        self.taxaLeftOut = taxaLeftOut
        self.usersLeftOut = usersLeftOut
        self.countingInput = countingInput
    }

    @inline(__always)
    func writes(taxon id: Int64) -> Bool { taxa.contains(id) }

    @inline(__always)
    func writes(user id: Int64) -> Bool { users.contains(id) }

    /// The photos the rows the rules keep link, by photo id: a Bloom filter of `bits` bits and
    /// four probes in one word. It never misses a linked photo; a photo it takes for linked by
    /// mistake only adds its observers to those written.
    struct Linked: Sendable {
        static let bits = 1 << 25  // 4 MiB
        private(set) var words = [UInt64](repeating: 0, count: bits / 64)

        @inline(__always)
        private static func probes(_ photo: Int64) -> (word: Int, mask: UInt64) {
            BloomWord.probe(BloomWord.mix(UInt64(bitPattern: photo) ^ 0x5EED_F00D), words: bits / 64, probes: 4)
        }

        mutating func insert(_ photo: Int64) {
            let (word, mask) = Self.probes(photo)
            words[word] |= mask
        }

        @inline(__always)
        func mayContain(_ photo: Int64) -> Bool {
            let (word, mask) = Self.probes(photo)
            return words[word] & mask == mask
        }

        mutating func formUnion(_ other: Linked) {
            for index in words.indices { words[index] |= other.words[index] }
        }
    }

    /// Reads the export's taxa and observers tables for the ids they hold, and returns what ingest
    /// writes of them: `taxa` with the ancestors of its taxa's rows, `users` as they are.
    ///
    /// - Parameters:
    ///   - tables: the taxa and observers tables, with their index among ingest's inputs.
    ///   - taxa: the taxa the kept rows name.
    ///   - users: the users the kept rows and their photos name.
    /// - Throws: when a table cannot be read (never an early end).
    static func read(
        tables: [(input: Int, path: String, header: OpenDataTable.Header)], taxa needed: IDSet, users: IDSet
    ) throws -> ExportParents {
        var taxa = needed
        var seenTaxa = IDSet(), seenUsers = IDSet()
        for table in tables {
            let reader = LineReader(source: try openInput(table.path, hashing: false).source)
            var row = OpenDataRow(header: table.header, seen: nil)
            do {
                while let line = try reader.next() {
                    guard line.number > 1, let bytes = OpenDataRow.rowBytes(line, of: reader) else { continue }
                    if table.header.table == .taxa {
                        guard let (id, ancestry) = row.taxonParents(bytes) else { continue }
                        seenTaxa.insert(id)
                        // Any row of a needed taxon: the one dedupe picks is among them.
                        guard needed.contains(id), var ancestry else { continue }
                        ancestry.withUTF8 { bytes in
                            for ancestor in TaxonRule.ancestors(UnsafeRawBufferPointer(bytes)) where ancestor > 0 { taxa.insert(ancestor) }
                        }
                    } else if let id = row.observerID(bytes) {
                        seenUsers.insert(id)
                    }
                }
            } catch let error as FieldpackError where error.path == nil {
                throw FieldpackError(path: table.path, error.message)
            }
        }
        return ExportParents(
            taxa: taxa, users: users, taxaLeftOut: seenTaxa.count(notIn: taxa), usersLeftOut: seenUsers.count(notIn: users),
            countingInput: tables.map(\.input).min())
    }
}
