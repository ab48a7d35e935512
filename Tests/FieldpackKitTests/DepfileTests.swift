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
