import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// API pages and the open-data export in one pipeline: the same observation (by uuid), photo
/// (by id), taxon or user from both is one row. The newest copy wins, an export copy dated by its
/// export; an export copy that wins takes its photo links from its photo rows and every column the
/// export lacks (the API id, place, privacy, common name…) from the best API copy.
@Suite struct OpenDataMergeTests {
    static let uuid = "5a0c7e62-3f1b-4d8e-9c2a-6b1f0e4d7a10"
    static let otherUUID = "a3d9e1f4-77c2-4b6a-8e05-2c9d4f6b1e23"

    /// The export's four tables (dated 2024-11-27 by the folder's name): two observations, a
    /// photo in both of them (two rows), the observer with a `None` name, the taxon and its
    /// ancestors.
    private func writeExport(in directory: TemporaryDirectory) throws -> [String] {
        let folder = "inaturalist-open-data-20241127"
        return [
            try directory.write("\(folder)/observations.csv", """
                observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\tanomaly_score
                \(Self.uuid)\t7\t50.5000000000\t4.2500000000\t900\t48662\tresearch\t2024-04-30\t0.1
                \(Self.otherUUID)\t7\t50.6000000000\t4.3500000000\t\t48662\tneeds_id\t2024-05-02\t

                """),
            try directory.write("\(folder)/photos.csv", """
                photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e01\t501\t\(Self.uuid)\t7\tjpg\tCC-BY\t\t\t0
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e02\t502\t\(Self.uuid)\t7\tJPG\tCC-BY\t2048\t1536\t1
                0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e02\t502\t\(Self.otherUUID)\t7\tJPG\tCC-BY\t2048\t1536\t0

                """),
            try directory.write("\(folder)/observers.csv", "observer_id\tlogin\tname\n7\tkim\tNone\n"),
            try directory.write("\(folder)/taxa.csv", """
                taxon_id\tancestry\trank_level\trank\tname\tactive
                48460\t\t100\tstateofmatter\tLife\ttrue
                1\t48460\t70\tkingdom\tAnimalia\ttrue
                48662\t48460/1\t10\tspecies\tDanaus plexippus\ttrue

                """),
        ]
    }

    /// The API's copy of the first observation (its uuid in upper case), last updated at `updatedAt`.
    private func writeAPICopy(in directory: TemporaryDirectory, updatedAt: String, place: String = "Zwin, BE") throws -> String {
        try directory.write("api/observation.json", """
            {"id":9100001,"uuid":"\(Self.uuid.uppercased())","quality_grade":"research","observed_on":"2024-04-30",\
            "created_at":"2024-04-30T09:00:00+00:00","updated_at":"\(updatedAt)","location":"50.5,4.25",\
            "place_guess":"\(place)","geoprivacy":"obscured","positional_accuracy":12,"public_positional_accuracy":900,\
            "license_code":"cc-by",\
            "taxon":{"id":48662,"name":"Danaus plexippus","rank":"species","rank_level":10,"ancestry":"48460/1","preferred_common_name":"Monarque"},\
            "user":{"id":7,"login":"kim","name":"Kim Ito"},\
            "observation_photos":[{"id":1,"position":0,"photo":{"id":501,"license_code":"cc-by",\
            "url":"https://inaturalist-open-data.s3.amazonaws.com/photos/501/square.jpg","attribution":"(c) Kim Ito, some rights reserved (CC BY)",\
            "original_dimensions":{"width":1024,"height":768}}}]}
            """)
    }

    private func deduped(_ inputs: [String], in directory: TemporaryDirectory) throws -> [[String: Any]] {
        try ingestAndDedupe(inputs, in: directory)
        return try recordLines(directory.file("deduped.jsonl"), deduped: true)
    }

    /// An API copy without its uuid cannot merge with the export's copy of the same observation
    /// (nothing else ties them, so both ship): said in a notice, not silent; API pages alone,
    /// with no export to merge with, need none.
    @Test func anAPICopyWithoutItsUUIDBesideTheExportIsSaidInANotice() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let api = try directory.write("api/observation.json", String(
            try String(contentsOfFile: try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z"), encoding: .utf8)
                .replacingOccurrences(of: "\"uuid\":\"\(Self.uuid.uppercased())\",", with: "")))
        #expect(!(try String(contentsOfFile: api, encoding: .utf8)).contains("uuid"))
        func notices(_ inputs: [String]) throws -> [String] {
            let out = try TemporaryDirectory()
            let options = INatIngest.Options(inputs: inputs, output: out.file("records.jsonl"), rejects: out.file("rejects.jsonl"))
            return try INatIngest(options: options).run().notices
        }
        let said = try notices(export + [api])
        #expect(said.contains { $0.hasPrefix("1 observation from API pages has no uuid") && $0.contains("cannot merge with the open-data export's copy") }, "\(said)")
        #expect(try notices([api]).isEmpty)
        #expect(try notices(export + [try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")]).isEmpty)
    }

    @Test func anObservationInBothSourcesIsOneRecordWithTheAPIIdAndTheNewerExportsLinks() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let records = try deduped(export + [api], in: directory)
        let observations = records.filter { $0["k"] as? String == "obs" }
        #expect(observations.count == 2)
        let merged = try #require(observations.first { ($0["uuid"] as? String)?.lowercased() == Self.uuid })
        // The export (2024-11-27) is newer than the API copy (2024-10-01): its columns win…
        #expect(merged["seen"] as? Int == 1_732_665_600_000)
        #expect(merged["uuid"] as? String == Self.uuid)
        #expect(merged["positional_accuracy"] as? Int == 900)
        #expect(merged["photos"] as? [[Int]] == [[501, 0], [502, 1]])
        // …and the API copy gives what the export does not carry.
        #expect(merged["id"] as? Int == 9_100_001)
        #expect(merged["place_guess"] as? String == "Zwin, BE")
        #expect(merged["geoprivacy"] as? String == "obscured")
        #expect(merged["license"] as? String == "cc-by")
        #expect(merged["part"] is NSNull)
        let exportOnly = try #require(observations.first { $0["uuid"] as? String == Self.otherUUID })
        #expect(((exportOnly["id"] as? NSNumber)?.doubleValue ?? 0) < 0)
        #expect(exportOnly["photos"] as? [[Int]] == [[502, 0]])
        // The taxon: the export's copy, with the API's common name.
        let taxon = try #require(records.first { $0["k"] as? String == "taxon" && $0["id"] as? Int == 48662 })
        #expect(taxon["from"] as? String == "open-data")
        #expect(taxon["preferred_common_name"] as? String == "Monarque")
        // One photo 502, though two rows; photo 501 from the export, with the API copy's size.
        let photos = records.filter { $0["k"] as? String == "photo" }
        #expect(photos.map { $0["id"] as? Int } == [501, 502])
        #expect(photos[0]["width"] as? Int == 1024 && photos[0]["height"] as? Int == 768)
        #expect(photos[1]["url"] as? String == "https://inaturalist-open-data.s3.amazonaws.com/photos/502/square.JPG")
    }

    /// Dedupe holds an export row's one link in its summary (`RecordOccurrence.heldLink`); a links
    /// record of any other shape (several pairs, a pair of three, a pair that is no pair of
    /// integers) is read back from the file, and the observation's links are the same either way:
    /// its export's links, each photo once at its lowest position, by position.
    @Test func linksRecordsOfEveryShapeGiveTheObservationItsExportsLinks() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        try ingestAndDedupe(export, in: directory)
        let records = directory.file("records.jsonl")
        let link = try #require(try lines(records).first { $0.contains(Self.otherUUID) && $0.contains("\"links\"") })
        #expect(link.contains("[[502,0]]"))
        func variant(_ photos: String, seen: String = "1732665600000") -> String {
            link.replacingOccurrences(of: "[[502,0]]", with: photos).replacingOccurrences(of: "1732665600000", with: seen)
        }
        let extra = [
            variant("[[503,2],[504,1]]"), variant("[[505,3,9]]"), variant("[[506,\"x\"]]"), variant("[[502,4]]"),
            variant("[[507,0]]", seen: "1700000000000"),  // another export's: not this copy's links
        ]
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: records))
        handle.seekToEndOfFile()
        handle.write(Data((extra.joined(separator: "\n") + "\n").utf8))
        try handle.close()
        try Dedupe(options: .init(
            input: records, output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))).run()
        let deduped = try recordLines(directory.file("deduped.jsonl"), deduped: true)
        let observation = try #require(deduped.first { $0["k"] as? String == "obs" && $0["uuid"] as? String == Self.otherUUID })
        #expect(observation["photos"] as? [[Int]] == [[502, 0], [504, 1], [503, 2], [505, 3]])
    }

    /// The export with a tab too many in the first observations row (two rows of the real 2022
    /// export have one) and in the observer's name: each is kept for its key alone.
    private func writeExportWithStrayTabs(in directory: TemporaryDirectory) throws -> [String] {
        let export = try writeExport(in: directory)
        try text(export[0]).replacingOccurrences(of: "\tresearch\t2024-04-30\t0.1", with: "\tresearch\t\t2024-04-30\t0.1")
            .write(toFile: export[0], atomically: true, encoding: .utf8)
        try "observer_id\tlogin\tname\n7\tkim\tKim\tIto\n".write(toFile: export[2], atomically: true, encoding: .utf8)
        return export
    }

    /// A row kept for its key alone has unknown values, not empty ones: it never outranks a copy
    /// that has them, whatever its date. The older API copy's values win over the newer export's
    /// row of the observation, and the API's user over the observers row.
    @Test func anExportRowKeptForItsKeyAloneNeverOutranksACopyWithValues() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExportWithStrayTabs(in: directory)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let records = try deduped(export + [api], in: directory)
        let merged = try #require(records.first { $0["k"] as? String == "obs" && ($0["uuid"] as? String)?.lowercased() == Self.uuid })
        #expect(merged["id"] as? Int == 9_100_001)
        #expect(merged["taxon"] as? Int == 48662 && merged["quality_grade"] as? String == "research")
        #expect(merged["lat"] as? Double == 50.5 && merged["observed_on"] as? String == "2024-04-30")
        #expect(merged["part"] is NSNull)
        let user = try #require(records.first { $0["k"] as? String == "user" && $0["id"] as? Int == 7 })
        #expect(user["login"] as? String == "kim" && user["name"] as? String == "Kim Ito")
        // Under a place selection, pruned in ingest, the observation is kept by the API copy's point.
        var selection = Selection()
        selection.places.boxes = [BoundingBox(west: 4, south: 50, east: 5, north: 51)]
        let selecting = try TemporaryDirectory()
        _ = try DedupeSelectionTests.build(inputs: export + [api], selection: selection, dedupeSelects: true, in: selecting, ingestSelects: true)
        let kept = try Database(path: selecting.file("content.sqlite"), mode: .readOnly).rows("SELECT id, taxon_id FROM observations ORDER BY id")
        #expect(kept.contains { $0 == ["9100001", "48662"] }, "\(kept)")
    }

    /// Alone, a row kept for its uuid is the observation, from its export, with its export's
    /// photo links, and no mark.
    @Test func anExportRowKeptForItsKeyAloneIsWrittenWithItsLinksWhenNoOtherCopyHasValues() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExportWithStrayTabs(in: directory)
        let records = try deduped(export, in: directory)
        let alone = try #require(records.first { $0["k"] as? String == "obs" && $0["uuid"] as? String == Self.uuid })
        #expect(alone["photos"] as? [[Int]] == [[501, 0], [502, 1]])
        #expect(alone["part"] is NSNull && alone["taxon"] is NSNull)
    }

    @Test func aNewerAPICopyWinsWithItsOwnPhotoList() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let api = try writeAPICopy(in: directory, updatedAt: "2025-01-05T09:00:00Z")
        let observations = try deduped(export + [api], in: directory).filter { $0["k"] as? String == "obs" }
        let merged = try #require(observations.first { $0["id"] as? Int == 9_100_001 })
        #expect(merged["photos"] as? [[Int]] == [[501, 0]])
        #expect(merged["positional_accuracy"] as? Int == 900, "the public accuracy of an obscured observation")
        // The API copy spells it in upper case; the records hold every uuid in lower case.
        #expect(merged["uuid"] as? String == Self.uuid.lowercased())
    }

    /// A newer API copy fetched without its photo lists (a request whose `fields` left out
    /// `observation_photos` and `photos`) says nothing of the photos: it won with none beside an
    /// older API copy that lists them. It takes that copy's list (not the export's links, which
    /// ingest's pruning may have left out).
    @Test func aNewerAPICopyWithoutPhotoListsTakesThePhotosOfACopyThatListsThem() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let listed = try writeAPICopy(in: directory, updatedAt: "2025-01-05T09:00:00Z")
        let text = try String(contentsOfFile: listed, encoding: .utf8)
        let cut = try #require(text.range(of: ",\"observation_photos\""))
        let sparse = try directory.write("api/sparse.json", String(text[..<cut.lowerBound]).replacingOccurrences(of: "2025-01-05", with: "2025-02-01") + "}")
        try FileManager.default.removeItem(atPath: listed)
        let observations = try deduped(export + [sparse], in: directory).filter { $0["k"] as? String == "obs" }
        let merged = try #require(observations.first { $0["id"] as? Int == 9_100_001 })
        #expect(merged["updated_at"] as? String == "2025-02-01T09:00:00Z", "the API copy wins")
        // Not the export's links, which ingest may have pruned by the export row's own values.
        #expect(merged["photos"] as? [[Int]] == [], "\(merged)")
        // Beside an older API copy that lists its photos: that copy's list.
        let both = try TemporaryDirectory()
        let older = try writeAPICopy(in: both, updatedAt: "2025-01-05T09:00:00Z")
        let newer = try both.write("api/sparse.json", String(text[..<cut.lowerBound]).replacingOccurrences(of: "2025-01-05", with: "2025-02-01") + "}")
        let pages = try deduped([older, newer], in: both).filter { $0["k"] as? String == "obs" }
        #expect(pages.count == 1)
        #expect(pages.first?["updated_at"] as? String == "2025-02-01T09:00:00Z")
        #expect(pages.first?["photos"] as? [[Int]] == [[501, 0]], "\(pages)")
        // Alone, it is written with no photos, as an array, and ingest says why.
        let alone = try TemporaryDirectory()
        let only = try alone.write("api/sparse.json", String(text[..<cut.lowerBound]) + "}")
        #expect(try deduped([only], in: alone).first { $0["k"] as? String == "obs" }?["photos"] as? [[Int]] == [])
        let said = try INatIngest(options: .init(inputs: [only], output: alone.file("again.jsonl"), rejects: alone.file("again-rejects.jsonl"))).run().notices
        #expect(said.contains { $0.hasPrefix("1 observation from API pages lists no photos (neither observation_photos nor photos") }, "\(said)")
        let listing = try INatIngest(options: .init(inputs: [older], output: both.file("again.jsonl"), rejects: both.file("again-rejects.jsonl"))).run()
        #expect(listing.notices.isEmpty, "\(listing.notices)")
    }

    /// A newer API copy fetched with some fields left out (a request whose `fields` do not name
    /// them) does not know them: it won with no taxon, grade or licence beside copies that have
    /// them, and a selection of research grade then removed the observation. It takes them from
    /// the best other copy that knows them; a null it gives is its word, and the point is
    /// never taken from another copy (it may be the exact one of an observation obscured since).
    @Test func aNewerAPICopyFetchedWithoutSomeFieldsTakesThemFromTheCopiesThatKnowThem() throws {
        func sparse(_ full: String, in directory: TemporaryDirectory) throws -> String {
            var text = try String(contentsOfFile: full, encoding: .utf8).replacingOccurrences(of: "2025-01-05", with: "2025-02-01")
            for cut in [#""quality_grade":"research","#, #""license_code":"cc-by","#, #""location":"50.5,4.25","#, #""geoprivacy":"obscured","#] {
                #expect(text.contains(cut))
                text = text.replacingOccurrences(of: cut, with: "")
            }
            let taxon = try #require(text.range(of: #""taxon":\{[^}]*\},"#, options: .regularExpression))
            text.removeSubrange(taxon)
            text = text.replacingOccurrences(of: #""observed_on":"2024-04-30""#, with: #""observed_on":null"#)
            return try directory.write("api/sparse.json", text)
        }
        let directory = try TemporaryDirectory()
        let older = try writeAPICopy(in: directory, updatedAt: "2025-01-05T09:00:00Z")
        let newer = try sparse(older, in: directory)
        let merged = try #require(try deduped([older, newer], in: directory).first { $0["k"] as? String == "obs" })
        #expect(merged["updated_at"] as? String == "2025-02-01T09:00:00Z", "the newer copy wins")
        #expect(merged["taxon"] as? Int == 48662 && merged["quality_grade"] as? String == "research", "\(merged)")
        #expect(merged["license"] as? String == "cc-by", "\(merged)")
        #expect(merged["observed_on"] is NSNull, "its null is its word: \(merged)")
        #expect(merged["lat"] is NSNull && merged["lng"] is NSNull && merged["geoprivacy"] is NSNull, "\(merged)")
        // With only the export beside it: the columns the export carries, from the export.
        let withExport = try TemporaryDirectory()
        let export = try writeExport(in: withExport)
        let full = try writeAPICopy(in: withExport, updatedAt: "2025-01-05T09:00:00Z")
        let alone = try sparse(full, in: withExport)
        try FileManager.default.removeItem(atPath: full)
        let fromExport = try #require(try deduped(export + [alone], in: withExport).first { $0["k"] as? String == "obs" && $0["id"] as? Int == 9_100_001 })
        #expect(fromExport["updated_at"] as? String == "2025-02-01T09:00:00Z", "the API copy wins")
        #expect(fromExport["taxon"] as? Int == 48662 && fromExport["quality_grade"] as? String == "research", "\(fromExport)")
        #expect(fromExport["license"] is NSNull, "the export carries no observation licence: \(fromExport)")
        // Alone it is written as it came.
        let single = try TemporaryDirectory()
        let only = try sparse(try writeAPICopy(in: single, updatedAt: "2025-01-05T09:00:00Z"), in: single)
        try FileManager.default.removeItem(atPath: single.file("api/observation.json"))
        let written = try #require(try deduped([only], in: single).first { $0["k"] as? String == "obs" })
        #expect(written["taxon"] is NSNull && written["quality_grade"] is NSNull, "\(written)")
        // Ingest says what the request left out.
        let said = try INatIngest(options: .init(inputs: [only], output: single.file("again.jsonl"), rejects: single.file("again-rejects.jsonl"))).run().notices
        #expect(said.contains(
            "observations from API pages leave out taxon (1 of them), quality_grade (1 of them), license_code (1 of them) (a request whose fields "
                + "do not name them): each is taken from another copy of the observation that has it, else ships empty; request them with the observations"),
            "\(said)")
        let whole = try INatIngest(options: .init(inputs: [older], output: directory.file("again.jsonl"), rejects: directory.file("again-rejects.jsonl"))).run()
        #expect(whole.notices.isEmpty, "\(whole.notices)")
    }

    /// An export copy that wins keeps the export's values, but a value its row gave unusable
    /// (dropped, a finding) or a date the export left blank (it blanks one before 1800) is
    /// unknown, not empty: it is the API copy's. They wiped the API copy's taxon, grade, date
    /// and point, and a selection then removed the observation on values it did not have.
    @Test func anExportCopyThatWinsTakesWhatItsRowLeftUnknownFromTheAPICopy() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let observations = try #require(export.first { $0.hasSuffix("observations.csv") })
        let table = try String(contentsOfFile: observations, encoding: .utf8)
        try table.replacingOccurrences(of: "\(Self.uuid)\t7\t50.5000000000\t4.2500000000\t900\t48662\tresearch\t2024-04-30",
                                       with: "\(Self.uuid)\t7\t95\t4.2500000000\t900\t48662x\tResearch\t")
            .write(toFile: observations, atomically: false, encoding: .utf8)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let merged = try #require(try deduped(export + [api], in: directory).first { $0["k"] as? String == "obs" && $0["id"] as? Int == 9_100_001 })
        #expect(merged["seen"] as? Int == 1_732_665_600_000, "the export's copy wins")
        #expect(merged["taxon"] as? Int == 48662 && merged["quality_grade"] as? String == "research", "\(merged)")
        #expect(merged["observed_on"] as? String == "2024-04-30", "\(merged)")
        // Not a point: the API copy's may be the exact one of an observation obscured since.
        #expect(merged["lat"] is NSNull && merged["lng"] is NSNull, "\(merged)")
        #expect(merged["positional_accuracy"] as? Int == 900, "the export's own accuracy")
        #expect(merged["unknown"] is NSNull)
        // A value the export gives empty (no point: private since) stays the export's word.
        let blank = try TemporaryDirectory()
        let tables = try writeExport(in: blank)
        let file = try #require(tables.first { $0.hasSuffix("observations.csv") })
        try String(contentsOfFile: file, encoding: .utf8)
            .replacingOccurrences(of: "\(Self.uuid)\t7\t50.5000000000\t4.2500000000\t900", with: "\(Self.uuid)\t7\t\t\t")
            .write(toFile: file, atomically: false, encoding: .utf8)
        let kept = try #require(try deduped(tables + [try writeAPICopy(in: blank, updatedAt: "2024-10-01T09:00:00Z")], in: blank)
            .first { $0["k"] as? String == "obs" && $0["id"] as? Int == 9_100_001 })
        #expect(kept["lat"] is NSNull && kept["lng"] is NSNull, "\(kept)")
    }

    /// The same for a taxon: an export taxa row whose ancestry is unusable (dropped) left the
    /// winning copy without one, and a taxon subtree's rule then removed its observations.
    @Test func anExportTaxonThatWinsTakesTheAncestryItsRowLeftUnknownFromTheAPICopy() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let taxa = try #require(export.first { $0.hasSuffix("taxa.csv") })
        try String(contentsOfFile: taxa, encoding: .utf8).replacingOccurrences(of: "48662\t48460/1\t", with: "48662\t48460/1 \t")
            .write(toFile: taxa, atomically: false, encoding: .utf8)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let taxon = try #require(try deduped(export + [api], in: directory).first { $0["k"] as? String == "taxon" && $0["id"] as? Int == 48662 })
        #expect(taxon["from"] as? String == "open-data", "the export's copy wins: \(taxon)")
        #expect(taxon["ancestry"] as? String == "48460/1", "\(taxon)")
        #expect(taxon["rank"] as? String == "species" && taxon["unknown"] is NSNull, "\(taxon)")
    }

    /// A photos table of another export date than the observations (here a loose copy, undated,
    /// beside the dated folder's other tables) linked no photo: every export photo shipped
    /// unlinked with exit 0 and a notice. Dedupe refuses it, naming both dates; the same tables
    /// all dated alike pass.
    @Test func photoRowsAndObservationsOfNoCommonExportDateAreRefused() throws {
        let directory = try TemporaryDirectory()
        var tables = try writeExport(in: directory)
        let photos = try #require(tables.first { $0.hasSuffix("photos.csv") })
        let loose = directory.file("photos.csv")
        try FileManager.default.moveItem(atPath: photos, toPath: loose)
        tables = tables.map { $0 == photos ? loose : $0 }
        let error = try #require(throws: FieldpackError.self) { try ingestAndDedupe(tables, in: directory) }
        #expect(error.message.contains("share no export date (photo rows: no date; observations: 2024-11-27)"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("deduped.jsonl")))
        let together = try TemporaryDirectory()
        #expect(try deduped(try writeExport(in: together), in: together).contains { $0["k"] as? String == "obs" })
    }

    /// An export given without its photos table says nothing of the observation's photos: its copy
    /// that wins keeps the API copy's links rather than shipping the observation with none.
    @Test func anExportCopyThatWinsWithoutPhotoRowsKeepsTheAPICopysLinks() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory).filter { !$0.hasSuffix("photos.csv") }
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let observations = try deduped(export + [api], in: directory).filter { $0["k"] as? String == "obs" }
        let merged = try #require(observations.first { $0["id"] as? Int == 9_100_001 })
        #expect(merged["seen"] as? Int == 1_732_665_600_000, "the export's copy wins")
        #expect(merged["photos"] as? [[Int]] == [[501, 0]])
        let exportOnly = try #require(observations.first { $0["uuid"] as? String == Self.otherUUID })
        #expect(exportOnly["photos"] as? [[Int]] == [])
        // With the photos table, no row for it is no open photo (relicensed or deleted since the
        // API copy): the newer export's word, not the API copy's list.
        let withTable = try TemporaryDirectory()
        var tables = try writeExport(in: withTable)
        let photos = try #require(tables.first { $0.hasSuffix("photos.csv") })
        try String(try String(contentsOfFile: photos, encoding: .utf8).split(separator: "\n").filter { !$0.contains(Self.uuid) }
            .joined(separator: "\n") + "\n").write(toFile: photos, atomically: false, encoding: .utf8)
        tables.append(try writeAPICopy(in: withTable, updatedAt: "2024-10-01T09:00:00Z"))
        let relicensed = try #require(try deduped(tables, in: withTable).first { $0["k"] as? String == "obs" && $0["id"] as? Int == 9_100_001 })
        #expect(relicensed["photos"] as? [[Int]] == [], "\(relicensed)")
    }

    /// The same export read twice (here two copies of its folder; a `.tar.gz` beside its unpacked
    /// tables is the same case): the copies tie on everything, and the observation's origin (the
    /// file and line its findings name) is the first path's, whatever the argument order.
    @Test func twoCopiesOfOneExportGiveTheSameOriginWhateverTheOrder() throws {
        let inputs = try TemporaryDirectory()
        let first = try writeExport(in: inputs)
        let second = try first.map { path in
            let copy = path.replacingOccurrences(of: "inaturalist-open-data-", with: "mirror/inaturalist-open-data-")
            try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            return copy
        }
        func records(_ order: [String]) throws -> [String] {
            let out = try TemporaryDirectory()
            try ingestAndDedupe(order, in: out)
            return try lines(out.file("deduped.jsonl")).filter { !$0.hasPrefix("[\"input\"") }
        }
        let forward = try records(first + second)
        #expect(forward.contains { $0.contains("\(first[0])\",2]") }, "\(forward)")
        #expect(try records(second + first) == forward)
        #expect(try records(first + second.reversed()) == forward)
    }

    @Test func theMergeIsTheSameWhateverTheInputOrder() throws {
        let inputs = try TemporaryDirectory()
        let export = try writeExport(in: inputs)
        let api = try writeAPICopy(in: inputs, updatedAt: "2024-10-01T09:00:00Z")
        let second = try TemporaryDirectory()
        try ingestAndDedupe(export + [api], in: second)
        let third = try TemporaryDirectory()
        try ingestAndDedupe([api] + export.reversed(), in: third)
        func records(_ directory: TemporaryDirectory) throws -> [String] {
            try lines(directory.file("deduped.jsonl")).filter { !$0.hasPrefix("[\"input\"") }
        }
        #expect(try records(second) == records(third))
    }

    @Test func theBundleHoldsOneRowPerUUIDAndAddressesExportOnlyObservationsByIt() throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-10-01T09:00:00Z")
        let bundle = try buildBundle(inputs: export + [api], in: directory)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
        let rows = try database.rows("SELECT inaturalist_id, uuid, coordinates_obscured FROM observations ORDER BY uuid")
        #expect(rows == [["9100001", Self.uuid, "1"], [nil, Self.otherUUID, "0"]])
        // The photo in two observations: one photo row, two links, credited to its observer's login
        // (the export's newer observer row has no name).
        #expect(try database.scalar("SELECT count(*) FROM photos WHERE id = 502") == "1")
        #expect(try database.scalar("SELECT count(*) FROM observation_photos WHERE photo_id = 502") == "2")
        let credit = try #require(try database.scalar("SELECT credit FROM photos WHERE id = 502"))
        #expect(credit.contains("kim"), "\(credit)")
        let exportOnly = try #require(try database.int("SELECT id FROM observations WHERE uuid = ?", [.text(Self.otherUUID)]))
        #expect(exportOnly < 0)
        #expect(try database.scalar("SELECT photo_id FROM observation_photos WHERE observation_id = ?", [.integer(exportOnly)]) == "502")
    }

    /// Several API copies, so that the content hash (the last tie-break) cannot decide them all.
    @Test(arguments: ["Zwin, BE", "De Panne", "Knokke", "Brugge", "Gent", "Oostende"])
    func onTheExportsOwnDateTheAPICopyWins(place: String) throws {
        let directory = try TemporaryDirectory()
        let export = try writeExport(in: directory)
        let api = try writeAPICopy(in: directory, updatedAt: "2024-11-27T00:00:00Z", place: place)
        let observations = try deduped(export + [api], in: directory).filter { $0["k"] as? String == "obs" }
        let merged = try #require(observations.first { $0["id"] as? Int == 9_100_001 })
        #expect(merged["photos"] as? [[Int]] == [[501, 0]], "the API copy's own photo list")
        // The API copy spells it in upper case; the records hold every uuid in lower case.
        #expect(merged["uuid"] as? String == Self.uuid.lowercased())
    }

    @Test func photoRowsOfAnObservationThatNoTableHoldsLinkToNothing() throws {
        let directory = try TemporaryDirectory()
        let photos = try directory.write("inaturalist-open-data-20241127/photos.csv", """
            photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
            0f6e2d1c-8b7a-4c5d-9e3f-1a2b3c4d5e09\t509\t\(Self.otherUUID)\t7\tjpg\tCC-BY\t100\t100\t0

            """)
        let records = try deduped([photos], in: directory)
        #expect(records.filter { $0["k"] as? String == "obs" }.isEmpty)
        #expect(records.filter { $0["k"] as? String == "photo" }.map { $0["id"] as? Int } == [509])
    }
}
