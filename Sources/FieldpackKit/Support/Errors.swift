/// A failure a person can act on: where it happened and why.
///
/// Failures stop a stage (exit 1). Bad records are not failures but findings (see `Finding`).
public struct FieldpackError: Error, CustomStringConvertible, Sendable {
    /// The file the failure is about, if any.
    public var path: String?
    /// The 1-based line in `path`, if known.
    public var line: Int?
    /// The 1-based column in `line`, in characters, if known.
    public var column: Int?
    public var message: String

    public init(path: String? = nil, line: Int? = nil, column: Int? = nil, _ message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    /// `path:line:column: error: message`, the way compilers print.
    public var description: String {
        var prefix = ""
        if let path {
            prefix = path
            if let line { prefix += ":\(line)" }
            if line != nil, let column { prefix += ":\(column)" }
            prefix += ": "
        }
        return "\(prefix)error: \(message)"
    }
}

/// A stream that is damaged (corrupt or truncated compressed data, a gzip member whose CRC or
/// length check fails), as opposed to a file that cannot be read (a read error is a
/// `FieldpackError` and stops the stage). Every intact byte before the damage was returned.
public struct StreamDamage: Error, Sendable {
    public var error: FieldpackError
    /// When a gzip member's trailer check failed: that member's bytes in the decompressed
    /// stream. Its records cannot be trusted and are rejected.
    public var failedMember: Range<Int>?

    public init(_ error: FieldpackError, failedMember: Range<Int>? = nil) {
        self.error = error
        self.failedMember = failedMember
    }

    public var message: String { error.message }
}

extension FieldpackError {
    /// An error about the record at byte `offset` of the file at `path`, named by its line as
    /// every other error is (`path:line: error:`); the line is counted only now, on the way out.
    static func atByte(_ offset: Int, of path: String, _ message: String) -> FieldpackError {
        FieldpackError(path: path, line: FileSystem.lineNumber(ofByte: offset, in: path), "\(message) (byte \(offset))")
    }
}

extension StreamDamage: CustomStringConvertible {
    /// As its error prints (`path: error: message`): a damaged archive refused whole printed
    /// as a Swift value dump.
    public var description: String { error.description }
}

/// Bad command-line usage: the stage prints its usage line and exits 64.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A problem with one input record or one input file: counted, written to the rejects file, and
/// the run goes on. Its `outcome` is the one place the rejected/salvaged distinction is made.
public struct Finding: Sendable, Equatable {
    /// What a finding did to its record.
    public enum Outcome: String, Sendable, Equatable {
        /// The record was dropped: it has no identity (no usable integer id), or it could not be
        /// read at all. Only these count against `--max-reject-rate`.
        case rejected
        /// One part of the record (a field, a photo, its user, its taxon) was unusable and was
        /// dropped; the record was kept with the rest.
        case salvaged
        /// About the input as a whole (empty, damaged after its last complete record); no record
        /// is counted.
        case notice
    }

    public var path: String
    /// 1-based line of the record's start, when known.
    public var line: Int?
    /// 0-based byte offset of the record's start, when known.
    public var offset: Int?
    /// Where the record sits inside its document, e.g. `results[3]`.
    public var record: String?
    /// The JSON path of the dropped part inside the record (`photos[0].id`), when it is a part.
    public var field: String?
    public var outcome: Outcome
    public var reason: String

    public init(
        path: String, line: Int? = nil, offset: Int? = nil, record: String? = nil, field: String? = nil,
        outcome: Outcome = .rejected, reason: String
    ) {
        self.path = path
        self.line = line
        self.offset = offset
        self.record = record
        self.field = field
        self.outcome = outcome
        self.reason = reason
    }

    /// The part's JSON path from the document's root: `results[3].photos[0].id`, or the record's
    /// own location when the finding is about the whole record.
    public var jsonPath: String? {
        switch (record, field) {
        case (let record?, let field?) where !field.isEmpty: return field.hasPrefix("[") ? record + field : "\(record).\(field)"
        case (let record?, _): return record
        case (nil, let field?) where !field.isEmpty: return field
        default: return nil
        }
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

extension Finding {
    /// The finding as one line of ingest's rejects file:
    /// `{"file","line","offset","record","path","outcome","reason"}`.
    func encodeRejectsLine(into writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("file"); writer.string(path)
        writer.key("line"); writer.int(line.map(Int64.init))
        writer.key("offset"); writer.int(offset.map(Int64.init))
        writer.key("record"); writer.string(record)
        writer.key("path"); writer.string(jsonPath)
        writer.key("outcome"); writer.string(outcome.rawValue)
        writer.key("reason"); writer.string(reason)
        writer.endObject()
        writer.newline()
    }
}
