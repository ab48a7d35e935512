import CISAL

/// Inflates gzip data (including several concatenated members) from another source, with ISA-L's
/// igzip, which parses each member's header and checks its trailer (CRC-32 and length).
///
/// It replaced zlib (2026-12-05): ingest of the benchmark's 1M export as `.csv.gz` tables spent
/// 62% of its CPU in zlib's inflate. Damage is told as before, after every intact byte before
/// it: a member whose check fails is a `StreamDamage` with its `failedMember` range, and reading
/// goes on with the next member; a stream that ends inside a member is truncated; bytes after a
/// member that do not start another, and anything else that is not gzip, are corrupt, and end
/// the stream.
public final class GzipSource: ByteSource {
    private let source: RawFileSource
    /// igzip's state (87 KB, with its Huffman tables and its own output buffer) and the header
    /// of the member being read: on the heap, allocated once, freed with the source.
    private let state: UnsafeMutablePointer<inflate_state>
    private let header: UnsafeMutablePointer<isal_gzip_header>
    private var input: [UInt8]
    /// Zero bytes after the last member: only more of them may follow.
    private var inPadding = false
    private var inputStart = 0
    private var inputEnd = 0
    private var ended = false
    private var memberEnded = false
    /// The member's header is being read (`isal_read_gzip_header`, which keeps its place across
    /// calls: `isal_inflate` alone does not when a header is split between two reads).
    private var readingHeader = true
    private var sawInputEnd = false
    private var pendingError: StreamDamage?
    /// Inflated bytes still to give before `pendingError`: what igzip held when it met damage.
    private var pendingOutput: [UInt8] = []
    /// Bytes produced so far, and where the current member's started (decompressed offsets).
    private var produced = 0
    private var memberStart = 0
    /// The last 8 compressed bytes igzip consumed, oldest first in the low bytes: after a member
    /// ends, its trailer (the CRC-32 and the length, little-endian), which tells which check
    /// failed.
    private var lastBytes: UInt64 = 0

    public var name: String? { source.name }

    public init(source: RawFileSource) throws {
        self.source = source
        input = [UInt8](repeating: 0, count: 1 << 18)
        state = UnsafeMutablePointer<inflate_state>.allocate(capacity: 1)
        header = UnsafeMutablePointer<isal_gzip_header>.allocate(capacity: 1)
        isal_inflate_init(state)
        state.pointee.crc_flag = UInt32(ISAL_GZIP)
        isal_gzip_header_init(header)
    }

    deinit {
        state.deallocate()
        header.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !pendingOutput.isEmpty { return pendingOutput.give(into: buffer) }
        if let error = pendingError {
            pendingError = nil
            throw error
        }
        if ended { return 0 }
        while true {
            if inputStart == inputEnd && !sawInputEnd {
                inputEnd = try input.withUnsafeMutableBytes { try source.read(into: $0) }
                inputStart = 0
                if inputEnd == 0 { sawInputEnd = true }
            }
            if memberEnded {
                // Another gzip member may follow the one that ended.
                if inputStart == inputEnd && sawInputEnd {
                    ended = true
                    return 0
                }
                // Zero bytes to the end (a tape's or a disk image's padding) are what `gzip -t`
                // ignores too: the stream ends with its last member, and nothing is lost.
                if input[inputStart] == 0 || inPadding {
                    inPadding = true
                    while inputStart < inputEnd && input[inputStart] == 0 { inputStart += 1 }
                    if inputStart < inputEnd {
                        ended = true
                        throw corrupt("incorrect header check (bytes after the zero padding that ends the last member)")
                    }
                    continue
                }
                if input[inputStart] != 0x1F {
                    ended = true
                    throw corrupt("incorrect header check (bytes after a member that are not gzip)")
                }
                isal_inflate_reset(state)
                state.pointee.crc_flag = UInt32(ISAL_GZIP)
                isal_gzip_header_init(header)
                readingHeader = true
                memberEnded = false
                memberStart = produced
            }
            if inputStart == inputEnd && sawInputEnd {
                // What igzip holds of the member is given before the stream is called truncated.
                let drained = readingHeader ? 0 : inflate(into: buffer).got
                produced += drained
                if drained > 0 { return drained }
                ended = true
                throw StreamDamage(FieldpackError(
                    path: source.file.path,
                    "gzip stream is truncated: it ends after \(source.bytesRead) compressed bytes without its trailer"))
            }
            if readingHeader {
                let status = feeding { isal_read_gzip_header(state, header) }
                switch status {
                case ISAL_DECOMP_OK:
                    readingHeader = false
                    continue  // the data, once there is input for it
                case ISAL_END_INPUT: continue  // more of the header to come, or a truncated stream
                default:
                    ended = true
                    throw corrupt(Self.describe(status, inHeader: true))
                }
            }
            let before = inputStart
            let (got, status) = inflate(into: buffer)
            produced += got
            // A call that took nothing and gave nothing would be called again for ever.
            let stalled = got == 0 && inputStart == before && state.pointee.block_state != ISAL_BLOCK_FINISH
            if status == ISAL_DECOMP_OK && !stalled {
                if state.pointee.block_state == ISAL_BLOCK_FINISH { memberEnded = true }
                if got > 0 { return got }
                continue
            }
            // What igzip inflated but had not copied out is intact: it is given first.
            var held: UnsafePointer<UInt8>? = nil
            let heldCount = fp_isal_pending_output(state, &held)
            if let held, heldCount > 0 { pendingOutput = Array(UnsafeBufferPointer(start: held, count: heldCount)) }
            produced += heldCount
            let damage: StreamDamage
            if status == ISAL_INCORRECT_CHECKSUM {
                // The header was read apart, so this is the trailer's check. igzip has read the
                // whole trailer: the next member starts where it stopped.
                let storedCRC = UInt32(truncatingIfNeeded: lastBytes)
                let storedLength = UInt32(truncatingIfNeeded: lastBytes >> 32)
                let check = storedCRC != state.pointee.crc ? "CRC-32"
                    : storedLength != UInt32(truncatingIfNeeded: produced - memberStart) ? "length" : "CRC-32 or length"
                damage = StreamDamage(FieldpackError(
                    path: source.file.path,
                    "gzip member at decompressed bytes \(memberStart)-\(produced) fails its \(check) check (gzip -t fails)"),
                    failedMember: memberStart..<produced)
                memberEnded = true
            } else {
                ended = true
                damage = corrupt(stalled ? "igzip reads no further" : Self.describe(status, inHeader: false))
            }
            if got == 0 && pendingOutput.isEmpty { throw damage }
            pendingError = damage
            if got == 0 { return try read(into: buffer) }
            return got
        }
    }

    /// One call of `isal_inflate` from the input left into `buffer`: the bytes it gave, and its
    /// status.
    private func inflate(into buffer: UnsafeMutableRawBufferPointer) -> (got: Int, status: Int32) {
        state.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        state.pointee.avail_out = UInt32(clamping: buffer.count)
        let availableOut = Int(state.pointee.avail_out)
        let status = feeding { isal_inflate(state) }
        return (availableOut - Int(state.pointee.avail_out), status)
    }

    /// Gives igzip the input left, runs `call` (which reads it), and moves past the bytes it
    /// consumed, remembering the last of them.
    private func feeding(_ call: () -> Int32) -> Int32 {
        input.withUnsafeMutableBytes { inputBytes in
            let start = inputBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            state.pointee.next_in = start + inputStart
            state.pointee.avail_in = UInt32(inputEnd - inputStart)
            let status = call()
            let consumedTo = inputEnd - Int(state.pointee.avail_in)
            remember(UnsafeRawBufferPointer(start: start + inputStart, count: consumedTo - inputStart))
            inputStart = consumedTo
            return status
        }
    }

    private func corrupt(_ detail: String) -> StreamDamage {
        StreamDamage(FieldpackError(path: source.file.path, "gzip data is corrupt near compressed byte \(consumed): \(detail)"))
    }

    /// How far into the file igzip has read: the bytes read less those it has not taken yet (the
    /// bytes read alone named the end of the last read, often the file's size).
    var consumed: Int { source.bytesRead - (inputEnd - inputStart) }

    /// Keeps the last 8 of the bytes igzip consumed, and of those before them.
    private func remember(_ consumed: UnsafeRawBufferPointer) {
        let tail = consumed.suffix(8)
        for byte in tail { lastBytes = lastBytes >> 8 | UInt64(byte) << 56 }
    }

    /// What igzip's return code means, as zlib's messages said it.
    private static func describe(_ status: Int32, inHeader: Bool) -> String {
        switch status {
        case ISAL_INVALID_WRAPPER: "incorrect header check (not a gzip member)"
        case ISAL_UNSUPPORTED_METHOD: "unknown compression method"
        case ISAL_INCORRECT_CHECKSUM where inHeader: "the gzip header's CRC fails"
        case ISAL_INVALID_BLOCK: "invalid block (its type, a stored block's length or a Huffman table)"
        case ISAL_INVALID_SYMBOL: "invalid code"
        case ISAL_INVALID_LOOKBACK: "invalid distance too far back"
        case ISAL_NEED_DICT: "a preset dictionary is needed"
        default: "igzip error \(status)"
        }
    }
}
