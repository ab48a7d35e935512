import FieldpackKit

let command = StageCommand(
    name: "fieldpack-verify",
    usage: "fieldpack-verify BUNDLE_DIR [--public-key KEY.pem] [--full]",
    help: """
        Checks a bundle as the app does before ingesting it: nothing missing or extra, every
        checksum, then the database read-only: application_id, a known schema version with its
        golden fingerprint, quick_check, foreign_key_check, row counts. With --public-key, the
        manifest's Ed25519 signature (manifest.json.sig) must verify with it. Names every problem;
        exit 1 if there is any.

        --full runs integrity_check instead of quick_check: every index entry is matched against
        its row as well (on 1M observations most of the check's time). fieldpack-manifest runs
        that full check on every bundle before it publishes it.

        BUNDLE_DIR is the flat folder, or the same bundle as a BagIt bag (fieldpack-manifest
        --bagit; a folder with bagit.txt): then the bag's declaration, tag manifest, payload
        manifest and Payload-Oxum are checked too, and the payload is read from data/.
        """,
    options: ["public-key"],
    flags: ["full"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one bundle folder") }
    let key = try arguments.value("public-key").map { try Ed25519Key.publicKey(at: $0) }
    let clock = StageClock()
    var verifier = BundleVerifier(directory: arguments.positional[0], publicKey: key)
    verifier.progress = arguments.progress(stage: "verify")
    verifier.depth = arguments.flag("full") ? .full : .app
    let problems = verifier.verify()
    for problem in problems { StandardError.write(problem) }
    if !problems.isEmpty {
        throw FieldpackError(path: arguments.positional[0], "bundle refused: \(problems.count) problem(s)")
    }
    StageReport(stage: "verify", clock: clock, timingStage: BundleVerifier.isBag(arguments.positional[0]) ? "verify-bag" : nil).print(
        "\(arguments.positional[0]): ok, \(verifier.progress.recordCount) file(s) checked",
        records: verifier.progress.recordCount, bytes: verifier.progress.byteCount)
}
