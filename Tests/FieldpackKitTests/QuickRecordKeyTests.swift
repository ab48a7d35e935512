import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// A records line's key read from its first bytes (`RecordKey.quick`, which a sharded ingest's
/// partitioning and a spilling dedupe's split and merge use) is the key its parse gives, on every
/// line it reads; a line it cannot read plainly is left to the parse.
@Suite struct QuickRecordKeyTests {
    /// The key of `line` from its parse, as `PartitionedOutput` and `MergedRecords` take it.
    static func parsedKey(_ line: [UInt8]) throws -> (kind: RecordKind, key: RecordKey?)? {
        let parser = JSONParser()
        var columns = JSONColumns()
        return try withExtendedLifetime(parser) {
            guard columns.load(try parser.parse(PaddedBuffer(copying: line))), let tag = columns.text(0),
                  let kind = RecordKind(tag: tag)
            else { return nil }
            return (kind, kind == .input ? nil : RecordKey.of(kind, columns))
        }
    }

    static func quick(_ line: [UInt8]) -> (kind: RecordKind, key: RecordKey?)? {
        line.withUnsafeBytes { RecordKey.quick($0) }
    }

    @Test(arguments: ["pipelines/sample.json", "pipelines/open-data-sample.json", "pipelines/select-sample.json"])
    func everyLineOfTheSampleRecordsKeysAsItsParseDoes(pipeline: String) throws {
        let directory = try TemporaryDirectory()
        _ = try DedupeSelectionTests.build(pipeline, dedupeSelects: true, in: directory)
        var quick = 0
        var total = 0
        for file in ["records.jsonl", "deduped.jsonl"] {
            for line in try lines(directory.file(file)) where !line.isEmpty {
                let bytes = Array(line.utf8)
                total += 1
                guard let read = Self.quick(bytes) else { continue }
                quick += 1
                let parsed = try #require(try Self.parsedKey(bytes))
                #expect(read.kind == parsed.kind && read.key == parsed.key, "\(line)")
            }
        }
        // Nearly every line is read plainly (the API sample's made-up uuids are not).
        #expect(quick * 10 > total * 8, "\(quick) of \(total)")
    }

    @Test func edgeLinesAreReadAsTheirParseReadsThemOrLeftToIt() throws {
        let uuid = "dc4db65e-2108-4a7a-85fa-77eaabd3d722"
        let lines = [
            #"["obs",-9223372036854775808,"\#(uuid)",null,"0:1"]"#, #"["obs",9223372036854775807,null,"0:1"]"#,
            #"["obs",-5516511535925109369,"\#(uuid)",[],"links","2:2"]"#, #"["photo",0,null,"0:1"]"#,
            #"["photo",9223372036854775808,null]"#, #"["photo",007,null]"#, #"["photo",1.5,null]"#, #"["photo", 7,null]"#,
            #"["obs",12,"u-12",null]"#, #"["obs",12,"dc4db65e-2108-4a7a-85fa-77eaabd3d72\u0032",null]"#,
            #"["taxon",48662,"api","Danaus plexippus"]"#, #"["user",7]"#, #"["select","abc",{"places":1},null,0]"#,
            #"["input",0,"a.json",1,"ab","json-lines",1,0,0,null]"#, #"["phot",7,null]"#, #"["obs",12"#,
        ]
        for line in lines {
            let bytes = Array(line.utf8)
            guard let read = Self.quick(bytes) else { continue }
            let parsed = try #require(try? Self.parsedKey(bytes), "\(line)")
            #expect(read.kind == parsed.kind && read.key == parsed.key, "\(line)")
        }
        #expect(Self.quick(Array(lines[0].utf8))?.key != nil)
        #expect(Self.quick(Array(#"["photo",007,null]"#.utf8)) == nil)
        #expect(Self.quick(Array(#"["photo",9223372036854775808,null]"#.utf8)) == nil)
    }
}
