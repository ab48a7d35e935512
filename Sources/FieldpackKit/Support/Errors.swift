/// A failure a person can act on: where it happened and why.
///
/// Failures stop a stage (exit 1). Bad records are not failures but findings (see `Finding`).
public struct FieldpackError: Error, CustomStringConvertible, Sendable {
    /// The file the failure is about, if any.
    public var path: String?
    /// The 1-based line in `path`, if known.
    public var line: Int?
    public var message: String

    public init(path: String? = nil, line: Int? = nil, _ message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    /// `path:line: error: message`, the way compilers print.
    public var description: String {
        var prefix = ""
        if let path {
            prefix = path
            if let line { prefix += ":\(line)" }
            prefix += ": "
        }
        return "\(prefix)error: \(message)"
    }
}

/// Bad command-line usage: the stage prints its usage line and exits 64.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A problem with one input record: counted, written to the rejects file, and the run goes on.
public struct Finding: Sendable, Equatable {
    public var path: String
    /// 1-based line of the record's start, when known.
    public var line: Int?
    /// 0-based byte offset of the record's start, when known.
    public var offset: Int?
    /// Where the record sits inside its document, e.g. `results[3]`.
    public var record: String?
    public var reason: String

    public init(path: String, line: Int? = nil, offset: Int? = nil, record: String? = nil, reason: String) {
        self.path = path
        self.line = line
        self.offset = offset
        self.record = record
        self.reason = reason
    }

    /// `path:line: warning: record: reason`.
    public var diagnostic: String {
        var text = path
        if let line { text += ":\(line)" }
        text += ": warning: "
        if let record { text += "\(record): " }
        return text + reason
    }
}
