import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A depfile as make reads it: an input whose name holds a space, `#`, `:`, `%`, `$`, `;`, `|` or `=` rebuilds
/// the target when it changes, and one deleted does not stop make.
@Suite struct DepfileTests {
    @Test func makeReadsEveryInputsNameAndADeletedInputDoesNotStopIt() throws {
        let directory = try TemporaryDirectory()
        // The last: a space and a colon each followed by a combining accent (one Character each).
        // Then `;` (a recipe), `|` (order-only) and `=` (a variable), which make cannot escape.
        let names = [
            "dump 1.json", "obs#2.json", "obs-2026-12-06T02:00:00Z.json", "obs%3.json", "cost$.json", "d \u{301}e:\u{301}.json",
            "taxa;page-1.json", "a|b.json", "k=v.json", "pages[1].json", "pages[2];x.json", "star*.json",
            "obs (1).json", "Madeira (2024)/obs.json",
        ]
        let inputs = try names.map { try directory.write($0, "{}") }
        let target = directory.file("out.txt")
        try Depfile.write(directory.file("out.d"), target: target, prerequisites: inputs)
        try directory.write("Makefile", "all: \(target)\n\(target):\n\ttouch '$@'\n-include out.d\n")
        func make() throws -> ProcessResult { try run("/usr/bin/make", ["-C", directory.path]) }
        let first = try make()
        #expect(first.status == 0 && first.stdout.contains("touch"), "\(first.stdout)\(first.stderr)")
        #expect(try make().stdout.contains("Nothing to be done"))
        for (offset, input) in inputs.enumerated() {
            // Newer than the target, whatever the clock's resolution.
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(Double(10 * (offset + 1)))], ofItemAtPath: input)
            let rebuilt = try make()
            #expect(rebuilt.status == 0 && rebuilt.stdout.contains("touch"), "\(names[offset]): \(rebuilt.stdout)\(rebuilt.stderr)")
        }
        for input in inputs { try FileManager.default.removeItem(atPath: input) }
        let afterDeletion = try make()
        #expect(afterDeletion.status == 0, "\(afterDeletion.stderr)")
    }

    /// A dump put in an input's place with an older time (`cp -p` over it, the same size) and a
    /// link turned to another month's folder of older files: make's times call the target up to
    /// date, the identities the depfile keeps do not, and make reads the target as spelled.
    @Test func anInputReplacedWithAnOlderTimeOrThroughATurnedLinkNamesItsTarget() throws {
        let directory = try TemporaryDirectory()
        let dump = try directory.write("dump 1.json", #"{"month":11}"#)
        _ = try directory.write("2024-11/obs.json", #"{"month":11}"#)
        _ = try directory.write("2024-12/obs.json", #"{"month":12}"#)
        try FileManager.default.createSymbolicLink(atPath: directory.file("current"), withDestinationPath: "2024-11")
        let linked = directory.file("current/obs.json")
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        for file in ["dump 1.json", "2024-11/obs.json", "2024-12/obs.json"] {
            // Each month's file changed in its own tick of the clock, as two downloads are.
            usleep(50_000)
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: directory.file(file))
        }
        let target = directory.file("out 1.txt")
        let depfile = directory.file("out.d")
        let other = directory.file("other.d")
        try Depfile.write(depfile, target: target, prerequisites: [dump, linked])
        try Depfile.write(other, target: directory.file("other.txt"), prerequisites: [directory.file("2024-12/obs.json")])
        let spelled = target.replacingOccurrences(of: " ", with: "\\ ")
        try directory.write("Makefile", "all: \(spelled)\n\(spelled):\n\ttouch '$@'\n-include out.d\n$(if $(CHANGED),$(eval $(CHANGED): FORCE))\nFORCE:\n")
        func make(changed: [String]) throws -> ProcessResult {
            try run("/usr/bin/make", ["-C", directory.path, "CHANGED=\(changed.joined(separator: " "))"])
        }
        #expect(try make(changed: []).stdout.contains("touch"))
        #expect(Depfile.changedTargets([depfile, other, directory.file("missing.d")]) == [])
        #expect(try make(changed: Depfile.changedTargets([depfile])).stdout.contains("Nothing to be done"))

        // Past the clock's tick (a change within it moves no time, see `FileIdentity`).
        usleep(50_000)
        let handle = try #require(FileHandle(forWritingAtPath: dump))
        handle.write(Data(#"{"month":12}"#.utf8))
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dump)
        #expect(Depfile.changedTargets([depfile, other]) == [spelled])
        #expect(try make(changed: []).stdout.contains("Nothing to be done"), "make's times alone: up to date")
        let rebuilt = try make(changed: Depfile.changedTargets([depfile]))
        #expect(rebuilt.status == 0 && rebuilt.stdout.contains("touch"), "\(rebuilt.stdout)\(rebuilt.stderr)")

        // Written again as the stage would, then the link turned to December.
        try Depfile.write(depfile, target: target, prerequisites: [dump, linked])
        #expect(Depfile.changedTargets([depfile]) == [])
        try FileManager.default.removeItem(atPath: directory.file("current"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("current"), withDestinationPath: "2024-12")
        #expect(Depfile.changedTargets([depfile, other]) == [spelled])

        // Identities taken before the stage read its inputs stand for them, not the files at the write.
        let taken = Depfile.Identities.take([dump, linked])
        try FileManager.default.removeItem(atPath: directory.file("current"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("current"), withDestinationPath: "2024-11")
        try Depfile.write(depfile, target: target, prerequisites: [dump, linked], taken: taken)
        #expect(Depfile.changedTargets([depfile]) == [spelled])

        // A settings file read before the rest are taken stands as it was read (`noteReading`).
        let places = try directory.write("places.geojson", #"{"type":"Polygon"}"#)
        Depfile.noteReading(places)
        usleep(50_000)
        try #"{"type":"Polygon","x":1}"#.write(toFile: places, atomically: true, encoding: .utf8)
        try Depfile.write(other, target: directory.file("other.txt"), prerequisites: [places], taken: .take([places]))
        #expect(Depfile.changedTargets([other]) == [directory.file("other.txt")])

        // While its stage runs (and after it failed) a depfile names its target whatever its inputs.
        try Depfile.write(depfile, target: target, prerequisites: [dump], taken: .pending)
        #expect(Depfile.changedTargets([depfile]) == [spelled])
        try Depfile.write(depfile, target: target, prerequisites: [dump], taken: .take([dump]))
        #expect(Depfile.changedTargets([depfile]) == [])
    }

    /// A folder walked for inputs is named by the names a walk reads in it, not by its time: a
    /// note or a hidden file added beside the dumps changes nothing, a dump added, removed or
    /// renamed there does, and so does a folder added (a walk enters it).
    @Test func aFolderOfInputsChangesWithItsDumpsNotItsNotesOrHiddenFiles() throws {
        let directory = try TemporaryDirectory()
        let page = try directory.write("dumps/page-1.json", "{}")
        let folder = directory.file("dumps")
        let depfile = directory.file("out.d")
        func write() throws {
            try Depfile.write(depfile, target: directory.file("out"), prerequisites: [page, folder], taken: .take([page, folder], walked: [folder]))
        }
        try write()
        #expect(try depfileRules(depfile).rules == "\(directory.file("out")): \\\n  \(page)\n\(page):\n")
        #expect(try depfileRules(depfile).identified == [page, folder])
        for name in ["README.md", "notes.txt", ".DS_Store", ".page-2.json.Xa81Qz"] {
            _ = try directory.write("dumps/\(name)", "x")
            #expect(Depfile.changedTargets([depfile]) == [], "\(name)")
        }
        for (index, change) in ["a dump added", "renamed", "a folder added", "removed"].enumerated() {
            switch index {
            case 0: _ = try directory.write("dumps/page-2.json", "{}")
            case 1: try FileManager.default.moveItem(atPath: directory.file("dumps/page-2.json"), toPath: directory.file("dumps/page-3.json"))
            case 2: try FileManager.default.createDirectory(atPath: directory.file("dumps/2024.md"), withIntermediateDirectories: false)
            default: try FileManager.default.removeItem(atPath: directory.file("dumps/page-3.json"))
            }
            #expect(Depfile.changedTargets([depfile]) == [directory.file("out")], "\(change)")
            try write()
        }
        try FileManager.default.removeItem(atPath: folder)
        #expect(Depfile.changedTargets([depfile]) == [directory.file("out")], "the folder removed")
    }

    /// A glob's folder (not walked) is kept by all its names, which the glob may match whatever
    /// they are (`dumps/*.txt`), and by which of them are folders (`dumps/*/page.json` matches
    /// in a file become a folder); hidden names, which a glob does not match, change nothing.
    @Test func aGlobsFolderChangesWithEveryNameNotHiddenAndWithAFileBecomeAFolder() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("dumps/2024-11/page.json", "{}")
        _ = try directory.write("dumps/2024-12", "a download without its extension")
        let folder = directory.file("dumps")
        let depfile = directory.file("out.d")
        func write() throws { try Depfile.write(depfile, target: directory.file("out"), prerequisites: [folder], taken: .take([folder])) }
        try write()
        _ = try directory.write("dumps/.sync-tmp", "x")
        #expect(Depfile.changedTargets([depfile]) == [])
        _ = try directory.write("dumps/obs-3.txt", "{}")
        #expect(Depfile.changedTargets([depfile]) == [directory.file("out")], "a .txt the glob reads")
        try write()
        try FileManager.default.removeItem(atPath: directory.file("dumps/2024-12"))
        _ = try directory.write("dumps/2024-12/page.json", "{}")
        #expect(Depfile.changedTargets([depfile]) == [directory.file("out")], "a file become a folder")
    }

    /// A keyed file (the pipeline's, `PipelineReader`) is out of the rule and changes with what
    /// its reader reads of it alone, asked once however many depfiles name it; pending while the
    /// stage runs; one that cannot be read is changed.
    @Test func aKeyedFileChangesWithWhatItsReaderReadsOfIt() throws {
        let directory = try TemporaryDirectory()
        let pipeline = try directory.write("p.json", "{}")
        let (depfile, other) = (directory.file("out.d"), directory.file("other.d"))
        let keyed = [pipeline: Depfile.Keyed(kind: "inat", digest: "abc")]
        try Depfile.write(depfile, target: directory.file("out"), prerequisites: [], keyed: keyed, taken: .take([]))
        try Depfile.write(other, target: directory.file("other"), prerequisites: [], keyed: [pipeline: Depfile.Keyed(kind: "wiki", digest: "w")])
        let text = try String(contentsOfFile: depfile, encoding: .utf8)
        #expect(text.hasPrefix("\(directory.file("out")):\n"), "the keyed file is not in the rule: \(text)")
        #expect(text.contains("#@\tkeys\tinat\tabc\t\(pipeline)\n"), "\(text)")
        var asked: [String] = []
        let now = { (path: String, kind: String) -> String? in
            asked.append(kind)
            return path == pipeline ? ["inat": "abc", "wiki": "w2"][kind] : nil
        }
        #expect(Depfile.changedTargets([depfile, other, depfile], keyed: now) == [directory.file("other")])
        #expect(asked.sorted() == ["inat", "wiki"], "each kind asked once: \(asked)")
        #expect(Depfile.changedTargets([depfile]) == [directory.file("out")], "unreadable now: changed")
        try Depfile.write(depfile, target: directory.file("out"), prerequisites: [], keyed: keyed, taken: .pending)
        #expect(Depfile.changedTargets([depfile], keyed: { _, _ in "abc" }) == [directory.file("out")], "pending")
    }

    /// What each stage reads of a pipeline is its keys alone: another key's edit, a comment
    /// outside them or their layout changes nothing; an edit inside them does.
    @Test func aStageReadsItsKeysOfThePipelineAndNoOther() throws {
        let directory = try TemporaryDirectory()
        func digests(_ text: String) throws -> [PipelineReader: String?] {
            let path = try directory.write("p.json", text)
            let all = PipelineReader.digests(ofFile: path)
            return Dictionary(uniqueKeysWithValues: PipelineReader.allCases.map { ($0, all?[$0]) })
        }
        let base = try digests(#"{"name": "a", "inat": ["d"], "select": {"bbox": [0, 0, 1, 1]}, "costs": {"measured_sizes": "m.csv", "bytes_per_pixel": 4}}"#)
        let laidOut = try digests("{\n  \"name\": \"a\",\n  \"inat\": [ \"d\" ],\n  \"select\": {\"bbox\": [0, 0, 1, 1]},\n  \"costs\": {\"measured_sizes\": \"m.csv\", \"bytes_per_pixel\": 2},\n  \"targets\": []\n}")
        #expect(laidOut == base)
        let selected = try digests(#"{"name": "a", "inat": ["d"], "select": {"bbox": [0, 0, 2, 1]}, "costs": {"measured_sizes": "m.csv", "bytes_per_pixel": 4}}"#)
        #expect(selected[.inat] != base[.inat] && selected[.dedupe] != base[.dedupe] && selected[.wiki] == base[.wiki])
        let wiki = try digests(#"{"name": "a", "inat": ["d"], "select": {"bbox": [0, 0, 1, 1]}, "costs": {"measured_sizes": "m.csv", "bytes_per_pixel": 4}, "wikipedia_language": "de"}"#)
        #expect(wiki[.inat] == base[.inat] && wiki[.wiki] != base[.wiki])
        #expect(try digests("not json")[.inat] == .some(nil))
        // A destination's name is the bundle's; its article and id the wiki stage's.
        let named = try digests(#"{"destinations": [{"id": "a", "name": "A", "wikipedia": "X"}]}"#)
        #expect(try digests(#"{"destinations": [{"name": "Park A", "id": "a", "wikipedia": "X", "wikidata": null}]}"#)[.wiki] == named[.wiki])
        #expect(try digests(#"{"destinations": [{"id": "a", "name": "A", "wikipedia": "Y"}]}"#)[.wiki] != named[.wiki])
        #expect(try digests(#"{"destinations": [{"id": "b", "name": "A", "wikipedia": "X"}]}"#)[.wiki] != named[.wiki])
    }

    /// A build folder stands for its depfiles and its folders' two deep, hidden ones and other
    /// shard counts' left out.
    @Test func aBuildFoldersDepfilesAreFoundTwoFoldersDeep() throws {
        let directory = try TemporaryDirectory()
        for name in ["content.d", "inat/records.d", "inat/shard-0-of-2/summary.d", "inat/shard-0-of-2/part-1.jsonl", "wiki/articles.d",
                     "a/b/c/deep.d", ".hidden/x.d", "inat/.records.d.tmp-1", "bundle/manifest.json"] {
            _ = try directory.write(name, "x:\n")
        }
        try FileManager.default.createDirectory(atPath: directory.file("folder.d"), withIntermediateDirectories: true)
        _ = try directory.write("inat/shard-0-of-1000/summary.d", "x:\n")
        // Shards of another count (an earlier build's) are passed over; without a count, all shards.
        #expect(Depfile.depfiles(under: directory.path, shards: 2) == [
            "content.d", "inat/records.d", "inat/shard-0-of-2/summary.d", "wiki/articles.d",
        ].map(directory.file))
        #expect(Depfile.depfiles(under: directory.path) == ["content.d", "inat/records.d", "wiki/articles.d"].map(directory.file))
    }

    /// A tab or a line break in an input's path cannot be named in a rule: refused, naming the
    /// path, before ingest reads anything, where a line break stopped every later make on
    /// "missing separator" and a tab made every make run every stage again.
    @Test(arguments: ["d\tx", "d\nx", "d\rx", "d\\#x", "d\\"])
    func anInputPathMakeCannotNameIsRefusedBeforeIngestReadsIt(folder: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("\(folder)/page.json", page([observationJSON(id: 1)]))
        var options = INatIngest.Options(inputs: [input], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.depfile = directory.file("records.d")
        let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(error.path == input.debugDescription)
        #expect(error.message.hasPrefix("holds a") && error.message.contains("make cannot name it in a rule"), "\(error)")
        for output in ["records.jsonl", "rejects.jsonl", "records.d"] {
            #expect(!FileManager.default.fileExists(atPath: directory.file(output)), "\(output)")
        }
        #expect(throws: FieldpackError.self) { try Depfile.write(directory.file("x.d"), target: directory.file("x"), prerequisites: [input]) }
        // A folder walked for inputs whose name ends in `)`: make reads it as an archive's member.
        let madeira = try #require(throws: FieldpackError.self) { try Depfile.check([directory.file("Madeira (2024)")]) }
        #expect(madeira.message.hasPrefix("ends in a parenthesis"), "\(madeira)")
        // Without a depfile, ingest reads it.
        options.depfile = nil
        #expect(try INatIngest(options: options).run().accepted == 1)
    }
}
