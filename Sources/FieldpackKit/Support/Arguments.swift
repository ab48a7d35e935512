import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A small command-line parser: `--name value`, `--name=value`, `--flag`, `-h` (for `--help`,
/// when that is a flag), and positionals. `-` is a positional (standard input); any other
/// argument starting with one dash is an unknown option (give `./-name` or put it after `--`).
public struct Arguments {
    public private(set) var positional: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// - Parameters:
    ///   - options: names (without `--`) that take a value; they may repeat.
    ///   - flags: names that take none.
    public init(_ arguments: [String], options: Set<String>, flags: Set<String>) throws(UsageError) {
        var index = 0
        var onlyPositional = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositional || !argument.hasPrefix("-") || argument == "-" {
                positional.append(argument)
                continue
            }
            if !argument.hasPrefix("--") {
                guard argument == "-h", flags.contains("help") else { throw UsageError("unknown option \(argument)") }
                self.flags.insert("help")
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String? = nil
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if flags.contains(name) {
                if inlineValue != nil { throw UsageError("--\(name) takes no value") }
                self.flags.insert(name)
            } else if options.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("--\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The stage's progress on standard error, silent with `--quiet`.
    public func progress(stage: String) -> StageProgress {
        StageProgress.standardError(stage: stage, quiet: flag("quiet"))
    }

    /// The last value given for an option.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// The options given a value, by name, sorted: a mode taking only some of a command's
    /// options names the first other one given (`migrate takes only --output`).
    public func givenOptions(except allowed: Set<String>) -> [String] { values.keys.filter { !allowed.contains($0) }.sorted() }

    public func all(_ name: String) -> [String] { values[name] ?? [] }

    public func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError("--\(name) is required") }
        return value
    }

    public func double(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let value = Double(text) else { throw UsageError("--\(name) must be a number, not \"\(text)\"") }
        return value
    }

    /// A share from 0 to 1 (`--max-reject-rate`).
    public func fraction(_ name: String) throws(UsageError) -> Double? {
        guard let value = try double(name) else { return nil }
        guard (0...1).contains(value) else { throw UsageError("--\(name) must be between 0 and 1, not \(value)") }
        return value
    }

    public func int(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let value = Int(text) else { throw UsageError("--\(name) must be an integer, not \"\(text)\"") }
        return value
    }

    /// `int`, which must be at least `minimum` (`--workers 0` and `--examples -1` ran as if
    /// they made sense).
    public func int(_ name: String, atLeast minimum: Int) throws(UsageError) -> Int? {
        guard let value = try int(name) else { return nil }
        guard value >= minimum else { throw UsageError("--\(name) must be at least \(minimum), not \(value)") }
        return value
    }

    /// Refuses, before anything is written, a run whose outputs (the values of the options
    /// `names`, and `extra`) name one of its inputs or one file twice (`FileSystem.refuseOutputs`):
    /// `inputs`, and the pipeline file when `--pipeline` gives one. A depfile or a stamp is an
    /// output like the others: one named like an input replaced it before the input was read.
    public func refuseOutputs(_ names: [String], extra: [String] = [], overwriting inputs: [String], insideFolders folders: [String] = []) throws {
        try FileSystem.refuseOutputs(
            names.map { value($0) } + extra, overwriting: inputs + (value("pipeline").map { [$0] } ?? []), insideFolders: folders)
    }
}

/// The contract every `fieldpack-*` executable shares: `--help` (exit 0), success (0), failure
/// (1, `path:line: error: …` on stderr), bad usage (64, with the usage line), and `--quiet`
/// (no progress line; see `progress(stage:)`).
public struct StageCommand {
    public var name: String
    public var usage: String
    public var help: String
    public var options: Set<String>
    public var flags: Set<String>

    /// glibc's mmap threshold for every stage (twice its starting value, 128 KiB, which it then raises).
    public static let mmapThreshold: Int32 = 256 << 10

    public init(name: String, usage: String, help: String, options: Set<String>, flags: Set<String> = []) {
        self.name = name
        self.usage = usage
        self.help = help
        self.options = options
        self.flags = flags.union(["help", "version", "quiet"])
    }

    public func main(_ body: (Arguments) throws -> Void) -> Never {
        let raw = Array(CommandLine.arguments.dropFirst())
        // Large buffers come from mmap and go back on free, whatever was freed before: memory
        // that does not grow with the number of input files (see `fp_fix_mmap_threshold`).
        _ = fp_fix_mmap_threshold(Self.mmapThreshold)
        Leftovers.removeOnSignals()
        do {
            let arguments = try Arguments(raw, options: options, flags: flags)
            if arguments.flag("help") {
                print("usage: \(usage)\n\n\(help)\n\n-h, --help prints this help; --version prints the version and the libraries it runs on; --quiet draws no progress line.")
                exitOnceWritten()
            }
            if arguments.flag("version") {
                print("\(name) \(ToolVersion.description)")
                exitOnceWritten()
            }
            try body(arguments)
            exitOnceWritten()
        } catch let error as UsageError {
            StandardError.write("\(name): error: \(error.message)\nusage: \(usage)")
            exit(64)
        } catch let error as FieldpackError {
            StandardError.write(error.description)
            exit(1)
        } catch let error as SQLiteError {
            StandardError.write(error.description)  // already `path: error: SQLite …`
            exit(1)
        } catch {
            StandardError.write("\(name): error: \(error)")
            exit(1)
        }
    }

    /// Exits 0 once what the run printed has reached standard output: a write there that failed
    /// (a full disk, a closed descriptor) is an error, exit 1, where `fieldpack-pipeline init >
    /// p.json` on a full disk and `--print-name`, which the Makefile names the build folder by,
    /// said success with nothing written.
    private func exitOnceWritten() -> Never {
        if fp_flush_standard_output() != 0 {
            StandardError.write("\(name): error: cannot write to standard output: \(systemError())")
            exit(1)
        }
        exit(0)
    }
}
