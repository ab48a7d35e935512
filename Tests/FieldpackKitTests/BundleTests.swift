import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

@Suite struct BundleTests {
    private func sampleInputs() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "\(repositoryRoot)/sample-data/inat")
            .filter { !$0.hasSuffix(".md") }.sorted().map { "\(repositoryRoot)/sample-data/inat/\($0)" }
    }

    @Test func migrationsAreAppliedInOrderAndRecordedWithTheirSQLHash() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("m.sqlite"))
        try Migrator().migrate(database)
        #expect(try database.int("PRAGMA user_version") == Int64(Migrations.latestVersion))
        let recorded = try database.rows("SELECT version, name, sql_sha256 FROM schema_migrations ORDER BY version")
        #expect(recorded.map { $0[0] } == Migrations.all.map { String($0.version) })
        #expect(recorded.map { $0[2] } == Migrations.all.map { $0.sqlSHA256 })
        // Running again is a no-op.
        try Migrator().migrate(database)
        #expect(try database.int("SELECT count(*) FROM schema_migrations") == Int64(Migrations.all.count))
    }

    @Test(arguments: Array(1...Migrations.latestVersion))
    func freshSchemaOfEveryVersionHasItsGoldenFingerprint(version: Int) throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("v\(version).sqlite"))
        try Migrator().migrate(database, to: version)
        let fingerprint = try SchemaFingerprint.compute(database)
        #expect(fingerprint == Migrations.goldenFingerprints[version], "version \(version) fingerprint is \(fingerprint)")
    }

    @Test func landedMigrationsAndTheirFingerprintsMatchTheLockFile() throws {
        // Flyway's rule: a migration that has landed is never edited, and its schema's golden
        // fingerprint never changes. A new migration adds its line to the lock.
        let path = "\(repositoryRoot)/Sources/FieldpackKit/Bundle/Migrations.lock.json"
        let lock = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        let entries = try #require(lock["migrations"] as? [[String: Any]])
        #expect(entries.count == Migrations.all.count, "every migration has its line in the lock, and only those")
        for (entry, migration) in zip(entries, Migrations.all) {
            #expect(entry["version"] as? Int == migration.version)
            #expect(entry["name"] as? String == migration.name)
            #expect(entry["sql_sha256"] as? String == migration.sqlSHA256, "migration \(migration.version) was edited after it landed")
            #expect(entry["fingerprint"] as? String == Migrations.goldenFingerprints[migration.version])
        }
    }

    @Test func fingerprintIgnoresFormattingButNotStructure() throws {
        let directory = try TemporaryDirectory()
        let a = try Database(path: directory.file("a.sqlite"))
        try a.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)")
        let b = try Database(path: directory.file("b.sqlite"))
        try b.execute("CREATE TABLE \"t\" (\n  id   INTEGER PRIMARY KEY,\n  name TEXT\n)")
        let c = try Database(path: directory.file("c.sqlite"))
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
        #expect(try SchemaFingerprint.compute(a) == SchemaFingerprint.compute(b))
        #expect(try SchemaFingerprint.compute(a) != SchemaFingerprint.compute(c))
    }

    @Test func aDatabaseNewerThanThisToolIsRefused() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("new.sqlite"))
        try database.execute("PRAGMA user_version = \(Migrations.latestVersion + 1)")
        let error = try #require(throws: FieldpackError.self) { try Migrator().migrate(database) }
        #expect(error.path == directory.file("new.sqlite"))
        #expect(error.message == "schema version \(Migrations.latestVersion + 1) is newer than this fieldpack knows "
                + "(\(Migrations.latestVersion)); use a newer fieldpack")
        // Refused before anything was written.
        #expect(try database.int("SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func bundleHasShipReadySettingsAndTheSampleRows() throws {
        let directory = try TemporaryDirectory()
        // Every licence allowed: only the 4 placeholders and the 4 taxon default photos nobody
        // can be credited for (no attribution_name, in no observation) stay out of the 42 photos.
        var policy = try samplePolicy()
        policy.licenses = Set(License.allCases)
        let bundle = try buildBundle(inputs: try sampleInputs(), in: directory, name: "sample", policy: policy)
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.scalar("PRAGMA journal_mode") == "delete")
        #expect(try database.int("PRAGMA application_id") == Int64(Migrations.applicationID))
        #expect(try database.int("PRAGMA freelist_count") == 0)
        #expect(try database.int("PRAGMA page_size") == Int64(BundleBuilder.pageSize))
        #expect(try database.int("SELECT count(*) FROM sqlite_stat1")! > 0)
        #expect(try database.int("SELECT count(*) FROM observations") == 19)
        // 81000003 and 46213 are credited by the name their taxa-page copies give (`Winners.writePhoto`).
        #expect(try database.int("SELECT count(*) FROM photos") == 38)
        #expect(try database.int("SELECT count(*) FROM observation_photos") == 35)
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'pipeline'") == "sample")
        // The newest observation copy won, and a photo shared by two observations has two links.
        #expect(try database.scalar("SELECT quality_grade FROM observations WHERE id = 9100007") == "research")
        #expect(try database.int("SELECT count(*) FROM observation_photos WHERE photo_id = 81000015") == 2)
        // Unicode survives.
        #expect(try database.int("SELECT count(*) FROM users WHERE name = 'Zoë Brontë'") == 1)
        // No journal or WAL files beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundle).sorted()
                == ["content.sqlite", "manifest-sha256.txt", "manifest.json"])
        // The commercial allow-list of the sample pipeline keeps 22 of them.
        let commercial = try TemporaryDirectory()
        let shipped = try Database(path: "\(try buildBundle(inputs: try sampleInputs(), in: commercial))/content.sqlite", mode: .immutable)
        #expect(try shipped.int("SELECT count(*) FROM photos") == 22)
        #expect(try shipped.int("SELECT count(*) FROM photos WHERE license NOT IN ('cc0', 'pd', 'cc-by', 'cc-by-sa')") == 0)
    }

    @Test func aBundleAndItsManifestNameTheToolVersionThatBuiltThem() throws {
        let directory = try TemporaryDirectory()
        let bundle = try buildBundle(inputs: try sampleInputs(), in: directory, name: "sample")
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .immutable)
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'tool_version'") == ToolVersion.version)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(bundle)/manifest.json"))) as! [String: Any]
        #expect(manifest["tool_version"] as? String == ToolVersion.version)
    }

    @Test func sameInputsGiveByteIdenticalBundlesWhateverTheirOrder() throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let inputs = try sampleInputs()
        let a = try buildBundle(inputs: inputs, in: first, name: "sample")
        let b = try buildBundle(inputs: inputs.reversed(), in: second, name: "sample")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(a)/content.sqlite")) == Data(contentsOf: URL(fileURLWithPath: "\(b)/content.sqlite")))
        #expect(try text("\(a)/manifest.json") == text("\(b)/manifest.json"))
    }

    @Test func theSameRecordsSplitAcrossDifferentlyNamedFilesGiveTheSameDatabase() throws {
        let split = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: split.file("inputs"), withIntermediateDirectories: true)
        var inputs: [String] = []
        for path in try sampleInputs() {
            let name = URL(fileURLWithPath: path).lastPathComponent
            if name == "shipping-cases.jsonl" {
                // Its three observations as two files with other names.
                let lines = try lines(path)
                inputs.append(try split.write("inputs/first-of-the-cases.jsonl", lines[0] + "\n"))
                inputs.append(try split.write("inputs/zz-the-other-two.jsonl", lines[1...].joined(separator: "\n") + "\n"))
            } else {
                let copy = split.file("inputs/renamed-\(name)")
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                inputs.append(copy)
            }
        }
        let whole = try TemporaryDirectory()
        let a = try buildBundle(inputs: try sampleInputs(), in: whole, name: "sample")
        let b = try buildBundle(inputs: inputs.reversed(), in: split, name: "sample")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(a)/content.sqlite")) == Data(contentsOf: URL(fileURLWithPath: "\(b)/content.sqlite")))
        // The manifests differ only where they name the input files.
        func withoutInputs(_ path: String) throws -> NSDictionary {
            var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(path)/manifest.json"))) as! [String: Any]
            #expect((manifest["inputs"] as? [Any])?.isEmpty == false)
            manifest["inputs"] = nil
            return manifest as NSDictionary
        }
        #expect(try withoutInputs(a).isEqual(to: withoutInputs(b) as! [AnyHashable: Any]))
    }

    @Test func buildDateComesFromTheDataOrSourceDateEpochNeverTheClock() throws {
        let directory = try TemporaryDirectory()
        let bundle = try buildBundle(inputs: try sampleInputs(), in: directory, name: "sample")
        let database = try Database(path: "\(bundle)/content.sqlite", mode: .readOnly)
        // The newest observation's updated_at, read independently (offsets differ, so not max() on text).
        let parser = ISO8601DateFormatter()
        let dates = try database.rows("SELECT updated_at FROM observations").compactMap { $0[0].flatMap(parser.date(from:)) }
        let newest = try #require(dates.max())
        let utc = ISO8601DateFormatter()
        utc.timeZone = TimeZone(identifier: "UTC")
        #expect(try database.scalar("SELECT value FROM bundle_info WHERE key = 'build_date'") == utc.string(from: newest))
        let pinned = try TemporaryDirectory()
        let other = try buildBundle(inputs: try sampleInputs(), in: pinned, name: "sample", epoch: 1_700_000_000)
        let pinnedDatabase = try Database(path: "\(other)/content.sqlite", mode: .readOnly)
        #expect(try pinnedDatabase.scalar("SELECT value FROM bundle_info WHERE key = 'build_date'") == "2023-11-14T22:13:20Z")
    }

    @Test func aFailedBuildPublishesNothingAndLeavesTheOldBundleAlone() throws {
        let directory = try TemporaryDirectory()
        try buildBundle(inputs: try sampleInputs(), in: directory, name: "sample")
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("content.sqlite")))
        var options = BundleBuilder.Options(
            input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "sample",
            policy: try samplePolicy())
        // A schema history whose second step fails in SQLite, after the first committed.
        options.migrations = [Migrations.all[0], Migration(version: 2, name: "broken", sql: "CREATE INDEX broken ON no_such_table (id)")]
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.message.contains("no_such_table"))
        // Named as the person knows it: the bundle asked for, never the hidden scratch file.
        #expect(error.path == directory.file("content.sqlite"))
        #expect(!error.description.contains("scratch"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("content.sqlite"))) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("scratch") || $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// A deduped file of an older layout (before the `unknown` column: one column fewer, with
    /// or without an export origin after it) loaded one column off without a word (`seen` read
    /// as `part`); it is refused, naming the line.
    @Test(arguments: [
        #"["obs",9,"a-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[5,0]],null,1]"#,
        #"["obs",-9,"a-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[5,0]],null,1,["o.csv",2]]"#,
        #"["taxon",3,"taxa","Parus major","species",10,null,null,null,null,true,null,null,null,1]"#,
    ])
    func aDedupedFileOfAnotherLayoutIsRefused(line: String) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("deduped.jsonl", "[\"user\",7,\"u\",\"U\",1]\n\(line)\n")
        let error = try #require(throws: FieldpackError.self) {
            try BundleBuilder(options: .init(input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())).run()
        }
        #expect(error.path == input && error.line == 2, "\(error)")
        #expect(error.message.contains("of another layout than this fieldpack's"), "\(error)")
    }

    @Test func observationsArrivingInUuidOrderAreStoredWholeByTheirIds() throws {
        // Dedupe writes observations in uuid order (their key); the table's key is the id.
        let directory = try TemporaryDirectory()
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",9,"a-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[5,0]],null,null,1]
            ["obs",2,"b-uuid",7,null,"casual",null,null,null,null,null,null,null,null,null,null,null,null,[[6,0]],null,null,1]
            ["obs",5,"c-uuid",7,null,"needs_id",null,null,null,null,null,null,null,null,null,null,null,null,[[7,0]],null,null,1]
            ["photo",5,null,"obs",0,"https://static.inaturalist.org/photos/5/square.jpg","cc-by","a",10,10,null,null,null,1,9,7]
            ["photo",6,null,"obs",0,"https://static.inaturalist.org/photos/6/square.jpg","cc-by","a",10,10,null,null,null,1,2,7]
            ["photo",7,null,"obs",0,"https://static.inaturalist.org/photos/7/square.jpg","cc-by","a",10,10,null,null,null,1,5,7]

            """)
        try BundleBuilder(options: .init(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())).run()
        let database = try Database(path: directory.file("content.sqlite"), mode: .immutable)
        #expect(try database.rows("SELECT id, uuid, user_id, quality_grade FROM observations ORDER BY id")
            == [["2", "b-uuid", "7", "casual"], ["5", "c-uuid", "7", "needs_id"], ["9", "a-uuid", "7", "research"]])
        #expect(try database.rows("SELECT observation_id, photo_id FROM observation_photos ORDER BY 1")
            == [["2", "6"], ["5", "7"], ["9", "5"]])
    }

    /// The lowest id that two observations have is the one named (the observations go in by id),
    /// also when every row is its own run of the observations' order (`ObservationOrder`), so that
    /// the two meet in the merge rather than in one sorted run.
    @Test(arguments: [ExternalSort<UInt8>.defaultRunBytes, 1])
    func twoObservationsWithOneIdAreRefusedNamingTheLineOfEach(runBytes: Int) throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",3,"a-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]
            ["obs",9,"b-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]
            ["obs",3,"c-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]
            ["obs",9,"d-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]

            """)
        var options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        options.sortRunBytes = runBytes
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.path == input)
        #expect(error.line == 4)
        #expect(error.message == "observation c-uuid has the id 3 of observation a-uuid (line 2): an id names one observation")
        #expect(!FileManager.default.fileExists(atPath: directory.file("content.sqlite")))
    }

    /// Two rows with one uuid (a records file edited by hand, or made by another tool) are
    /// refused naming both lines: the unique index refused them later, naming neither.
    @Test func twoObservationsWithOneUUIDAreRefusedNamingTheLineOfEach() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",3,"2b1a7c4e-0d3f-4e5a-9b6c-7d8e9f0a1b2c",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]
            ["obs",9,"2b1a7c4e-0d3f-4e5a-9b6c-7d8e9f0a1b2c",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]

            """)
        let error = try #require(throws: FieldpackError.self) {
            try BundleBuilder(options: .init(input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())).run()
        }
        #expect(error.path == input && error.line == 3, "\(error)")
        #expect(error.message == "observation 2b1a7c4e-0d3f-4e5a-9b6c-7d8e9f0a1b2c is given a second time (line 2): a uuid names one observation, which dedupe writes once")
        #expect(!FileManager.default.fileExists(atPath: directory.file("content.sqlite")))
    }

    /// Two copies of one observation, the newer without its uuid (an API request whose `fields`
    /// left it out): dedupe keys that copy on its id, apart from the other; the bundle refuses the
    /// second row with the id saying why, in whichever order the two lines come.
    @Test(arguments: [false, true])
    func anObservationWithAndWithoutItsUUIDIsRefusedSayingWhy(withoutFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        let with = #"["obs",9001,"2b1a7c4e-0d3f-4e5a-9b6c-7d8e9f0a1b2c",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]"#
        let without = #"["obs",9001,null,7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,2]"#
        let (first, second) = withoutFirst ? (without, with) : (with, without)
        let input = try directory.write("deduped.jsonl", "[\"user\",7,\"u\",\"U\",1]\n\(first)\n\(second)\n")
        let options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.path == input)
        #expect(error.line == 3)
        let (withLine, withoutLine) = withoutFirst ? (3, 2) : (2, 3)
        #expect(error.message == "observation 9001 comes with the uuid 2b1a7c4e-0d3f-4e5a-9b6c-7d8e9f0a1b2c on line \(withLine) "
            + "and without one on line \(withoutLine): dedupe merges an observation's copies on their uuid, so a copy without one "
            + "stays a second observation with the same id; every API copy of an observation must carry its uuid (a request "
            + "whose `fields` leave it out drops it)")
    }

    /// Two rows with one id and neither with a uuid (a deduped file made by hand: dedupe would
    /// have merged them) are refused without inventing one.
    @Test func twoObservationsWithOneIdAndNoUUIDAreRefusedNamingBothLines() throws {
        let directory = try TemporaryDirectory()
        let row = #"["obs",9001,null,7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]"#
        let input = try directory.write("deduped.jsonl", "[\"user\",7,\"u\",\"U\",1]\n\(row)\n\(row)\n")
        let options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.line == 3)
        #expect(error.message == "observation 9001 is on line 2 too, neither with a uuid: an id names one observation")
    }

    /// The observations go in while the photos are parsed; a repeated id met there waits for the
    /// rest of the load, so a file with two faults fails on the same one whatever the timing: the
    /// later line's, as when the observations all went in at the end.
    @Test func aLoadWithTwoFaultsFailsOnTheSameOneWhateverTheTiming() throws {
        let directory = try TemporaryDirectory()
        var lines = [
            #"["user",7,"u","U",1]"#,
            #"["obs",3,"a-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]"#,
            #"["obs",3,"b-uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,1]"#,
        ]
        // Enough photos that the inserting thread meets the repeated id long before the parser
        // reaches the broken line.
        for id in 1...20_000 {
            lines.append(#"["photo",\#(id),null,"obs",0,"https://static.inaturalist.org/photos/\#(id)/square.jpg","cc-by","a",10,10,null,null,null,1,null,7]"#)
        }
        lines.append(#"["photo","not an id",null,"obs",0,null,"cc-by","a",10,10,null,null,null,1,null,7]"#)
        let input = try directory.write("deduped.jsonl", lines.joined(separator: "\n") + "\n")
        for _ in 1...3 {
            let error = try #require(throws: FieldpackError.self) {
                try BundleBuilder(options: .init(
                    input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())).run()
            }
            #expect(error.line == lines.count)
            #expect(error.message == "record has no integer id")
        }
    }

    @Test func aDanglingReferenceIsRefusedWithItsLineAndNothingIsPublished() throws {
        let directory = try TemporaryDirectory()
        // Observation 1 names taxon 999, which no record defines.
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",1,"uuid",7,999,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[5,0]],null,null,1]
            ["photo",5,null,"obs",0,"https://x/photos/5/square.jpg","cc-by","a",10,10,null,null,null,1,1]

            """)
        let options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.line == 2)
        #expect(error.message == "foreign key violation: observations.taxon_id 999 has no row in taxa")
        #expect(!FileManager.default.fileExists(atPath: directory.file("content.sqlite")))
    }

    @Test func aLinkToAPhotoWithNoRecordIsRefusedWithTheLineThatMakesIt() throws {
        let directory = try TemporaryDirectory()
        // Observation 1 shows photo 6; only photo 5 has a record.
        let input = try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",1,"uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[6,0]],null,null,1]
            ["photo",5,null,"obs",0,"https://static.inaturalist.org/photos/5/square.jpg","cc-by","a",10,10,null,null,null,1,1]

            """)
        let options = BundleBuilder.Options(
            input: input, output: directory.file("content.sqlite"), pipelineName: "t", policy: ShippingPolicy())
        let error = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(error.line == 2)
        #expect(error.message == "foreign key violation: observation_photos.photo_id 6 has no row in photos")
        #expect(!FileManager.default.fileExists(atPath: directory.file("content.sqlite")))
        // The same with no photo record at all.
        try directory.write("deduped.jsonl", """
            ["user",7,"u","U",1]
            ["obs",1,"uuid",7,null,"research",null,null,null,null,null,null,null,null,null,null,null,null,[[6,0]],null,null,1]

            """)
        let none = try #require(throws: FieldpackError.self) { try BundleBuilder(options: options).run() }
        #expect(none.line == 2)
        #expect(none.message == "foreign key violation: observation_photos.photo_id 6 has no row in photos")
    }

    @Test func theLoaderChecksExactlyTheForeignKeysTheSchemaDeclares() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("s.sqlite"))
        try Migrator().migrate(database)
        var declared: [String] = []
        for table in BundleBuilder.tables {
            for key in try database.rows("SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?)", [.text(table)]) {
                declared.append("\(table).\(key[0]!) -> \(key[1]!)")
            }
        }
        let checked = BundleBuilder.checkedForeignKeys.map { "\($0.table).\($0.column) -> \($0.parent)" }
        #expect(declared.sorted() == checked.sorted())
    }
}

@Suite struct LinkedLibraryTests {
    /// This test module imports Foundation and sees libxml2's headers through FieldpackKit: a
    /// clean build of it is the proof that the ICU module clash is handled (see CLibXML2/shim.h).
    @Test func theVersionLineNamesTheSQLiteThisProcessRunsOn() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("v.sqlite"))
        // SQLite's own answer, through SQL: the library linked at run time.
        let running = try #require(try database.scalar("SELECT sqlite_version()"))
        #expect(ToolVersion.sqlite == running)
        #expect(ToolVersion.description.hasPrefix("\(ToolVersion.version) (SQLite \(running), "), "\(ToolVersion.description)")
    }
}
