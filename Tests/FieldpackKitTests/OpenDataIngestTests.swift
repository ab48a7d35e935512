import FieldpackKit
import FieldpackSynth
import FieldpackTestSupport
import Foundation
import Testing

/// Reading the iNaturalist open-data export (INAT.md §4): its four tab-separated tables, plain,
/// gzip-compressed or in the export's `.tar.gz`, told by their header lines, and the format's
/// traps: no quoting, quotes inside fields, empty and `None` as null, `/`-separated ancestry,
/// `true`/`false`, `anomaly_score` present or not, duplicate photo rows.
@Suite struct OpenDataIngestTests {
    static let realTables = "\(samplesRoot)/pyinaturalist-convert/inaturalist-open-data"

    /// Ingests `inputs` (allowing any reject rate); returns the records and the summary.
    private func ingest(
        _ inputs: [String], in directory: TemporaryDirectory, date: String? = "2024-11-27"
    ) throws -> (records: [[String: Any]], summary: INatIngest.Summary) {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        options.openDataDate = date.flatMap(Timestamp.day)
        let summary = try INatIngest(options: options).run()
        return (try recordLines(directory.file("records.jsonl")), summary)
    }

    private func records(_ kind: String, _ all: [[String: Any]]) -> [[String: Any]] { all.filter { $0["k"] as? String == kind } }

    /// The error ingest refuses `inputs` with (any reject rate allowed: the refusal is the point).
    private func refusal(of inputs: [String], in directory: TemporaryDirectory) throws -> FieldpackError {
        var options = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 1
        return try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
    }

    @Test func theRealExportTablesAreReadWithEveryRowKept() throws {
        let directory = try TemporaryDirectory()
        let (all, summary) = try ingest(["\(Self.realTables)/photos.csv", "\(Self.realTables)/observations.csv"], in: directory)
        #expect(summary.rejected == 0)
        // Lines 27 and 28 of the real observations.csv have a field too many (`casual\t\t2011-06-03`):
        // the observation keeps its uuid, the rest cannot be placed.
        let shifted = summary.findings.filter { $0.outcome == .salvaged }
        #expect(shifted.map(\.line) == [27, 28])
        #expect(shifted.first?.reason.hasPrefix("row has 9 tab-separated fields, the header 8") == true)
        #expect(summary.files.map(\.format) == ["open-data-photos", "open-data-observations"])
        let photos = records("photo", all)
        #expect(photos.count == 50)
        let first = try #require(photos.first)
        #expect(first["id"] as? Int == 35927)
        #expect(first["url"] as? String == "https://inaturalist-open-data.s3.amazonaws.com/photos/35927/square.jpg")
        #expect(first["license"] as? String == "cc-by")
        #expect(first["width"] as? Int == 2048 && first["height"] as? Int == 1356)
        // The extension verbatim: JPG stays JPG (the S3 key is case-sensitive).
        #expect(photos.contains { ($0["url"] as? String)?.hasSuffix("/square.JPG") == true })
        // Each photo row is also its observation's link; the observation table has 50 rows.
        let observations = records("obs", all)
        #expect(observations.filter { $0["part"] as? String == "links" }.count == 50)
        // The two rows with a tab too many are kept for their uuid alone, and marked so (dedupe
        // ranks them below any copy with values).
        #expect(observations.filter { $0["part"] as? String == "key-only" }.count == 2)
        let whole = observations.filter { $0["part"] is NSNull || $0["part"] as? String == "key-only" }
        #expect(whole.count == 50)
        let noCoordinates = whole.filter { $0["lat"] is NSNull }
        #expect(noCoordinates.count == 3)
        #expect(whole.filter { $0["user"] is NSNull }.count == 2)
        #expect(whole.allSatisfy { (($0["id"] as? NSNumber)?.doubleValue ?? 0) < 0 }, "an observation known only by its uuid has a negative id")
        #expect(whole.allSatisfy { $0["seen"] as? Int == 1_732_665_600_000 }, "dated by the export (2024-11-27)")
    }

    @Test func quotesInsideFieldsAreDataAndNoneOrEmptyIsNoName() throws {
        let directory = try TemporaryDirectory()
        let observers = try directory.write("observers.csv", """
            observer_id\tlogin\tname
            1\tkim\tKim "Kestrel" Ito
            2\tobrien\tNone
            3\tana\t
            4\tdartagnan\td'Artagnan

            """)
        let taxa = try directory.write("taxa.csv", """
            taxon_id\tancestry\trank_level\trank\tname\tactive
            48460\t\t100\tstateofmatter\tLife\ttrue
            1000001\t48460/47126\t5\tvariety\tQuercus robur 'Fastigiata'\tfalse
            1000002\t48460/47126\t10\tspecies\t"Quercus" sp.\ttrue

            """)
        let (all, summary) = try ingest([observers, taxa], in: directory)
        #expect(summary.rejected == 0 && summary.salvaged == 0)
        let users = records("user", all)
        #expect(users.map { $0["name"] as? String } == [#"Kim "Kestrel" Ito"#, nil, nil, "d'Artagnan"])
        #expect(users.map { $0["login"] as? String } == ["kim", "obrien", "ana", "dartagnan"])
        let taxonRecords = records("taxon", all)
        #expect(taxonRecords.map { $0["name"] as? String } == ["Life", "Quercus robur 'Fastigiata'", #""Quercus" sp."#])
        #expect(taxonRecords.map { $0["ancestry"] as? String } == [nil, "48460/47126", "48460/47126"])
        #expect(taxonRecords.map { $0["is_active"] as? Bool } == [true, false, true])
        #expect(taxonRecords.allSatisfy { $0["from"] as? String == "open-data" })
    }

    @Test(arguments: [true, false])
    func theAnomalyScoreColumnMayBeThereOrNot(withScore: Bool) throws {
        let directory = try TemporaryDirectory()
        let header = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on"
        let row = "526ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t38.6097400000\t-122.7673020000\t\t53137\tresearch\t2011-05-30"
        let path = try directory.write("o.tsv", withScore ? "\(header)\tanomaly_score\n\(row)\t0.25\n" : "\(header)\n\(row)\n")
        let (all, summary) = try ingest([path], in: directory)
        #expect(summary.rejected == 0 && summary.salvaged == 0)
        let observation = try #require(records("obs", all).first)
        #expect(observation["uuid"] as? String == "526ababd-aff2-4ce8-b111-d8013b9d8b42")
        #expect(observation["user"] as? Int == 505 && observation["taxon"] as? Int == 53137)
        #expect(observation["lat"] as? Double == 38.60974 && observation["lng"] as? Double == -122.767302)
        #expect(observation["positional_accuracy"] is NSNull)
    }

    /// A grade iNaturalist does not write (`RESEARCH`) is dropped with a finding, as an API
    /// page's is: a quality_grades rule removed its observation without a word.
    @Test func aQualityGradeThatIsNotOneIsDroppedWithAFinding() throws {
        let directory = try TemporaryDirectory()
        let header = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on"
        let path = try directory.write("o.tsv", "\(header)\n526ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t38.6\t-122.7\t\t53137\tRESEARCH\t2011-05-30\n")
        let (all, summary) = try ingest([path], in: directory)
        #expect(summary.rejected == 0 && summary.salvaged == 1)
        #expect(summary.findings.contains { $0.field == "quality_grade" && $0.reason.contains("is \"RESEARCH\", expected research, needs_id or casual") }, "\(summary.findings)")
        #expect(try #require(records("obs", all).first)["quality_grade"] is NSNull)
    }

    @Test func aRowKeepsItsGoodFieldsWhenOneIsBad() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("photos.csv", """
            photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
            9b5ca6f4-fb23-47ff-b581-5fe3f9d068aa\t35927\t526ababd-aff2-4ce8-b111-d8013b9d8b42\t505\tjpg\tCC-BY\tabc\t1356\t0

            """)
        let (all, summary) = try ingest([path], in: directory)
        #expect(summary.accepted == 1 && summary.rejected == 0 && summary.salvaged == 2)
        let photo = try #require(records("photo", all).first)
        #expect(photo["width"] is NSNull && photo["height"] is NSNull, "a width without a height is no size")
        #expect(photo["license"] as? String == "cc-by")
        let finding = try #require(summary.findings.first)
        #expect(finding.path == path && finding.line == 2 && finding.field == "width" && finding.outcome == .salvaged)
        #expect(finding.reason.contains("\"abc\""))
    }

    /// A text field that is not UTF-8 is dropped with a finding wherever its bad byte lies (in the
    /// row's last, short word too), and UTF-8 beyond ASCII is kept: a row seen to be all ASCII as
    /// it is split skips each field's check, any other row is checked field by field.
    @Test func aTextFieldThatIsNotUTF8IsDroppedWhereverItsByteLies() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array("observer_id\tlogin\tname\n".utf8)
        // Its bad byte at offset 8: the row's second word, of one byte (padded).
        bytes += Array("1\tkim\tKi".utf8) + [0xFF] + Array("\n".utf8)
        bytes += Array("2\tlea\tL\u{E9}a Ito\n".utf8)
        bytes += Array("3\tsomeone_".utf8) + [0xFE] + Array("_long_login\tSam\n".utf8)
        bytes += Array("4\tplain\tPlain Name\n".utf8)
        let path = directory.file("observers.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (all, summary) = try ingest([path], in: directory)
        #expect(summary.accepted == 4 && summary.rejected == 0 && summary.salvaged == 2)
        #expect(summary.findings.map { "\($0.line ?? 0) \($0.field ?? "")" } == ["2 name", "4 login"])
        #expect(summary.findings.allSatisfy { $0.reason.contains("is not UTF-8") })
        let users = Dictionary(uniqueKeysWithValues: records("user", all).map { ($0["id"] as! Int, $0) })
        #expect(users[1]?["name"] is NSNull && users[1]?["login"] as? String == "kim")
        #expect(users[2]?["name"] as? String == "L\u{E9}a Ito")
        #expect(users[3]?["login"] is NSNull && users[3]?["name"] as? String == "Sam")
        #expect(users[4]?["name"] as? String == "Plain Name")
    }

    /// A photo row's link that is not UTF-8 is one finding, that it is not UTF-8 (it was also
    /// said to be empty, which it was not); an empty one, and one that is no uuid, say so.
    @Test func aPhotosLinkThatIsNotUTF8IsOneFindingNotAlsoAnEmptyOne() throws {
        let directory = try TemporaryDirectory()
        var bytes = Array("photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n".utf8)
        bytes += Array("9b5ca6f4-fb23-47ff-b581-5fe3f9d068aa\t35927\t526ababd-aff2-4ce8-b111-d8013b9d8b4".utf8) + [0xFF]
            + Array("\t505\tjpg\tCC-BY\t100\t100\t0\n".utf8)
        bytes += Array("9b5ca6f4-fb23-47ff-b581-5fe3f9d068ab\t35928\t\t505\tjpg\tCC-BY\t100\t100\t0\n".utf8)
        bytes += Array("9b5ca6f4-fb23-47ff-b581-5fe3f9d068ac\t35929\tnot-a-uuid\t505\tjpg\tCC-BY\t100\t100\t0\n".utf8)
        let path = directory.file("photos.csv")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (all, summary) = try ingest([path], in: directory)
        #expect(records("photo", all).count == 3 && summary.rejected == 0)
        #expect(summary.findings.map { "\($0.line ?? 0) \($0.field ?? "")" } == ["2 observation_uuid", "3 observation_uuid", "4 observation_uuid"])
        #expect(summary.findings.map(\.reason) == [
            "is not UTF-8", "is empty: the photo is linked to no observation",
            "is \"not-a-uuid\", expected a uuid: the photo is linked to no observation",
        ].map { "observation_uuid \($0); dropped observation_uuid" })
    }

    @Test func aRowWithoutItsKeyIsRejectedAndCountedAndOneWithATabTooManyKeepsItsKey() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("observers.csv", """
            observer_id\tlogin\tname
            1\tkim\tKim
            \tnobody\tNo One
            x7\tbad\tBad Id
            3\ttabby\tTab\tBy

            """)
        var options = INatIngest.Options(inputs: [path], output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
        options.maxRejectRate = 0.4
        // 2 of 4 rows rejected: over the threshold, so the records file is not published.
        let error = try #require(throws: FieldpackError.self) { try INatIngest(options: options).run() }
        #expect(error.message.contains("2 of 4 records rejected"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
        let findings = try jsonLines(directory.file("rejects.jsonl")).filter { $0["outcome"] as? String != "notice" }
        #expect(findings.map { $0["line"] as? Int } == [3, 4, 5])
        #expect(findings.map { $0["outcome"] as? String } == ["rejected", "rejected", "salvaged"])
        #expect((findings[0]["reason"] as? String)?.contains("observer_id is empty") == true)
        #expect((findings[1]["reason"] as? String)?.contains(#"observer_id is "x7""#) == true)
        #expect((findings[2]["reason"] as? String)?.contains("4 tab-separated fields, the header 3") == true)
    }

    @Test func aTableIsToldByItsHeaderWhateverItIsCalledAndGzipped() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.writeGzip("people.dat", "observer_id\tlogin\tname\n1\tkim\tKim\n")
        let (all, summary) = try ingest([path], in: directory)
        #expect(summary.files.first?.format == "gzip+open-data-observers")
        #expect(records("user", all).count == 1)
    }

    /// A table saved with a UTF-8 byte order mark is told by its header all the same; the export's
    /// observations_projects table, beside the four in the export's folder, is passed over with a
    /// notice (as inside its archive), not refused as foreign.
    @Test func aHeaderAfterAByteOrderMarkIsReadAndTheProjectsTableIsPassedOver() throws {
        let directory = try TemporaryDirectory()
        let observers = try directory.write("observers.csv", "\u{FEFF}observer_id\tlogin\tname\n1\tkim\tKim\n")
        let projects = try directory.writeGzip("observations_projects.csv.gz", "observation_uuid\tproject_id\n526ababd-aff2-4ce8-b111-d8013b9d8b42\t7\n")
        // The projects table too (it stopped ingest as "not iNaturalist JSON").
        let titles = try directory.writeGzip("projects.csv.gz", "project_id\ttitle\tslug\n7\tCity Nature Challenge 2024: Brussels\tcnc-2024-brussels\n")
        // With a column a later export adds (it stopped ingest, where the four tables' extra
        // columns are ignored).
        let added = try directory.write("observations_projects.csv", "observation_uuid\tproject_id\tadded_at\n526ababd-aff2-4ce8-b111-d8013b9d8b42\t7\t2024-05-02\n")
        let (all, summary) = try ingest([observers, projects, titles, added], in: directory)
        #expect(summary.findings.contains { $0.path == added && $0.outcome == .notice && $0.reason.contains("observations_projects") }, "\(summary.findings)")
        #expect(records("user", all).map { $0["login"] as? String } == ["kim"])
        #expect(summary.findings.contains { $0.path == projects && $0.outcome == .notice && $0.reason.contains("observations_projects") }, "\(summary.findings)")
        #expect(summary.findings.contains { $0.path == titles && $0.outcome == .notice && $0.reason.contains("the export's projects table") }, "\(summary.findings)")
    }

    /// A table whose lines end in a carriage return alone was read as one header line with the
    /// rows glued to its last column name: no rows, no finding, exit 0. It is refused by name.
    @Test func aTableWithCarriageReturnLineEndsIsRefusedNotReadAsEmpty() throws {
        let directory = try TemporaryDirectory()
        let table = try directory.write("observations.csv", [
            "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\tanomaly_score",
            "526ababd-aff2-4ce8-b111-d8013b9d8b42\t1\t50.5\t4.25\t10\t48662\tresearch\t2024-05-01\t",
        ].joined(separator: "\r") + "\r")
        let error = try #require(throws: FieldpackError.self) { try ingest([table], in: directory) }
        #expect(error.path == table && error.line == 1)
        #expect(error.message.hasPrefix("an open-data table whose lines end in a carriage return alone"), "\(error)")
    }

    /// A date that does not exist (29 February of a common year, 31 June) is dropped as any
    /// other bad date, and a photo row with an empty extension, which gives no URL, is rejected.
    @Test func anImpossibleDateIsDroppedAndAPhotoWithoutExtensionRejected() throws {
        let directory = try TemporaryDirectory()
        let observations = try directory.write("observations.csv", """
            observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on
            526ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t50.5\t4.25\t\t48662\tresearch\t2023-02-29
            626ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t50.5\t4.25\t\t48662\tresearch\t2024-06-31
            726ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t50.5\t4.25\t\t48662\tresearch\t2024-02-29

            """)
        let photos = try directory.write("photos.csv", """
            photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition
            9b5ca6f4-fb23-47ff-b581-5fe3f9d068aa\t35927\t526ababd-aff2-4ce8-b111-d8013b9d8b42\t505\t\tCC-BY\t100\t100\t0
            9b5ca6f4-fb23-47ff-b581-5fe3f9d068ab\t35928\t726ababd-aff2-4ce8-b111-d8013b9d8b42\t505\tjpg\tCC-BY\t100\t100\t-1

            """)
        let (all, summary) = try ingest([observations, photos], in: directory)
        let dates = records("obs", all).filter { $0["part"] is NSNull }.map { $0["observed_on"] as? String }
        #expect(dates == [nil, nil, "2024-02-29"])
        // A dropped date is unknown, not empty (`ObservationRecord.Column.unknown`), for dedupe.
        let observedOnBit = 1 << ObservationRecord.Column.observedOn.rawValue
        #expect(records("obs", all).filter { $0["part"] is NSNull }.map { ($0["unknown"] as? Int ?? 0) & observedOnBit != 0 } == [true, true, false])
        // A position of -1 is dropped as what it is not: 0 is a position.
        #expect(summary.findings.contains { $0.path == photos && $0.reason == "position is \"-1\", expected a whole number of 0 or more; dropped position" }, "\(summary.findings)")
        #expect(summary.findings.filter { $0.field == "observed_on" && $0.outcome == .salvaged }.count == 2)
        #expect(summary.rejected == 1 && records("photo", all).map { $0["id"] as? Int } == [35928])
        #expect(summary.findings.contains { $0.path == photos && $0.outcome == .rejected && $0.reason == "extension is empty: no photo URL" }, "\(summary.findings)")
    }

    /// A table (or the export's tar) whose gzip fails its CRC-32 check is refused whole, naming
    /// the file: no row of a damaged export ships.
    @Test(arguments: [false, true])
    func anExportWhoseGzipFailsItsCheckIsRefused(tar: Bool) throws {
        let directory = try TemporaryDirectory()
        let path: String
        if tar {
            var options = SyntheticOpenData.Options(observations: 50, seed: 3, output: directory.file("export"))
            options.tar = true
            options.date = "20250301"
            _ = try SyntheticOpenData(options: options).run()
            path = directory.file("export/inaturalist-open-data-20250301.tar.gz")
        } else {
            path = try directory.writeGzip("observers.csv.gz", "observer_id\tlogin\tname\n1\tkim\tKim\n2\tlee\tLee\n")
        }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[bytes.count - 8] ^= 0xFF  // the CRC-32 of the (last) member
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path)
        #expect(error.message.contains("refused whole"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
    }

    /// A table's `.gz` cut short, as a download that stopped, is refused whole: it kept the
    /// rows before the cut with a notice and exit 0, and the bundle shipped part of the export.
    @Test func anExportTableCutShortIsRefusedNotReadUpToTheCut() throws {
        let directory = try TemporaryDirectory()
        var rows = "observer_id\tlogin\tname\n"
        for id in 1...5_000 { rows += "\(id)\tlogin\(id)\tName \(id * 7919 % 10_007)\n" }
        let path = try directory.writeGzip("observers.csv.gz", rows)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path)
        #expect(error.message.hasPrefix("damaged (") && error.message.hasSuffix("an open-data export cut short is refused whole; download it again"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
    }

    /// The export's `.tar.gz` missing only its last bytes (its gzip trailer, or that and the
    /// last byte of deflate data), every table read whole, is refused too: with no selection
    /// (no plan reading it first) it was read with exit 0.
    @Test(arguments: [1, 4, 8, 9])
    func anExportArchiveMissingOnlyItsLastBytesIsRefused(cut: Int) throws {
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20250315"
        for name in ["observations.csv", "photos.csv", "taxa.csv"] {
            try directory.write("\(folder)/\(name)", try text("\(repositoryRoot)/sample-data/open-data/\(name)"))
        }
        // Enough observers (hardly compressible names) that the archive is read in several
        // blocks: its end is then read after the tar's last member, where the cut was missed.
        var observers = try text("\(repositoryRoot)/sample-data/open-data/observers.tsv")
        var noise = SplitMix(seed: 7)
        for id in 1_000_000..<1_040_000 { observers += "\(id)\tlogin\(noise.next() % 1_000_000_007)\tName \(noise.next())\n" }
        try directory.write("\(folder)/observers.tsv", observers)
        let archive = directory.file("\(folder).tar.gz")
        try run("/bin/tar", ["-czf", archive, "-C", directory.path, folder])
        #expect(try ingest([archive], in: directory).records.count > 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        try bytes.prefix(bytes.count - cut).write(to: URL(fileURLWithPath: archive))
        #expect(try run("/bin/gzip", ["-t", archive]).status != 0)
        let error = try refusal(of: [archive], in: directory)
        #expect(error.path == archive, "\(error)")
        #expect(error.message.hasSuffix("download it again"), "\(error)")
    }

    /// A tar of the bucket's gzipped tables was "a tar archive with no table": the tables are
    /// there, compressed, and the error says so and what to give instead.
    @Test func aTarOfGzippedTablesSaysItsMembersAreCompressed() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.writeGzip("export/observers.csv.gz", "observer_id\tlogin\tname\n1\tkim\tKim\n")
        _ = try directory.writeGzip("export/taxa.csv.gz", "taxon_id\tancestry\trank_level\trank\tname\tactive\n1\t48460\t70\tkingdom\tAnimalia\ttrue\n")
        let path = directory.file("inaturalist-open-data-20241127.tar")
        #expect(try run("/bin/tar", ["-cf", path, "-C", directory.path, "export/observers.csv.gz", "export/taxa.csv.gz"]).status == 0)
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path)
        #expect(error.message == "a tar archive with no table of the iNaturalist open-data export in it (observations, photos, taxa, observers); "
            + "its members are gzip-compressed (export/observers.csv.gz, export/taxa.csv.gz), which a tar does not unpack: "
            + "give the .csv.gz files themselves, or a tar of the tables uncompressed")
    }

    /// A plain table cut mid-row, as a download that stopped: its last line has no line end. It
    /// was read as it was, the cut name shipped as a photo's credit, with exit 0.
    @Test(arguments: [9, 30])
    func aPlainTableCutMidRowIsRefusedNamingItsLastLine(cut: Int) throws {
        let directory = try TemporaryDirectory()
        let whole = "observer_id\tlogin\tname\n10\tkim\tKim Ito\n11\tana\tAna Maria Lopez\n"
        let path = try directory.write("observers.csv", String(whole.dropLast(cut)))
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path && error.line == (cut == 9 ? 3 : 2), "\(error)")
        #expect(error.message.hasPrefix("cut short: the table's last line has no line end"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("records.jsonl")))
    }

    /// A table's `.gz` cut before its header line ends, or corrupt in its first bytes, is refused
    /// as damaged: the cut one was a rejected file under the threshold (the guide shipped without
    /// the table), the corrupt one "not iNaturalist JSON: binary data", the user sent the wrong way.
    @Test(arguments: [30, 60, -1, -2])
    func aTableGzipDamagedInItsFirstBytesIsRefusedAsDamaged(cut: Int) throws {
        let directory = try TemporaryDirectory()
        var rows = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        // -2: a table of one row whose one member fails its CRC-32 (it was "not iNaturalist
        // JSON: gzip-compressed plain text").
        for id in 1...(cut == -2 ? 1 : 200) { rows += "bbbbbbbb-0000-4000-8000-\(String(format: "%012d", id))\t\(1000 + id)\t11111111-1111-4111-8111-111111111111\t10\tjpg\tCC-BY\t2048\t1536\t0\n" }
        let path = try directory.writeGzip("photos.csv.gz", rows)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if cut > 0 { bytes = bytes.prefix(cut) } else if cut == -1 { for index in 20..<40 { bytes[index] ^= 0x55 } } else { bytes[60] = 0x55 }
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try run("/bin/gzip", ["-t", path]).status != 0)
        let good = try directory.write("observers.csv", "observer_id\tlogin\tname\n10\tkim\tKim Ito\n")
        let error = try refusal(of: [good, path], in: directory)
        #expect(error.path == path)
        #expect(error.message.hasPrefix("damaged (") && error.message.hasSuffix("refused; download it again"), "\(error)")
    }

    /// One of the export's tables gzipped inside its tar was passed over as "not a table", and
    /// the guide shipped without it; a tar without one of the four tables is said.
    @Test func aTableGzippedInsideTheTarIsRefusedAndAMissingTableIsSaid() throws {
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20241127"
        _ = try directory.write("\(folder)/observers.csv", "observer_id\tlogin\tname\n1\tkim\tKim\n")
        _ = try directory.write("\(folder)/taxa.csv", "taxon_id\tancestry\trank_level\trank\tname\tactive\n1\t48460\t70\tkingdom\tAnimalia\ttrue\n")
        let missing = directory.file("missing/\(folder).tar.gz")
        try FileManager.default.createDirectory(atPath: directory.file("missing"), withIntermediateDirectories: true)
        #expect(try run("/bin/tar", ["-czf", missing, "-C", directory.path, folder]).status == 0)
        let (_, summary) = try ingest([missing], in: directory)
        let notices = summary.findings.filter { $0.outcome == .notice && $0.path == missing }.map(\.reason)
        #expect(notices.filter { $0.hasPrefix("holds no ") }.count == 2, "\(notices)")
        #expect(notices.contains { $0.hasPrefix("holds no observations table") } && notices.contains { $0.hasPrefix("holds no photos table") })

        // A gzipped spare beside a table read plain is passed over.
        let header = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        _ = try directory.write("\(folder)/photos.csv", header)
        _ = try directory.writeGzip("\(folder)/backup/photos.csv.gz", header)
        let spare = directory.file("spare/\(folder).tar.gz")
        try FileManager.default.createDirectory(atPath: directory.file("spare"), withIntermediateDirectories: true)
        #expect(try run("/bin/tar", ["-czf", spare, "-C", directory.path, folder]).status == 0)
        _ = try ingest([spare], in: directory)
        _ = try directory.writeGzip("\(folder)/observations.csv.gz", "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n")
        let gzipped = directory.file("\(folder).tar.gz")
        #expect(try run("/bin/tar", ["-czf", gzipped, "-C", directory.path, folder]).status == 0)
        let error = try refusal(of: [gzipped], in: directory)
        #expect(error.path == "\(gzipped)#\(folder)/observations.csv.gz", "\(error)")
        #expect(error.message.hasPrefix("the export's observations table gzip-compressed inside the tar"), "\(error)")
    }

    @Test func aHeaderMissingAColumnSaysWhichOne() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("observations.csv", "observation_uuid\tobserver_id\tlatitude\tlongitude\n526ababd\t505\t38.6\t-122.7\n")
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path && error.line == 1)
        #expect(error.message == "an open-data observations table without the column(s) positional_accuracy, taxon_id, quality_grade, observed_on")
    }

    /// A header naming a column twice read the first copy and ignored the other, without a word;
    /// a name with a space after it was reported missing, with no hint why; with every name
    /// spaced, ingest crashed.
    @Test(arguments: [
        ("observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\ttaxon_id\n",
         "an open-data observations table whose header names taxon_id twice (columns 6 and 9): which one holds the value would be a guess"),
        ("observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on \n",
         "an open-data observations table without the column(s) observed_on (the header has \"observed_on \", with spaces around the name)"),
        // Every name of the table spaced (the fuzzer's find: no table had an exact name, and
        // ingest crashed choosing which one to name).
        ("photo_u\t\t observer_id  \t login \tuid\n",
         "an open-data observers table without the column(s) observer_id, login, name (the header has \" observer_id  \", \" login \", with spaces around the name)"),
    ])
    func aHeaderNamingAColumnTwiceOrWithSpacesIsRefusedSayingSo(header: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("observations.csv", header + "526ababd\t505\t38.6\t-122.7\t5\t3\tresearch\t2024-01-01\t7\n")
        let error = try refusal(of: [path], in: directory)
        #expect(error.path == path && error.line == 1)
        #expect(error.message == message)
    }

    /// An observers or taxa header missing a column was no table at all: loose, "not iNaturalist
    /// JSON" without the column; inside the export's archive, a member passed over with a notice,
    /// and a guide built without its credits or its taxa, exit 0.
    @Test(arguments: [
        ("observers.csv", "observer_id\tlogin\tname \n505\tkestrel_k\tKim\n",
         "an open-data observers table without the column(s) name (the header has \"name \", with spaces around the name)"),
        ("taxa.csv", "taxon_id\tparent_ids\trank_level\trank\tname\tactive\n1\t48460\t70\tkingdom\tAnimalia\ttrue\n",
         "an open-data taxa table without the column(s) ancestry"),
    ])
    func anObserversOrTaxaHeaderMissingAColumnIsRefusedLooseOrInTheArchive(name: String, table: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20241127"
        let loose = try directory.write("\(folder)/\(name)", table)
        let error = try refusal(of: [loose], in: directory)
        #expect(error.path == loose && error.line == 1, "\(error)")
        #expect(error.message == message)
        _ = try directory.write("\(folder)/observations.csv", "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n")
        let archive = directory.file("\(folder).tar.gz")
        #expect(try run("/bin/tar", ["-czf", archive, "-C", directory.path, folder]).status == 0)
        let inArchive = try refusal(of: [archive], in: directory)
        #expect(inArchive.path == "\(archive)#\(folder)/\(name)" && inArchive.line == 1, "\(inArchive)")
        #expect(inArchive.message == message)
    }

    /// The export's tar cut exactly after a member (its taxa and observers tables missing) was
    /// read as a whole export: a guide without taxa or credits, exit 0.
    @Test func theExportsTarCutAtAMembersEndIsRefused() throws {
        let directory = try TemporaryDirectory()
        let folder = "inaturalist-open-data-20241127"
        let observations = try directory.write("\(folder)/observations.csv", "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\n")
        _ = try directory.write("\(folder)/taxa.csv", "taxon_id\tancestry\trank_level\trank\tname\tactive\n1\t48460\t70\tkingdom\tAnimalia\ttrue\n")
        let full = directory.file("full.tar")
        #expect(try run("/bin/tar", ["-cf", full, "-C", directory.path, "\(folder)/observations.csv", "\(folder)/taxa.csv"]).status == 0)
        let size = try #require(FileSystem.size(observations))
        let archive = directory.file("\(folder).tar.gz")
        try Data(try Data(contentsOf: URL(fileURLWithPath: full)).prefix(512 + (size + 511) / 512 * 512)).write(to: URL(fileURLWithPath: directory.file("cut.tar")))
        #expect(try run("/bin/sh", ["-c", "gzip -c '\(directory.file("cut.tar"))' > '\(archive)'"]).status == 0)
        let error = try refusal(of: [archive], in: directory)
        #expect(error.path == archive, "\(error)")
        #expect(error.message.contains("the tar archive ends after its member \(folder)/observations.csv without the block of zeros"), "\(error)")
    }

    @Test func theExportsTarGzIsReadMemberByMemberAndDatedByItsName() throws {
        let directory = try TemporaryDirectory()
        var options = SyntheticOpenData.Options(observations: 200, seed: 7, output: directory.file("export"))
        options.tar = true
        options.date = "20250301"
        let written = try SyntheticOpenData(options: options).run()
        // Any name: the content says tar.
        let archive = directory.file("export/dump.bin")
        try FileManager.default.moveItem(atPath: directory.file("export/inaturalist-open-data-20250301.tar.gz"), toPath: archive)
        let (all, summary) = try ingest([archive], in: directory, date: nil)
        #expect(summary.files.first?.format == "gzip+tar+open-data")
        #expect(summary.rejected == 0)
        #expect(summary.counts.observations == written.observations)
        #expect(summary.counts.photos == written.photoRows)
        #expect(summary.counts.users == written.observers && summary.counts.taxa == written.taxa)
        // The folder inside the archive is named inaturalist-open-data-20250301.
        #expect(all.filter { $0["k"] as? String != "input" }.allSatisfy { $0["seen"] as? Int == 1_740_787_200_000 })
        #expect(summary.findings.allSatisfy { $0.outcome == .salvaged })
    }

    @Test func looseTablesWithoutADateAreNotedAndRankBelowDatedCopies() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("observers.csv", "observer_id\tlogin\tname\n1\tkim\tKim\n")
        let (all, summary) = try ingest([path], in: directory, date: nil)
        #expect(records("user", all).first?["seen"] is NSNull)
        #expect(summary.findings.contains { $0.outcome == .notice && $0.reason.hasPrefix("no export date") })
    }

    @Test func theSyntheticExportHasTheRealTrapsAndTheSameBytesForTheSameSeed() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let summary = try SyntheticOpenData(options: .init(observations: 3000, seed: 11, output: first.path)).run()
        _ = try SyntheticOpenData(options: .init(observations: 3000, seed: 11, output: second.path)).run()
        for table in ["observations", "photos", "taxa", "observers"] {
            #expect(try text(first.file("\(table).csv")) == text(second.file("\(table).csv")))
        }
        #expect(summary.duplicatePhotoRows > 0)
        let photos = try text(first.file("photos.csv"))
        #expect(photos.contains("\tJPG\t") && photos.contains("\tjpeg\t") && photos.contains("\t\t\t"))
        let observers = try text(first.file("observers.csv"))
        #expect(observers.contains("\tNone\n") && observers.contains("\"") && observers.contains("'"))
        #expect(try text(first.file("taxa.csv")).contains("'Aurea'"))
        #expect(try text(first.file("observations.csv")).hasPrefix("observation_uuid\tobserver_id\tlatitude"))
    }
}
