#if canImport(Glibc)
import Glibc
#endif

/// What ingest reads of a plain export table when the plan kept a unit's rows
/// (`FileIngest.ingestOpenDataRows`): a quiet row whose key turns out to repeat, read again by
/// its place, and the table's last line, which must end as every line of the export does.
extension OpenDataRow {
    /// The row whose line starts at `offset` of the table `file` and is numbered `line`, read
    /// again into `buffer`: its bytes as `rowBytes` gives them.
    ///
    /// - Throws: `changed` when no line starts there, the line is no row, or it is not a row of
    ///   `key` (the table changed since the plan read it); when the line is longer than
    ///   `maxLineBytes`, as a reading of the table would; when the table cannot be read.
    func reread(
        at offset: Int, line: Int, key: UInt64, from file: ReadableFile, into buffer: PaddedBuffer, maxLineBytes: Int,
        changed: @autoclosure () -> FieldpackError
    ) throws -> UnsafeRawBufferPointer {
        // From the byte before the line, which ends the line before it.
        let start = max(0, offset - 1)
        let skip = offset - start
        buffer.count = 0
        while true {
            let room = buffer.capacity - buffer.count
            let got = try file.read(
                at: start + buffer.count, count: room, into: UnsafeMutableRawBufferPointer(start: buffer.storage + buffer.count, count: room))
            let searched = max(buffer.count, skip)
            buffer.count += got
            if skip == 1 && buffer.count > 0 && buffer.storage.load(as: UInt8.self) != 0x0A { throw changed() }
            if buffer.count > searched, let newline = memchr(buffer.storage + searched, 0x0A, buffer.count - searched) {
                var row = UnsafeRawBufferPointer(start: buffer.storage + skip, count: UnsafeMutableRawPointer(newline) - buffer.storage - skip)
                if row.last == 0x0D { row = UnsafeRawBufferPointer(rebasing: row.dropLast()) }
                guard !row.isEmpty, self.key(of: row) == key else { throw changed() }
                return row
            }
            // The table ends before the line does: not the plan's table (its last line, if cut,
            // was refused before).
            if got < room { throw changed() }
            if buffer.capacity >= maxLineBytes { throw FieldpackError(path: file.path, "line \(line) is longer than \(maxLineBytes >> 20) MiB") }
            buffer.reserve(buffer.capacity * 2)
        }
    }

    /// Where the last line of the table at `path` starts when it is a row with no line end (a
    /// table cut short, `FileIngest.cutShort`); nil when the table ends in a line end, or its
    /// last line is empty (or `\r`) or its header.
    ///
    /// - Throws: when the table cannot be read, or its last line is longer than `maxLineBytes`.
    static func unterminatedLastLine(of file: ReadableFile, maxLineBytes: Int) throws -> Int? {
        guard let size = FileSystem.size(file.path), size > 0 else { return nil }
        var window = 4096
        while true {
            let from = max(0, size - window)
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: size - from, alignment: 1)
            defer { bytes.deallocate() }
            let got = try file.read(at: from, count: size - from, into: bytes)
            guard got == size - from else { throw FieldpackError(path: file.path, "ended before byte \(size), the size it had moments before") }
            if bytes[got - 1] == 0x0A { return nil }
            if let newline = bytes[..<got].lastIndex(of: 0x0A) {
                let start = from + newline + 1
                return size - start > 1 || bytes[got - 1] != 0x0D ? start : nil
            }
            // No line end at all: the header alone.
            if from == 0 { return nil }
            if window >= maxLineBytes { throw FieldpackError(path: file.path, "its last line is longer than \(maxLineBytes >> 20) MiB") }
            window *= 2
        }
    }
}
