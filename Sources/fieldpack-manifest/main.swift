import FieldpackKit

let command = StageCommand(
    name: "fieldpack-manifest",
    usage: """
        fieldpack-manifest content.sqlite --output BUNDLE_DIR [--inputs inputs.json] [--include FILE]... [--sign KEY.pem] [--public-key KEY.pub.pem] [--bagit]
               fieldpack-manifest --sha256 FILE...
        """,
    help: """
        Publishes the bundle folder: the database, manifest.json (every file's size and SHA-256,
        schema version and fingerprint, row counts, pipeline, inputs' SHA-256, tool version, build
        date) and manifest-sha256.txt (which `sha256sum -c` accepts inside the folder). The folder
        is assembled beside BUNDLE_DIR and swapped in whole. --include adds a file (a report)
        to the folder and the manifest. --inputs names the bundle stage's inputs.json (the input
        files' paths, sizes and SHA-256) for the manifest. --sign signs manifest.json with an Ed25519 private key
        (openssl genpkey -algorithm ed25519) into manifest.json.sig.

        Before the swap, the assembled folder is checked as fieldpack-verify --full checks it (with
        --public-key, its signature too): a bundle that would be refused is never published, and
        the previous one stays. BUNDLE_DIR must be missing, empty, or a bundle: anything else
        there (a file, a link, another folder) is refused, never deleted.

        --bagit publishes the folder as a BagIt bag (RFC 8493): the payload under data/, the
        payload and tag manifests, bagit.txt and bag-info.txt; manifest.json is a tag file. The
        bag is checked before the swap like the flat folder (fieldpack-verify reads both).

        --sha256 prints each file's SHA-256 as `sha256sum` does, with the hashing the manifest
        uses (libcrypto): what `make bench` compares with openssl and sha256sum.
        """,
    options: ["output", "include", "sign", "inputs", "public-key"],
    flags: ["sha256", "bagit"])

command.main { arguments in
    if arguments.flag("sha256") {
        guard !arguments.positional.isEmpty else { throw UsageError("give the files to hash") }
        let clock = StageClock()
        let progress = arguments.progress(stage: "manifest")
        progress.expect(bytes: arguments.positional.reduce(0) { $0 + (FileSystem.size($1) ?? 0) })
        progress.start()
        var total = 0
        var unreadable = 0
        // Every file, as sha256sum does: one that cannot be read is named, and the others hashed.
        for path in arguments.positional {
            do {
                let (digest, bytes) = try SHA256.hex(ofFile: path, progress: progress)
                print(ChecksumList.line(digest: digest, name: path))
                total += bytes
            } catch let error as FieldpackError {
                StandardError.write(error.description)
                unreadable += 1
            }
        }
        progress.finish()
        if unreadable > 0 {
            throw FieldpackError("\(unreadable) of \(arguments.positional.count) file(s) could not be hashed")
        }
        StageReport(stage: "manifest", clock: clock).print("\(arguments.positional.count) file(s) hashed", records: arguments.positional.count, bytes: total)
        return
    }
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one database") }
    let clock = StageClock()
    var publisher = BundlePublisher(
        database: arguments.positional[0], destination: try arguments.required("output"), extraFiles: arguments.all("include"))
    publisher.signingKey = try arguments.value("sign").map { try Ed25519Key.privateKey(at: $0) }
    publisher.bagIt = arguments.flag("bagit")
    publisher.inputs = arguments.value("inputs")
    publisher.progress = arguments.progress(stage: "manifest")
    let publicKey = try arguments.value("public-key").map { try Ed25519Key.publicKey(at: $0) }
    let destination = publisher.destination
    // The folder is assembled just now, by this process: the integrity check runs on the
    // database while it is copied, and the database is opened for its other checks while the
    // checksums are computed (the same problems, sooner).
    publisher.checksIntegrityWhileCopying = true
    publisher.check = { staged, integrity in
        var verifier = BundleVerifier(directory: staged, publicKey: publicKey)
        verifier.checksDatabaseWhileHashing = true
        verifier.integrityVerdict = integrity
        let problems = verifier.verify()
        guard !problems.isEmpty else { return }
        // Named as the person will find them: at the destination, not the hidden staging folder.
        for problem in problems { StandardError.write(problem.replacingOccurrences(of: staged, with: destination)) }
        throw FieldpackError(
            path: destination,
            "not published: the assembled bundle fails the app's check (\(problems.count) problem(s)); the previous bundle is untouched")
    }
    let manifest = try publisher.publish()
    StageReport(stage: "manifest", clock: clock, timingStage: publisher.bagIt ? "manifest-bag" : nil).print(
        "\(manifest.files.count) file(s) hashed", records: manifest.files.count, bytes: manifest.files.reduce(0) { $0 + $1.bytes })
}
