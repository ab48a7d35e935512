import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// `fieldpack-pipeline init` (what `make bundle INAT=… WIKIPEDIA=…` runs): a pipeline file from
/// arguments, that the stages read like a written one.
@Suite struct PipelineTemplateTests {
    @Test func theWrittenFileIsAPipelineWithThoseInputsAndEveryOtherKeyAtItsDefault() throws {
        let directory = try TemporaryDirectory()
        let inat = try directory.write("dumps/inat/page-1.json", "{}")
        let wiki = try directory.write("dumps/wiki/enwiki.ndjson", "")
        let path = directory.file("build/mine/pipeline.json")
        let template = PipelineTemplate(name: "mine", inat: [directory.file("dumps/inat")], wikipedia: [wiki], maxRejectRate: 0.05)
        try template.check()
        #expect(try template.write(to: path))
        let pipeline = try Pipeline.load(path)
        #expect(pipeline.name == "mine")
        #expect(try pipeline.resolveINatInputs().files == [inat])
        #expect(try pipeline.resolveWikipediaInputs().files == [wiki])
        #expect(pipeline.maxRejectRate == 0.05)
        #expect(pipeline.destinations.isEmpty && pipeline.shipping.targets.isEmpty)
        #expect(pipeline.shipping.licenses == License.commercialDefault)
    }

    /// make runs it on every `make bundle`: the same arguments must not make the stages rerun.
    @Test func theSameArgumentsLeaveTheFileAndItsTimeAlone() throws {
        let directory = try TemporaryDirectory()
        try directory.write("inat/page.json", "{}")
        let path = directory.file("pipeline.json")
        #expect(try PipelineTemplate(name: "mine", inat: [directory.file("inat")]).write(to: path))
        let past = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: path)
        #expect(try !PipelineTemplate(name: "mine", inat: [directory.file("inat")]).write(to: path))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == past)
        // A file written before there were records (or whose run died before writing it) gets its
        // record, so that later edits to it are known.
        try FileManager.default.removeItem(atPath: directory.file(".pipeline.json.written-sha256"))
        #expect(try !PipelineTemplate(name: "mine", inat: [directory.file("inat")]).write(to: path))
        #expect(PipelineTemplate.wasWritten(path))
        // Other inputs do change it.
        #expect(try PipelineTemplate(name: "mine", inat: [directory.file("inat/page.json")]).write(to: path))
        #expect(try Pipeline.load(path).inat == [directory.file("inat/page.json")])
    }

    /// Edits to the written file are never written over silently: a run with the same
    /// arguments or with others is refused, with what to do instead (copy it under a name of
    /// its own); removed, it is written again.
    @Test func aFileEditedByHandIsNotWrittenOver() throws {
        let directory = try TemporaryDirectory()
        try directory.write("inat/page.json", "{}")
        let path = directory.file("pipeline.json")
        #expect(try PipelineTemplate(name: "mine", inat: [directory.file("inat")]).write(to: path))
        let edited = try text(path).replacingOccurrences(of: "\"name\"", with: "\"targets\": [{\"name\": \"cell\", \"width\": 60, \"height\": 60}], \"name\"")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        for inat in [directory.file("inat"), directory.file("inat/page.json")] {
            let error = try #require(throws: FieldpackError.self) { try PipelineTemplate(name: "mine", inat: [inat]).write(to: path) }
            #expect(error.path == path && error.message.contains("was edited since it was written"), "\(error)")
            #expect(try text(path) == edited)
        }
        // Removed, it is written again.
        try FileManager.default.removeItem(atPath: path)
        #expect(try PipelineTemplate(name: "mine", inat: [directory.file("inat")]).write(to: path))
    }

    @Test func aPathWithQuotesAndNonASCIILettersIsWrittenAsValidJSON() throws {
        let directory = try TemporaryDirectory()
        let odd = try directory.write("données \"2024\"\\x.json", "{}")
        let path = directory.file("pipeline.json")
        try PipelineTemplate(name: "odd", inat: [odd]).write(to: path)
        #expect(try Pipeline.load(path).inat == [odd])
    }

    @Test func aBadNameNoInputsAMissingInputAndABadRateAreRefused() throws {
        let directory = try TemporaryDirectory()
        try directory.write("inat/page.json", "{}")
        let inat = directory.file("inat")
        let name = try #require(throws: UsageError.self) { try PipelineTemplate(name: "../escape", inat: [inat]).check() }
        #expect(name.message == #"the pipeline name "../escape" must be letters, digits, '.', '-' or '_' (it names build/<name>/)"#)
        #expect(throws: UsageError.self) { try PipelineTemplate(name: "mine", inat: []).check() }
        #expect(throws: UsageError.self) { try PipelineTemplate(name: "mine", inat: [inat], maxRejectRate: 1.5).check() }
        let missing = try #require(throws: FieldpackError.self) {
            try PipelineTemplate(name: "mine", inat: [inat], wikipedia: [directory.file("nope/*.ndjson")]).check()
        }
        #expect(missing.description.hasPrefix("\(directory.file("nope/*.ndjson")): error: given with --wikipedia: "), "\(missing)")
    }
}
