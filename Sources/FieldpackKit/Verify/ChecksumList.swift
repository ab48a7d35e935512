/// A checksum file in `sha256sum` format (`<64 hex digits>  <path>` per line, as fieldpack writes
/// it), read as RFC 8493 allows a bag's: the flat bundle's `manifest-sha256.txt`, and a bag's
/// payload and tag manifests.
public enum ChecksumList {
    /// Why `read` gave nil for a file that is there: the system's reason, for a regular file that
    /// cannot be read; nil when it is missing or not a regular file (which the checks of the file
    /// set say).
    static func unreadableReason(_ path: String) -> String? {
        guard FileSystem.isRegularFile(path) else { return nil }
        do {
            _ = try ReadableFile.contents(ofRegular: path)
            return nil
        } catch {
            return BundleVerifier.unreadable(error)
        }
    }

    /// The digest listed for each path, or nil when the file is missing or unreadable
    /// (`unreadableReason` says which). A line that is not a checksum line is a problem naming
    /// the file and line.
    static func read(_ path: String, problems: inout [String]) -> [String: String]? {
        // Only a regular file is read (a FIFO would block the open); the caller says what else it is.
        guard let text = try? ReadableFile.contents(ofRegular: path) else { return nil }
        func isHex(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte) }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var listed: [String: String] = [:]
        // By bytes: as a Swift String, "\r\n" is one Character and would not split at "\n".
        for (number, rawLine) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            // RFC 8493: the checksum, then whitespace, then the path; `sha256sum` writes two
            // spaces, or ` *` in binary mode, and either case of hex; a CRLF file ends lines so.
            let line = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            if line.isEmpty { continue }
            let digest = line.prefix { !isBlank($0) }
            var rest = line.dropFirst(digest.count)
            let separator = rest.prefix(while: isBlank)
            rest = rest.dropFirst(separator.count)
            if separator.count == 1 && rest.first == UInt8(ascii: "*") { rest = rest.dropFirst() }
            guard digest.count == 64, digest.allSatisfy(isHex), !separator.isEmpty, !rest.isEmpty else {
                problems.append("\(path):\(number + 1): error: not a checksum line (64 hex digits, whitespace, a path)")
                continue
            }
            let name = String(decoding: rest, as: UTF8.self)
            // The bytes of bundle names only (and `/`: a bag's `data/NAME`, whose shape the bag's
            // check judges): as Swift strings, a name only canonically equivalent to another (a
            // KELVIN SIGN for a K) would be taken for it, where `sha256sum -c` opens another file.
            guard rest.allSatisfy({ Manifest.isPortableByte($0) || $0 == UInt8(ascii: "/") }) else {
                problems.append("\(path):\(number + 1): error: lists \"\(name)\", not a bundle file name (\(Manifest.portableNames))")
                continue
            }
            if listed[name] != nil { problems.append("\(path):\(number + 1): error: lists \(name) twice") }
            listed[name] = String(decoding: digest, as: UTF8.self).lowercased()
        }
        return listed
    }

    /// A line of `sha256sum`'s output for the file `name`: a name holding a backslash, a line
    /// feed or a carriage return is written escaped (`\\`, `\n`, `\r`) after a leading
    /// backslash, as GNU sha256sum writes it, so that `sha256sum -c` reads the line back.
    public static func line(digest: String, name: String) -> String {
        guard name.utf8.contains(where: { $0 == 0x5C || $0 == 0x0A || $0 == 0x0D }) else { return "\(digest)  \(name)" }
        var escaped = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\\\(digest)  \(escaped)"
    }
}
