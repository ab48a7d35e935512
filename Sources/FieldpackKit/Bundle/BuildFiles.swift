import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// The files a database build goes through: a scratch file to build in, and a hidden temp file
/// beside the destination to publish through. Both are removed by `cleanUp()`, whatever happened,
/// so a failed build leaves nothing behind and never touches the destination.
struct BuildFiles {
    let output: String
    let scratch: String
    let publish: String

    /// Both files are created empty under names no other run or planted link has (SQLite takes
    /// an empty file as a new database, and `VACUUM INTO` writes into an empty file).
    init(output: String, scratchLabel: String) throws {
        self.output = output
        let folder = directory(of: output)
        let name = output.split(separator: "/").last.map(String.init) ?? output
        try FileSystem.makeDirectories(folder)
        Leftovers.removeStale(of: output)
        scratch = try FileSystem.createEmptyExclusive(in: folder, prefix: "\(name).\(scratchLabel)-", for: output)
        do {
            publish = try FileSystem.createEmptyExclusive(in: folder, prefix: ".\(name).tmp-", for: output)
        } catch {
            FileSystem.remove(scratch)
            throw error
        }
    }

    func cleanUp() {
        FileSystem.remove(scratch)
        FileSystem.remove(scratch + "-journal")
        FileSystem.remove(publish)
        Leftovers.forget(scratch)
        Leftovers.forget(publish)
    }

    /// Writes the shipped copy of `database`: statistics from a bounded sample of each index
    /// (deterministic, and enough for the app's simple lookups), SQLite's recommended 4 KiB pages
    /// (VACUUM INTO honours a page_size set just before it), and no freelist or insertion-order
    /// differences (`VACUUM INTO`).
    ///
    /// `alongside`, given, runs on another thread with the database's path while `VACUUM INTO`
    /// copies it (the search index's check, `SearchIndex.check`, on its own connection, whose
    /// transaction changes nothing). Before, the benchmark's whole build ran that check (about
    /// 4 s) and then this (about 2.6 s), one after the other, on two cores. Its error comes
    /// first, then the copy's.
    func compact(_ database: Database, alongside check: (@Sendable (String) throws -> Void)? = nil) throws {
        try database.execute("PRAGMA analysis_limit = 1000; ANALYZE")
        try database.execute("PRAGMA page_size = \(BundleBuilder.pageSize)")
        let vacuum = "VACUUM INTO '\(publish.replacingOccurrences(of: "'", with: "''"))'"
        guard let check else { return try database.execute(vacuum) }
        let results = Results<Void>(count: 2)
        let path = database.path
        let shared = UncheckedBox(database)  // only the copying task uses it
        DispatchQueue.concurrentPerform(iterations: 2) { task in
            results.record(task) { task == 0 ? try check(path) : try shared.value.execute(vacuum) }
        }
        _ = try results.values()
    }

    /// Gives the copy a rollback journal (no `-wal` is ever shipped), checks that it opens
    /// read-only as this schema version, fsyncs it and renames it over the output.
    func publishCopy() throws {
        do {
            let published = try Database(path: publish)
            try published.execute("PRAGMA journal_mode = DELETE")
        }
        try BundleBuilder.checkHeader(try Database(path: publish, mode: .readOnly), path: output)
        try FileSystem.fsyncFile(publish)
        try FileSystem.rename(publish, to: output)
    }
}
