import FieldpackKit

let command = StageCommand(
    name: "fieldpack-pipeline",
    usage: """
        fieldpack-pipeline init NAME --inat PATH... [--wikipedia PATH...] [--max-reject-rate R] [--output FILE]
               fieldpack-pipeline changed-inputs (BUILD_FOLDER | DEPFILE)... [--shards N]
        """,
    help: """
        Writes a pipeline file from arguments, so that a bundle can be built from your own dumps
        without writing JSON (make bundle INAT=… WIKIPEDIA=… NAME=… runs it). NAME names
        build/<NAME>/; --inat and --wikipedia take files, folders or globs (repeat them for
        several), relative to where the stages run. --max-reject-rate sets the share of records
        ingest may reject (default 0.01). Every other key keeps its default: edit the file to add
        display targets, destinations or licences.

        With --output FILE the file is written there, atomically, and only if it changes (so
        make reruns nothing when the arguments are the same); without, to standard output.
        Every input must name a file or folder, or a glob that matches one.

        changed-inputs prints, on one line and as make spells them, the targets of those stage
        depfiles whose inputs are no longer the files the stage read (another size, modification
        or change time, following links: a dump copied in with its old time kept, cp -p or
        rsync -a, or a link turned to another folder; of the pipeline file, the keys that stage
        reads of it), or whose stage did not end. A folder
        stands for the depfiles in it and two folders deep (a pipeline's build folder), less
        those of another shard count's shards than --shards N (none without it). The
        Makefile runs it before it decides anything, and makes those targets again. A depfile
        that is not there names none.
        """,
    options: ["inat", "wikipedia", "max-reject-rate", "output", "shards"])

command.main { arguments in
    if arguments.positional.first == "changed-inputs" {
        let shards = try arguments.int("shards", atLeast: 1)
        let depfiles = arguments.positional.dropFirst().flatMap { FileSystem.isDirectory($0) ? Depfile.depfiles(under: $0, shards: shards) : [$0] }
        // Each pipeline file parsed once, whichever stages' depfiles name it.
        var digests: [String: [PipelineReader: String]?] = [:]
        let changed = Depfile.changedTargets(depfiles) { path, kind in
            if digests[path] == nil { digests[path] = .some(PipelineReader.digests(ofFile: path)) }
            return PipelineReader(rawValue: kind).flatMap { digests[path]??[$0] }
        }
        print(changed.joined(separator: " "))
        return
    }
    guard arguments.positional.first == "init" else { throw UsageError("give a command: init or changed-inputs") }
    guard arguments.positional.count == 2 else { throw UsageError("init takes one NAME") }
    let template = PipelineTemplate(
        name: arguments.positional[1], inat: arguments.all("inat"), wikipedia: arguments.all("wikipedia"),
        maxRejectRate: try arguments.fraction("max-reject-rate"))
    try template.check()
    guard let output = arguments.value("output") else {
        print(template.json, terminator: "")
        return
    }
    try FileSystem.refuseOutputs([output], overwriting: template.inat + template.wikipedia)
    try Pipeline.refuseOutputsInWalkedFolders([output], folders: try Pipeline.resolve(template.inat + template.wikipedia, pipelinePath: output).walked)
    if try template.write(to: output) {
        StandardError.write("fieldpack-pipeline: \(output): written")
    }
}
