import FieldpackKit

let command = StageCommand(
    name: "fieldpack-manifest",
    usage: "fieldpack-manifest content.sqlite --output BUNDLE_DIR [--include FILE]...",
    help: """
        Publishes the bundle folder: the database, manifest.json (every file's size and SHA-256,
        schema version and fingerprint, row counts, pipeline, inputs' SHA-256, tool version, build
        date) and manifest-sha256.txt (which `sha256sum -c` accepts inside the folder). The folder
        is assembled beside BUNDLE_DIR and swapped in whole. --include adds a file (a report)
        to the folder and the manifest.
        """,
    options: ["output", "include"])

command.main { arguments in
    guard arguments.positional.count == 1 else { throw UsageError("give exactly one database") }
    let clock = StageClock()
    let manifest = try BundlePublisher(
        database: arguments.positional[0], destination: try arguments.required("output"),
        extraFiles: arguments.all("include")).publish()
    StageReport(stage: "manifest", clock: clock).print(
        "\(manifest.files.count) file(s) hashed", bytes: manifest.files.reduce(0) { $0 + $1.bytes })
}
