import FieldpackKit
import Foundation

/// A fresh folder under the system temp directory, removed when the value is released.
package final class TemporaryDirectory {
    package let path: String

    package init(_ label: String = "fieldpack") throws {
        // One slash between the folder and the name (NSTemporaryDirectory ends in one): make
        // spells BUILD without a doubled one, and tests compare its output with these paths.
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
        var template = Array("\(temporary)/\(label)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw FieldpackError("mkdtemp failed")
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    package func file(_ name: String) -> String { "\(path)/\(name)" }

    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    /// Writes `text` gzip-compressed with the system `gzip -n` (a real gzip stream).
    @discardableResult
    package func writeGzip(_ name: String, _ text: String) throws -> String {
        let plain = try write(name + ".plain", text)
        let output = file(name)
        try run("/bin/sh", ["-c", "gzip -n -c '\(plain)' > '\(output)' && rm '\(plain)'"])
        return output
    }
}

/// The repository root (where Package.swift is), found from this file's location.
package let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
    }
    fatalError("no Package.swift above \(#filePath)")
}()

/// Real iNaturalist API responses (copied from the shared samples with their attribution, so a
/// clean clone tests on its own; see Fixtures/README.md).
package let samplesRoot = "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/inat"

/// A real Wikipedia page or dump of the wiki stage's tests (Fixtures/wiki, with its SOURCES.md).
package func wikiFixture(_ name: String) -> String { "\(repositoryRoot)/Tests/FieldpackKitTests/Fixtures/wiki/\(name)" }

/// Every real page in Fixtures/wiki, one of each flavour (Parsoid of several years, legacy,
/// mobile-html, right-to-left and CJK, a redirect stub).
package let realWikiPages = [
    "Dog.html", "Cat-parse_contents_en.html", "Hermitian_matrix-legacy.html", "Crimean_Mountains-parsoid.html", "SubReferences.html",
    "zh-Red-crowned_crane-parsoid.html", "ar-Cheetah-parsoid.html", "mobile-html-Common_kingfisher.html", "redirect-stub.html",
]

/// An Ed25519 key pair made by the openssl command line, as a publisher would:
/// `directory/name.pem` and `directory/name.pub.pem`.
package func ed25519KeyPair(in directory: TemporaryDirectory, _ name: String = "key") throws
    -> (privateKey: Ed25519Key, publicKey: Ed25519Key, privatePath: String, publicPath: String)
{
    let privatePath = directory.file("\(name).pem"), publicPath = directory.file("\(name).pub.pem")
    for arguments in [["genpkey", "-algorithm", "ed25519", "-out", privatePath], ["pkey", "-in", privatePath, "-pubout", "-out", publicPath]] {
        let made = try run("/usr/bin/openssl", arguments)
        guard made.status == 0 else { throw FieldpackError("openssl \(arguments[0]) failed: \(made.stderr)") }
    }
    return (try Ed25519Key.privateKey(at: privatePath), try Ed25519Key.publicKey(at: publicPath), privatePath, publicPath)
}

package func text(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
}

/// A depfile's rules as make reads them, without its comment lines (the inputs' identities),
/// and the paths those identities name, in order.
package func depfileRules(_ path: String) throws -> (rules: String, identified: [String]) {
    let all = try text(path).split(separator: "\n", omittingEmptySubsequences: false)
    let rules = all.filter { !$0.hasPrefix("#") }.joined(separator: "\n")
    let identified = all.filter { $0.hasPrefix("#@\t") }.compactMap { $0.split(separator: "\t", maxSplits: 5).last.map(String.init) }
    return (rules, identified)
}

package func lines(_ path: String) throws -> [String] {
    try text(path).split(separator: "\n").map(String.init)
}

/// Parses JSON Lines with Foundation (an independent reader of what fieldpack wrote).
package func jsonLines(_ path: String) throws -> [[String: Any]] {
    try lines(path).map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
}

/// The column names of each record kind in the records files: the layout the `Column` enums in
/// `Records/` define, restated here as the test's own reading of it.
package let recordColumnNames: [String: [String]] = [
    "obs": ["k", "id", "uuid", "user", "taxon", "quality_grade", "observed_on", "time_observed_at", "created_at",
            "updated_at", "lat", "lng", "positional_accuracy", "geoprivacy", "obscured", "taxon_geoprivacy", "place_guess", "license",
            "photos", "unknown", "part", "seen", "src"],
    "user": ["k", "id", "login", "name", "seen", "src"],
    "taxon": ["k", "id", "from", "name", "rank", "rank_level", "ancestry", "iconic_taxon_name", "preferred_common_name",
              "wikipedia_url", "is_active", "default_photo", "photos", "species_count", "unknown", "seen", "src"],
    "photo": ["k", "id", "taxon", "ctx", "pos", "url", "license", "attribution", "width", "height", "type", "hidden",
              "attribution_name", "seen", "obs", "observer", "src"],
    "input": ["k", "index", "path", "bytes", "sha256", "format", "records", "rejected", "salvaged", "pruned"],
    // Deduped files only (dedupe's share of a selection): no source, like every deduped record.
    "select": ["k", "fingerprint", "removed", "seen", "photos_not_selected", "stage", "measured", "taxa_left_out", "users_left_out", "src"],
]

/// Reads a records file (positional JSON arrays) into named fields, with Foundation's parser.
/// Deduped files drop the source and shorten `input` records to path, bytes, sha256, format; an
/// observation whose winner came from the open-data export ends with its `origin` instead.
package func recordLines(_ path: String, deduped: Bool = false) throws -> [[String: Any]] {
    try lines(path).map { line in
        let array = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [Any]
        let kind = array[0] as! String
        var names = recordColumnNames[kind]!
        if deduped && kind == "input" { names = ["k", "path", "bytes", "sha256", "format"] }
        if deduped && kind == "obs" && array.count == names.count {
            names[names.count - 1] = "origin"  // an export copy's `ExportOrigin`: [path, line]
        } else if deduped {
            precondition(array.count == names.count - (kind == "input" ? 0 : 1), "\(kind) has \(array.count) columns")
        }
        return Dictionary(uniqueKeysWithValues: zip(names, array).map { ($0, $1) })
    }
}

package struct ProcessResult {
    package var status: Int32
    package var stdout: String
    package var stderr: String
}

@discardableResult
package func run(_ executable: String, _ arguments: [String], directory: String? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs ingest (accepting any reject rate) and dedupe in-process on `inputs`, into `directory`:
/// `records.jsonl`, `rejects.jsonl`, `deduped.jsonl`, `conflicts.json`.
@discardableResult
package func ingestAndDedupe(
    _ inputs: [String], in directory: TemporaryDirectory, selection: Selection? = nil
) throws -> Dedupe.Summary {
    var ingest = INatIngest.Options(inputs: inputs, output: directory.file("records.jsonl"), rejects: directory.file("rejects.jsonl"))
    ingest.maxRejectRate = 1
    try INatIngest(options: ingest).run()
    var dedupe = Dedupe.Options(
        input: directory.file("records.jsonl"), output: directory.file("deduped.jsonl"), conflicts: directory.file("conflicts.json"))
    dedupe.selection = selection
    return try Dedupe(options: dedupe).run()
}

/// Every ingest shard of `count` (`fieldpack-inat --shard I/N --output-folder`), each run with
/// the options `options` gives for its index, its shard and its folder under `base` set.
package func ingestShards(count: Int, base: String, _ options: (Int) -> INatIngest.Options) throws {
    for index in 0..<count {
        var ingest = options(index)
        ingest.shard = try Shard(index: index, count: count)
        ingest.outputFolder = IngestShardSummary.folder(base: base, shard: ingest.shard)
        try INatIngest(options: ingest).run()
    }
}

/// Every dedupe shard of `count` (`fieldpack-dedupe INAT_DIR --shard J/N`) over the ingest shards
/// under `inat`, each writing `<base>/shard-J-of-N/records.jsonl` and its conflicts report, with
/// the settings `configure` adds; returns the parts' records files, in shard order.
@discardableResult
package func dedupeShards(
    count: Int, inat: String, base: String, _ configure: (inout DedupeShard.Options) -> Void = { _ in }
) throws -> [String] {
    var parts: [String] = []
    for index in 0..<count {
        let shard = try Shard(index: index, count: count)
        let folder = IngestShardSummary.folder(base: base, shard: shard)
        parts.append("\(folder)/records.jsonl")
        var options = DedupeShard.Options(inat: inat, shard: shard, output: parts.last!, conflicts: "\(folder)/conflicts.json")
        configure(&options)
        try DedupeShard(options: options).run()
    }
    return parts
}

/// The sample pipeline's shipping policy: the commercial licences, three display targets, the
/// measured sizes file (its path, relative to the repository root, made absolute).
package func samplePolicy() throws -> ShippingPolicy {
    var policy = try Pipeline.load("\(repositoryRoot)/pipelines/sample.json").shipping
    if let path = policy.measuredSizes, !path.hasPrefix("/") { policy.measuredSizes = "\(repositoryRoot)/\(path)" }
    return policy
}

/// Runs ingest → dedupe → bundle → publish in-process on `inputs`, into `directory`; the bundle
/// stage also writes `costs-report.json` there.
@discardableResult
package func buildBundle(
    inputs: [String], in directory: TemporaryDirectory, name: String = "test", epoch: Int64? = nil,
    policy: ShippingPolicy? = nil
) throws -> String {
    try ingestAndDedupe(inputs, in: directory)
    var bundle = BundleBuilder.Options(
        input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: name,
        policy: try policy ?? samplePolicy())
    bundle.sourceDateEpoch = epoch
    bundle.costsReport = directory.file("costs-report.json")
    bundle.inputsFile = directory.file("inputs.json")
    try BundleBuilder(options: bundle).run()
    var publisher = BundlePublisher(database: directory.file("content.sqlite"), destination: directory.file("bundle"))
    publisher.inputs = directory.file("inputs.json")
    try publisher.publish()
    return directory.file("bundle")
}

/// Two indexes of the observations in the database at `path` swap their b-trees: every page
/// stays well formed and each holds one entry per row (the app's quick_check and the row counts
/// pass), but no index entry matches its row (integrity_check fails).
package func swapObservationIndexes(of path: String) throws {
    let database = try Database(path: path)
    let rootPage = "SELECT rootpage FROM sqlite_schema WHERE name = ?"
    guard let user = try database.int(rootPage, [.text("observations_by_user")]),
          let uuid = try database.int(rootPage, [.text("observations_by_uuid")])
    else { throw FieldpackError(path: path, "no observations indexes to swap") }
    try database.execute("""
        PRAGMA writable_schema = ON;
        UPDATE sqlite_schema SET rootpage = \(uuid) WHERE name = 'observations_by_user';
        UPDATE sqlite_schema SET rootpage = \(user) WHERE name = 'observations_by_uuid';
        PRAGMA writable_schema = OFF;
        """)
}

/// Builds `content.sqlite` in `directory` again from the deduped records `buildBundle` left there,
/// with the articles of one line of JSON as the wiki stage writes them, and `destinations`.
package func rebuildBundle(in directory: TemporaryDirectory, article: String, destinations: [Destination]) throws {
    var options = BundleBuilder.Options(
        input: directory.file("deduped.jsonl"), output: directory.file("content.sqlite"), pipelineName: "sample",
        policy: try samplePolicy())
    options.articles = try directory.write("articles.jsonl", article + "\n")
    options.destinations = destinations
    try BundleBuilder(options: options).run()
}

/// A uuid for a test observation of `id`: its number (or its text's bytes) in hexadecimal as the
/// last group, so observations sort by it as by their id.
package func uuidText(for id: Any) -> String {
    let text = "\(id)"
    var hex = Int(text).flatMap { $0 >= 0 ? String($0, radix: 16) : nil } ?? text.utf8.map { String($0, radix: 16) }.joined()
    hex = String(hex.suffix(12))
    return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
}

/// A minimal API v1 observation, as JSON text.
package func observationJSON(
    id: Any, updatedAt: String = "2024-05-01T10:00:00+00:00", quality: String = "research", taxon: Int? = 48662,
    user: Int = 7, photos: [(id: Int, license: String?, width: Int?)] = [], extra: String = ""
) -> String {
    let idText = id is String ? "\"\(id)\"" : "\(id)"
    let photoObjects = photos.map { photo in
        let license = photo.license.map { "\"\($0)\"" } ?? "null"
        let dimensions = photo.width.map { "{\"width\":\($0),\"height\":\($0 * 3 / 4)}" } ?? "null"
        return "{\"id\":\(photo.id),\"license_code\":\(license),\"url\":\"https://inaturalist-open-data.s3.amazonaws.com/photos/\(photo.id)/square.jpg\",\"attribution\":\"(c) u, some rights reserved\",\"original_dimensions\":\(dimensions)}"
    }
    let links = zip(photos.indices, photoObjects).map { "{\"id\":\($0.0 + 1000),\"position\":\($0.0),\"photo\":\($0.1)}" }
    let taxonText = taxon.map { "{\"id\":\($0),\"name\":\"Danaus plexippus\",\"rank\":\"species\",\"rank_level\":10}" } ?? "null"
    return """
        {"id":\(idText),"uuid":"\(uuidText(for: id))","quality_grade":"\(quality)","observed_on":"2024-04-30","updated_at":"\(updatedAt)",\
        "created_at":"2024-04-30T09:00:00+00:00","location":"50.5,4.25","taxon":\(taxonText),\
        "user":{"id":\(user),"login":"user\(user)","name":null},"photos":[\(photoObjects.joined(separator: ","))],\
        "observation_photos":[\(links.joined(separator: ","))]\(extra)}
        """
}

package func page(_ observations: [String]) -> String {
    "{\"total_results\":\(observations.count),\"page\":1,\"per_page\":\(observations.count),\"results\":[\n\(observations.joined(separator: ",\n"))\n]}\n"
}

/// A small deterministic generator (SplitMix64): non-negative numbers, the same on every run,
/// for seeded test data (incompressible text, noise, sizes).
package struct SplitMix {
    var state: UInt64
    package init(seed: UInt64) { state = seed }
    package mutating func next() -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
    }
}
