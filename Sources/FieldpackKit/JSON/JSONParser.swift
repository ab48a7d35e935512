import CSimdJSON

/// A simdjson DOM parser. Values it returns stay valid until its next `parse`.
///
/// Not thread-safe: use one parser per thread.
public final class JSONParser {
    private var handle: OpaquePointer
    /// The bytes of the last successful parse (where they start, how many), to tell whether
    /// `structurals(of:)` describes a caller's document or a copy of it.
    private var lastParsed: (start: UnsafeRawPointer, count: Int)? = nil

    public init() {
        handle = Self.newHandle()
    }

    private static func newHandle() -> OpaquePointer {
        guard let handle = fp_json_parser_create() else { fatalError("simdjson parser allocation failed") }
        return handle
    }

    /// Gives back the memory a large document grew the parser's buffers to (simdjson keeps them
    /// for the next parse). Values it returned become invalid, as after a parse.
    public func releaseCapacity() {
        lastParsed = nil
        fp_json_parser_destroy(handle)
        handle = Self.newHandle()
    }

    deinit { fp_json_parser_destroy(handle) }

    /// Parses `bytes`, which must be followed by `JSONParser.padding` readable bytes.
    ///
    /// - Throws: `JSONSyntaxError` with simdjson's reason.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws -> JSONValue {
        var root = fp_json_value()
        guard let base = bytes.baseAddress else { throw JSONSyntaxError(message: "empty document") }
        lastParsed = nil
        let code = fp_json_parse(handle, base.assumingMemoryBound(to: CChar.self), bytes.count, &root)
        if code != 0 { throw JSONSyntaxError(message: String(cString: fp_json_error_message(code))) }
        lastParsed = (UnsafeRawPointer(base), bytes.count)
        return JSONValue(raw: root)
    }

    /// Where simdjson's first stage found the structural characters of `bytes` (`{}[]:,` and
    /// the first byte of every scalar, in order), if `bytes` start where and are as long as what
    /// this parser last parsed; nil otherwise (another document, or a copy such as
    /// `parseQuotingNonFinite`'s). Only the place is checked, not the content: the positions
    /// describe `bytes` only if they are unchanged since that parse. Valid until the next parse.
    public func structurals(of bytes: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt32>? {
        guard let lastParsed, let base = bytes.baseAddress, lastParsed.start == UnsafeRawPointer(base),
              lastParsed.count == bytes.count else { return nil }
        var count = 0
        guard let positions = fp_json_structurals(handle, &count) else { return nil }
        return UnsafeBufferPointer(start: positions, count: count)
    }

    /// Parses a padded buffer's content.
    public func parse(_ buffer: PaddedBuffer) throws -> JSONValue {
        try parse(buffer.bytes)
    }

    public static let padding = Int(FP_JSON_PADDING)

    /// "simdjson 3.0.1 (haswell)".
    public static var versionDescription: String {
        "simdjson \(String(cString: fp_json_version())) (\(String(cString: fp_json_implementation())))"
    }
}

/// Why a document is not JSON.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}

/// Bytes with the padding simdjson needs after them; grows as needed.
public final class PaddedBuffer {
    // Read for every line the line reader returns: unchecked at run time, like `ByteBuffer`'s
    // storage (callgrind: the checks were 5% of dedupe). Nothing takes an `inout` to them.
    @exclusivity(unchecked) public private(set) var storage: UnsafeMutableRawPointer
    @exclusivity(unchecked) public private(set) var capacity: Int
    @exclusivity(unchecked) public var count = 0

    // Only the padding past the capacity is zeroed: simdjson reads up to `padding` bytes past a
    // document's end, whatever they hold, and nothing reads past `count` otherwise. Zeroing the
    // whole buffer cost a memset and a page fault per page for every input file (3.7% of a
    // parse-only run over 5,000 pages, each with a reader of its own). Valgrind's memcheck (or
    // MSan) may report simdjson's reads of those uninitialized padding-side bytes: they are
    // read, never used.
    public init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity + JSONParser.padding, alignment: 64)
        (storage + capacity).initializeMemory(as: UInt8.self, repeating: 0, count: JSONParser.padding)
    }

    /// A padded copy of `bytes`.
    public convenience init(copying bytes: [UInt8]) {
        self.init(capacity: max(1, bytes.count))
        bytes.withUnsafeBytes { if !$0.isEmpty { storage.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
        count = bytes.count
    }

    deinit { storage.deallocate() }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: count) }

    /// Makes room for at least `needed` bytes in total, keeping the content.
    public func reserve(_ needed: Int) {
        if needed <= capacity { return }
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        replaceStorage(capacity: newCapacity, keeping: 0..<count)
    }

    /// Gives back the memory the buffer grew to past `limit` bytes, keeping the bytes of `range`
    /// (moved to the start; the buffer keeps room for them if they are more).
    public func shrink(toAtMost limit: Int, keeping range: Range<Int>) {
        let newCapacity = max(limit, range.count, 1)
        guard newCapacity < capacity else { return }
        replaceStorage(capacity: newCapacity, keeping: range)
    }

    private func replaceStorage(capacity newCapacity: Int, keeping range: Range<Int>) {
        let newStorage = UnsafeMutableRawPointer.allocate(byteCount: newCapacity + JSONParser.padding, alignment: 64)
        (newStorage + newCapacity).initializeMemory(as: UInt8.self, repeating: 0, count: JSONParser.padding)
        newStorage.copyMemory(from: storage + range.lowerBound, byteCount: range.count)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
        count = range.count
    }
}

extension JSONParser {
    /// Parses one line of a JSON Lines file; a syntax error names the file and line.
    func parse(_ line: LineReader.Line, in path: String) throws -> JSONValue {
        do {
            return try parse(line.bytes)
        } catch let error as JSONSyntaxError {
            throw FieldpackError(path: path, line: line.number, "not JSON: \(error.message)")
        }
    }
}
