/// A pipeline file written from arguments (`fieldpack-pipeline init`, which `make bundle INAT=…`
/// runs): the name and the inputs, every other key left to its default, so the file is a start
/// to edit (docs/pipeline.md lists the keys).
public struct PipelineTemplate: Sendable {
    public var name: String
    /// Paths, folders or globs of iNaturalist dumps, as given (relative to where make runs).
    public var inat: [String]
    /// Paths, folders or globs of Wikipedia dumps or pages.
    public var wikipedia: [String]
    /// The share of records ingest may reject (`max_reject_rate`); nil keeps the default, 1%.
    public var maxRejectRate: Double?

    public init(name: String, inat: [String], wikipedia: [String] = [], maxRejectRate: Double? = nil) {
        self.name = name
        self.inat = inat
        self.wikipedia = wikipedia
        self.maxRejectRate = maxRejectRate
    }

    /// Refuses a name that cannot name a pipeline, no iNaturalist input, and an input that names
    /// nothing (the error names the input and the option it came with).
    public func check() throws {
        guard Pipeline.isValidName(name) else { throw UsageError("the pipeline name \"\(name)\" \(Pipeline.nameRule)") }
        guard !inat.isEmpty else { throw UsageError("give the iNaturalist dumps with --inat (make: INAT=…)") }
        if let maxRejectRate, !(0...1).contains(maxRejectRate) {
            throw UsageError("--max-reject-rate must be between 0 and 1, not \(maxRejectRate)")
        }
        for (option, entries) in [("--inat", inat), ("--wikipedia", wikipedia)] {
            for entry in entries {
                if !Pipeline.isPattern(entry) && !FileSystem.exists(entry) {
                    throw FieldpackError(path: entry, "given with \(option): no such file or folder, or a glob that matches nothing")
                }
                do {
                    _ = try Pipeline.resolve([entry], pipelinePath: entry)
                } catch var error as FieldpackError {
                    // What is wrong with an input that is there (an empty folder, a named pipe, a
                    // name that is not UTF-8, a folder that cannot be read), as a pipeline file
                    // naming it is told, not "no such file".
                    if error.path == entry {
                        error.message = "given with \(option): \(error.message)"
                    } else {
                        error.message += " (given with \(option) as \"\(entry)\")"
                    }
                    throw error
                }
            }
        }
    }

    /// The pipeline file's text: indented JSON, deterministic.
    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("name"); writer.string(name)
        writer.key("inat")
        writer.beginArray()
        for entry in inat { writer.string(entry) }
        writer.endArray()
        if !wikipedia.isEmpty {
            writer.key("wikipedia")
            writer.beginArray()
            for entry in wikipedia { writer.string(entry) }
            writer.endArray()
        }
        if let maxRejectRate {
            writer.key("max_reject_rate"); writer.double(maxRejectRate)
        }
        writer.endObject()
        return PrettyJSON.format(writer.bytes) + "\n"
    }

    /// Writes the file atomically, unless it already holds exactly this text: then it is left
    /// alone, with its modification time, so make reruns nothing.
    ///
    /// The SHA-256 of what it wrote is kept beside it (`.NAME.written-sha256`): a file whose
    /// bytes are no longer those, that is one edited by hand since, is not written over, and the
    /// error says what to do instead (copy it under a name of its own). A file with no such
    /// record is written over only if it is exactly the text this writes for the values it holds
    /// (`isTemplateText`: one written before there were records); any other file is refused, so
    /// `--output` never replaces a pipeline written by hand.
    ///
    /// - Returns: whether the file was written.
    @discardableResult
    public func write(to path: String) throws -> Bool {
        let bytes = Array(json.utf8)
        let record = Self.writtenRecord(of: path)
        if FileSystem.isRegularFile(path), let existing = try? ReadableFile.contents(of: path) {
            if existing == bytes {
                // Left alone; its record written if a run that wrote it died before the record,
                // or it was written before there were records.
                if !FileSystem.isRegularFile(record) { try AtomicOutput.write(SHA256.hex(of: bytes) + "\n", to: record) }
                return false
            }
            if let recorded = try? ReadableFile.contents(of: record) {
                if recorded.prefix(64).elementsEqual(SHA256.hex(of: existing).utf8) == false {
                    throw FieldpackError(
                        path: path,
                        "was edited since it was written from INAT=… (and WIKIPEDIA=…), and writing it again would lose the edits: "
                            + "copy it under another file name, give it another \"name\" and build it with make bundle PIPELINE=…, "
                            + "or remove it to have it written again")
                }
            } else if !Self.isTemplateText(existing) {
                throw FieldpackError(
                    path: path,
                    "is a pipeline file this command did not write, and writing it would lose it: give --output another file, or remove it first")
            }
        }
        try AtomicOutput.write(json, to: path)
        try AtomicOutput.write(SHA256.hex(of: bytes) + "\n", to: record)
        return true
    }

    /// Whether `bytes` are exactly what `json` writes for the values they hold: a file this
    /// command wrote before it kept records. One written or edited by hand, even with only these
    /// keys, is not (its layout differs).
    static func isTemplateText(_ bytes: [UInt8]) -> Bool {
        let parser = JSONParser()  // the value lives as long as its parser
        return withExtendedLifetime(parser) {
            guard let root = try? parser.parse(PaddedBuffer(copying: bytes)), root.isObject, let name = root["name"]?.string else { return false }
            func strings(_ key: StaticString) -> [String]? {
                guard let list = root[key] else { return [] }
                guard list.isArray else { return nil }
                let elements = Array(list.elements)
                let values = elements.compactMap(\.string)
                return values.count == elements.count ? values : nil
            }
            guard let inat = strings("inat"), let wikipedia = strings("wikipedia") else { return false }
            let template = PipelineTemplate(name: name, inat: inat, wikipedia: wikipedia, maxRejectRate: root["max_reject_rate"]?.double)
            return Array(template.json.utf8) == bytes
        }
    }

    /// Whether the pipeline file at `path` was written by `write(to:)` (make's INAT=…).
    public static func wasWritten(_ path: String) -> Bool { FileSystem.isRegularFile(writtenRecord(of: path)) }

    /// Where the SHA-256 of the text last written to `path` is kept.
    static func writtenRecord(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return "\(directory(of: path))/.\(name).written-sha256"
    }
}
