import FieldpackKit

let command = StageCommand(
    name: "fieldpack-verify",
    usage: "fieldpack-verify BUNDLE_DIR",
    help: """
        Checks a bundle as the app does before ingesting it: nothing missing or extra, every
        checksum, then the database read-only: application_id, a known schema version with its
        golden fingerprint, integrity_check, foreign_key_check, row counts. Names every problem;
        exit 1 if there is any.
        """,
    options: [])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one bundle folder") }
    let problems = BundleVerifier(directory: arguments.positional[0]).verify()
    for problem in problems { StandardError.write(problem) }
    if !problems.isEmpty {
        throw FieldpackError(path: arguments.positional[0], "bundle refused: \(problems.count) problem(s)")
    }
    StandardError.write("fieldpack-verify: \(arguments.positional[0]): ok")
}
