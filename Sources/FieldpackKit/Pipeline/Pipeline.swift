#if canImport(Glibc)
import Glibc
#endif

/// A pipeline definition (`pipelines/*.json`): what to build and from which inputs.
///
/// ```json
/// { "name": "sample", "inat": ["sample-data/inat"] }
/// ```
/// Relative paths are relative to the working directory (the repository root under make).
/// `wikipedia`, `destinations`, `targets` and `licenses` are read by later stages.
public struct Pipeline: Sendable {
    public var name: String
    /// Paths, folders or glob patterns of iNaturalist dumps.
    public var inat: [String]
    /// Paths, folders or glob patterns of Wikipedia dumps (Enterprise `.tar.gz`, NDJSON, `.html`).
    public var wikipedia: [String]
    /// The places the app describes, each with its Wikipedia article or Wikidata item.
    public var destinations: [Destination]
    /// The Wikipedia language whose articles are read (`wikipedia_language`, default "en").
    public var wikipediaLanguage: String
    /// The blurb rules, with the pipeline's extra boilerplate sections and summary length.
    public var blurbRules: BlurbRules
    /// Licences, display targets, memory budget and cost figures for photos.
    public var shipping: ShippingPolicy
    /// The share of input records that may be rejected before ingest fails (`max_reject_rate`).
    public var maxRejectRate: Double?
    /// The date of loose open-data export tables (`open_data_date`, `YYYY-MM-DD`), as Unix ms:
    /// the export's `.tar.gz` and `inaturalist-open-data-YYYYMMDD` names carry their own.
    public var openDataDate: Int64? = nil
    /// The most memory ingest may keep for the keys that repeat (`repeat_filter_bytes`, a name
    /// from when Bloom filters did this; see `ExportLinkPruning.Singles`); nil: 64 MiB. Besides
    /// it, a 1 MiB bit filter per kind of key (`RepeatedKeys`).
    public var repeatFilterBytes: Int? = nil
    public var path: String
    /// What ships of the inputs (`select`; nil: everything). See `Selection`.
    public var selection: Selection? = nil
    /// The stage before the bundle that loaded the file (`load(_:for:)`), and the digest of what
    /// it reads of it, as loaded (`PipelineReader`).
    public var readBy: (reader: PipelineReader, digest: String)? = nil

    /// The files this pipeline's settings are read from besides the pipeline file: its `select`
    /// rules' GeoJSON files and its measured sizes. A stage's depfile lists them, and no output
    /// may name one of them or the pipeline file (`Arguments.refuseOutputs`).
    public var settingsFiles: [String] { (selection?.files ?? []) + (shipping.measuredSizes.map { [$0] } ?? []) }

    /// The pipeline file's keys (docs/pipeline.md).
    static let keys = [
        "name", "inat", "max_reject_rate", "licenses", "targets", "memory_budget_bytes", "costs", "wikipedia", "destinations",
        "wikipedia_language", "wikipedia_skip_sections", "wikipedia_summary_length", "open_data_date", "repeat_filter_bytes", "select",
    ]

    /// The pipeline's name alone (`fieldpack-inat --print-name`, which make runs as it reads the
    /// Makefile, once per Slurm task too): its file parsed, not its settings' files (a large
    /// `select` GeoJSON was read on every one). What else is wrong with it the stages say.
    public static func name(at path: String) throws -> String {
        let parser = JSONParser()
        let root = try parsed(path, by: parser)
        return try withExtendedLifetime(parser) {
            guard root.isObject, let name = root["name"]?.string else { throw FieldpackError(path: path, "pipeline needs a string \"name\"") }
            guard isValidName(name) else { throw FieldpackError(path: path, "pipeline name \"\(name)\" \(nameRule)") }
            return name
        }
    }

    /// The pipeline file parsed by `parser`. Its bytes and their padded copy go as soon as they
    /// are parsed: the parser's document holds its own copy of every string (the three at once
    /// were 40 MB for a pipeline of 160,000 destinations). A byte order mark (Notepad writes
    /// one) is passed over, as in every input.
    static func parsed(_ path: String, by parser: JSONParser) throws -> JSONValue {
        let buffer = try ReadableFile.contents(of: path).withUnsafeBytes { PaddedBuffer(copying: Array(withoutByteOrderMark($0))) }
        do {
            return try parser.parse(buffer)
        } catch {
            throw FieldpackError.notJSON(path, buffer.bytes, "pipeline is not valid JSON", error)
        }
    }

    /// Reads and validates a pipeline file.
    ///
    /// - Parameter destinations: given, each destination goes to it as it is read, and the
    ///   pipeline's `destinations` stay empty (a large bundle has 100,000 of them, and a stage
    ///   that only needs what they want from Wikipedia need not hold them as a list).
    /// - Parameter reader: the stage before the bundle that loads it, whose depfile names the file
    ///   by what it reads of it (`PipelineReader.keyed`): that digest alone is taken.
    public static func load(_ path: String, for reader: PipelineReader? = nil, destinations visit: ((Destination) -> Void)? = nil) throws -> Pipeline {
        Depfile.noteReading(path)
        let parser = JSONParser()
        let root = try parsed(path, by: parser)
        guard root.isObject else { throw FieldpackError(path: path, line: 1, "pipeline must be a JSON object") }
        // A key given twice (an edit that added a setting the file already had): which value
        // counts is not something to guess, and simdjson would have taken the first silently.
        // Comments are exempt, and so is whatever a comment holds: `"_"` twice is the usual way
        // to comment JSON.
        var duplicates = DuplicateKeys()
        let isComment = { (path: String) in
            path.split(separator: ".").contains { PipelineKeys.isComment(String($0.prefix { $0 != "[" })) }
        }
        if let twice = duplicates.find(in: root).first(where: { !isComment($0.path) }) {
            throw FieldpackError(path: path, "\"\(twice.path)\" is given \(twice.count) times: give each key once")
        }
        try PipelineKeys.refuseUnknown(in: root, known: keys, place: "", kind: "a pipeline key", path: path)
        guard let name = root["name"]?.string else { throw FieldpackError(path: path, "pipeline needs a string \"name\"") }
        guard isValidName(name) else {
            throw FieldpackError(path: path, "pipeline name \"\(name)\" \(nameRule)")
        }
        func strings(_ key: StaticString) throws -> [String] {
            guard let value = root[key], !value.isNull else { return [] }
            if let single = value.string { return [single] }
            guard value.isArray else { throw FieldpackError(path: path, "\"\(key)\" must be a string or an array of strings") }
            return try value.elements.map {
                guard let text = $0.string else { throw FieldpackError(path: path, "\"\(key)\" must hold only strings") }
                return text
            }
        }
        let inat = try strings("inat")
        if inat.isEmpty { throw FieldpackError(path: path, "pipeline needs \"inat\": paths, folders or globs of iNaturalist dumps") }
        let shipping = try ShippingPolicy.read(root, path: path)
        var maxRejectRate: Double? = nil
        if let value = root["max_reject_rate"], !value.isNull {
            guard let rate = value.double, (0...1).contains(rate) else {
                throw FieldpackError(path: path, "\"max_reject_rate\" must be a number between 0 and 1")
            }
            maxRejectRate = rate
        }
        var openDataDate: Int64? = nil
        if let value = root["open_data_date"], !value.isNull {
            guard let text = value.string else {
                throw FieldpackError(path: path, "\"open_data_date\" must be a date YYYY-MM-DD (the open-data export's date)")
            }
            guard let date = Timestamp.day(text) else {
                throw FieldpackError(path: path, "\"open_data_date\" \(Timestamp.dayProblem(text))")
            }
            openDataDate = date
        }
        var destinations: [Destination] = []
        var destinationIDs = Set<String>()  // a list scan per destination was quadratic: minutes at 100k
        if let list = root["destinations"], !list.isNull {
            guard list.isArray else { throw FieldpackError(path: path, "\"destinations\" must be an array") }
            for (index, element) in list.elements.enumerated() {
                if element.isObject {
                    try PipelineKeys.refuseUnknown(
                        in: element, known: Destination.keys, place: "destinations[\(index)]", kind: "a destination's key", path: path)
                }
                guard let id = element["id"]?.string, !id.isEmpty, let name = element["name"]?.string else {
                    throw FieldpackError(path: path, "destinations[\(index)] needs an \"id\" and a \"name\"")
                }
                let wikipedia = element["wikipedia"]?.string
                let wikidata = element["wikidata"]?.string
                guard wikipedia != nil || wikidata != nil else {
                    throw FieldpackError(path: path, "destinations[\(index)] needs a \"wikipedia\" title or a \"wikidata\" QID")
                }
                // Both named two pages when they disagreed: the destination linked one, and the
                // other shipped with nothing linking it.
                guard wikipedia == nil || wikidata == nil else {
                    throw FieldpackError(
                        path: path,
                        "destinations[\(index)] gives both a \"wikipedia\" title and a \"wikidata\" QID: give one (the QID names the page whatever its title)")
                }
                if let wikidata, !(wikidata.hasPrefix("Q") && wikidata.dropFirst().allSatisfy(\.isNumber) && wikidata.count > 1) {
                    throw FieldpackError(path: path, "destinations[\(index)].wikidata \"\(wikidata)\" is not a QID like Q42")
                }
                if !destinationIDs.insert(id).inserted {
                    throw FieldpackError(path: path, "destinations[\(index)]: id \"\(id)\" is used twice")
                }
                let destination = Destination(id: id, name: name, wikipedia: wikipedia, wikidata: wikidata)
                if let visit { visit(destination) } else { destinations.append(destination) }
            }
        }
        var rules = BlurbRules()
        for section in try strings("wikipedia_skip_sections") { rules.skippedSections.insert(section.lowercased()) }
        if let value = root["wikipedia_summary_length"], !value.isNull {
            guard let length = value.int64, length >= 40 else {
                throw FieldpackError(path: path, "\"wikipedia_summary_length\" must be an integer of at least 40")
            }
            rules.summaryLength = Int(length)
        }
        var language = "en"
        if let value = root["wikipedia_language"], !value.isNull {
            guard let code = value.string, Self.isWikipediaLanguage(code) else {
                throw FieldpackError(
                    path: path,
                    "\"wikipedia_language\" \(value.string.map { "\"\($0)\"" } ?? "is not a string"): give the code of a Wikipedia as in its "
                        + "address, in lower case (en, de, pt, zh-yue, be-tarask, simple)")
            }
            language = code
        }
        rules.language = language
        var pipeline = Pipeline(
            name: name, inat: inat, wikipedia: try strings("wikipedia"), destinations: destinations,
            wikipediaLanguage: language, blurbRules: rules, shipping: shipping,
            maxRejectRate: maxRejectRate, openDataDate: openDataDate, path: path)
        if let select = root["select"], !select.isNull { pipeline.selection = try Selection.read(select, pipelinePath: path) }
        if let reader { pipeline.readBy = (reader, reader.digest(of: root)) }
        if let value = root["repeat_filter_bytes"], !value.isNull {
            guard let bytes = value.int64, bytes >= 1 << 20, bytes <= 1 << 34 else {
                throw FieldpackError(path: path, "\"repeat_filter_bytes\" must be a whole number of bytes from 1048576 (1 MiB) to 17179869184 (16 GiB)")
            }
            pipeline.repeatFilterBytes = Int(bytes)
        }
        return pipeline
    }

    /// Whether an input entry (or a part of its path) is a shell glob pattern, as
    /// `FileSystem.glob` reads one: it holds `*`, `?` or `[`.
    static func isPattern(_ text: some StringProtocol) -> Bool {
        text.contains(where: { "*?[".contains($0) })
    }

    /// What a pipeline name may hold, as the error messages say it.
    public static let nameRule = "must be letters, digits, '.', '-' or '_' (it names build/<name>/)"

    /// Whether `name` can name a pipeline: ASCII letters, digits, `.`, `-`, `_`, not empty and
    /// not starting with `.` (it becomes a folder name and a make target).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && name.utf8.allSatisfy {
            ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
    }

    /// Whether `code` is written as a Wikipedia's language code is: its address's first label, in
    /// lower case; two or three letters, then any hyphenated parts of letters (`zh-yue`,
    /// `be-tarask`, `zh-min-nan`, `be-x-old`), or `simple`. "EN" or "english" would match no dump
    /// line and give a guide without articles.
    static func isWikipediaLanguage(_ code: String) -> Bool {
        if code == "simple" { return true }
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.utf8.count) else { return false }
        return parts.enumerated().allSatisfy { index, part in
            (index == 0 || (1...9).contains(part.utf8.count)) && part.utf8.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
        }
    }

    /// The iNaturalist input files, in a stable order, and the folders they were found in.
    ///
    /// Folders are walked recursively in sorted (byte) order; hidden files and notes
    /// (`*.md`, `*.txt`) are skipped. A pattern or path that matches nothing is an error.
    public func resolveINatInputs() throws -> (files: [String], folders: [String], walked: [String]) {
        try Self.resolve(inat, key: "inat", pipelinePath: path)
    }

    /// The Wikipedia input files and the folders they were found in, like `resolveINatInputs`.
    public func resolveWikipediaInputs() throws -> (files: [String], folders: [String], walked: [String]) {
        try Self.resolve(wikipedia, key: "wikipedia", pipelinePath: path)
    }

    /// Whether `folder` is make's build folder of a pipeline (`BUILD/<name>/`, which records the
    /// pipeline it was built from in `.pipeline`), left out of a walk for inputs.
    static func isBuildFolder(_ folder: String) -> Bool {
        FileSystem.isRegularFile("\(folder)/.pipeline")
    }

    /// Whether `path` is a pipeline's build folder or inside one, below `root` (`isBuildFolder`
    /// of it or of a folder between it and `root`; `root` and above are not asked: a glob may
    /// name a build folder in its fixed part on purpose, as a plain path may).
    static func isInBuildFolder(_ path: String, below root: String) -> Bool {
        var folder = path
        while folder.count > root.count, folder.hasPrefix(root) {
            if isBuildFolder(folder) { return true }
            guard let slash = folder.lastIndex(of: "/") else { return false }
            folder = String(folder[..<slash])
        }
        return false
    }

    /// Refuses an output that a walk of `folders` (the input folders a run walked, its
    /// subfolders included: `resolve`'s `walked`, not a glob's folders, which are only watched)
    /// would read as an input next time: a file not hidden, nor `*.md` or `*.txt`, in one of
    /// them or in a folder a stage will make below one. The first run wrote it and passed; the next read it as a dump, or refused to write
    /// over its own input. (A pipeline's build folder inside an input folder is never walked.)
    ///
    /// - Throws: naming the output and the folder.
    public static func refuseOutputsInWalkedFolders(_ outputs: [String?], folders: [String]) throws {
        let walked = folders.compactMap { folder in FileSystem.resolvedPath(folder).map { (folder, $0) } }
        for output in outputs.compactMap({ $0 }) {
            let name = fileName(of: output)
            if !WalkedNames.isRead(name) { continue }
            guard let place = FileSystem.placeOfFolder(directory(of: output)) else { continue }
            for (folder, real) in walked {
                var read = place == real
                if !read, place.hasPrefix(real == "/" ? "/" : real + "/") {
                    // Below it, in folders not made yet (an existing one would be walked, and
                    // then among `folders`, unless hidden or a build folder): read unless hidden.
                    let below = place.dropFirst(real == "/" ? 1 : real.count + 1).split(separator: "/")
                    read = !FileSystem.exists("\(real == "/" ? "" : real)/\(below[0])") && !below.contains { $0.hasPrefix(".") }
                }
                if read {
                    throw FieldpackError(
                        path: output,
                        "is inside the input folder \(folder), which this run reads: the next run would read it as an input; name an output outside it")
                }
            }
        }
    }

    /// Folders are walked for inputs without entering a pipeline's build folder
    /// (`isBuildFolder`).
    /// - Parameter key: the pipeline key the entries come from, which an error names first.
    ///
    /// - Returns: the files; the folders a depfile names (those walked, a glob's fixed part and
    ///   its matches' folders); and the folders walked alone, whose every file is read.
    public static func resolve(_ entries: [String], key: String? = nil, pipelinePath: String) throws -> (files: [String], folders: [String], walked: [String]) {
        let place = key.map { "\($0): " } ?? ""
        var files: [String] = []
        var folders: [String] = []
        var walked: [String] = []
        // The folders being walked, by device and inode: a link back to one of them is a loop,
        // which was walked 40 levels deep (every level the whole tree again) before ELOOP.
        var walking: [(device: UInt64, inode: UInt64, path: String)] = []
        // The first entry that gave no input file.
        var givesNothing: String? = nil
        func walk(_ folder: String) throws {
            var entered = false
            if let identity = FileIdentity(path: folder) {
                if let ancestor = walking.first(where: { $0.device == identity.device && $0.inode == identity.inode }) {
                    throw FieldpackError(
                        path: pipelinePath,
                        "\(place)\"\(folder)\" leads back to \"\(ancestor.path)\", which holds it: a loop of links (remove the link, or name the folders it should read)")
                }
                walking.append((identity.device, identity.inode, folder))
                entered = true
            }
            defer { if entered { walking.removeLast() } }
            folders.append(folder)
            walked.append(folder)
            // A name that is not UTF-8 only matters when it is read: not a hidden file, nor a note.
            for name in try FileSystem.list(folder, refusingUndecodable: WalkedNames.isRead) where !name.hasPrefix(".") {
                let child = folder.hasSuffix("/") ? folder + name : "\(folder)/\(name)"
                if FileSystem.isDirectory(child) {
                    // A build of a pipeline inside an input folder (BUILD=dumps/build) holds
                    // the stages' outputs, not inputs: read as dumps, they were read twice, and
                    // the next build refused to write over its own inputs.
                    if isBuildFolder(child) { continue }
                    try walk(child)
                } else if FileSystem.isSpecialFile(child) {
                    // Opened as an input, a named pipe nobody writes to hung the stage, silent.
                    throw FieldpackError(
                        path: pipelinePath,
                        "\(place)\"\(child)\" is a named pipe, socket or device, not a file: a folder's inputs must be files (give such an input by its own path)")
                } else if WalkedNames.isRead(name) {
                    files.append(child)
                }
            }
        }
        for entry in entries.map(lexicallyNormal) {
            let before = files.count
            defer {
                // Checked after the entry, by the files it gave (a `throw` below wins: the
                // `defer` sees its count unchanged and must not hide it, so it only records).
                if files.count == before { givesNothing = givesNothing ?? entry }
            }
            if isPattern(entry) {
                // Nothing under a pipeline's build folder (`dumps/*/*/page.json` with
                // BUILD=dumps/build): read as inputs or watched, its outputs rebuilt everything.
                let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
                let wild = parts.firstIndex(where: isPattern) ?? parts.count
                let fixed = parts[..<wild].joined(separator: "/")
                let matches = try FileSystem.glob(entry, pipelinePath: pipelinePath, place: place).filter { !isInBuildFolder($0, below: fixed) }
                // The folders whose listings decide what it matches, for the depfiles: its part
                // before the first wildcard, every folder the parts after it match on the way
                // down (`dumps/*` of `dumps/*/page.json`, also one that holds no page yet), and
                // each matched file's folder, so that a file added there (or removed, or
                // renamed) rebuilds what read the matches.
                if wild < parts.count {
                    // Each folder the pattern goes down into, and whether the part after it is
                    // matched in its listing (a wildcard) or only looked up (a name).
                    var levels = [(folder: fixed.isEmpty ? (entry.hasPrefix("/") ? "/" : ".") : fixed, listed: true)]
                    for end in (wild + 1)..<parts.count {
                        let prefix = parts[..<end].joined(separator: "/")
                        levels += try FileSystem.glob(prefix, pipelinePath: pipelinePath, place: place)
                            .filter { FileSystem.isDirectory($0) && !isInBuildFolder($0, below: fixed) }
                            .map { ($0, isPattern(parts[end])) }
                    }
                    // One this user may not list or enter where the pattern needs to: glob passes
                    // over it in silence when the part after it is a name (`dumps/*/page.json`
                    // looks `page.json` up), and its dumps were left out. (Its fixed part not
                    // there is the pattern matching nothing, below.)
                    for level in levels
                    where faccessat(AT_FDCWD, level.folder, level.listed ? R_OK | X_OK : X_OK, AT_EACCESS) != 0 && errno != ENOENT && errno != ENOTDIR {
                        throw FieldpackError(
                            path: pipelinePath,
                            "\(place)\"\(entry)\": cannot \(level.listed ? "read" : "enter") the folder \"\(level.folder)\": \(String(cString: strerror(errno)))")
                    }
                    folders += levels.map(\.folder)
                }
                if matches.isEmpty { throw FieldpackError(path: pipelinePath, "\(place)\"\(entry)\" matches no files") }
                for match in matches where !FileSystem.isDirectory(match) { folders.append(directory(of: match)) }
                for match in matches {
                    if FileSystem.isDirectory(match) { try walk(match) } else { files.append(match) }
                }
            } else if FileSystem.isDirectory(entry) {
                try walk(entry)
            } else if FileSystem.exists(entry) {
                files.append(entry)
            } else {
                throw FieldpackError(path: pipelinePath, "\(place)input \"\(entry)\" does not exist")
            }
        }
        // An entry that gave no file (an empty folder: a failed download, a mount point not
        // mounted; a glob matching only such folders) was read as nothing, and the build went on
        // without it: for wikipedia, a guide with no articles, published.
        if let entry = givesNothing {
            let glob = isPattern(entry)
            // Named as the error's path when it is one (a folder given on the command line).
            let what = entry == lexicallyNormal(pipelinePath) ? (glob ? "the pattern" : "the folder") : "\(place)\"\(entry)\""
            throw FieldpackError(
                path: pipelinePath, "\(what) \(glob ? "matches" : "holds") no input files (hidden files, *.md and *.txt are skipped)")
        }
        var seen = Set<String>()
        files = files.filter { seen.insert($0).inserted }
        var seenFolders = Set<String>()
        folders = folders.filter { seenFolders.insert($0).inserted }
        return (files, folders, walked)
    }
}
