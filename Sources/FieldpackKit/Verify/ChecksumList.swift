/// A checksum file in `sha256sum` format (`<64 hex digits>  <path>` per line): the flat bundle's
/// `manifest-sha256.txt`, and a bag's payload and tag manifests.
enum ChecksumList {
    /// The digest listed for each path, or nil when the file is missing or unreadable. A line
    /// that is not a `sha256sum` line is a problem naming the file and line.
    static func read(_ path: String, problems: inout [String]) -> [String: String]? {
        // Only a regular file is read (a FIFO would block the open); the caller says what else it is.
        guard let text = try? ReadableFile.contents(ofRegular: path) else { return nil }
        var listed: [String: String] = [:]
        for (number, line) in String(decoding: text, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 64, parts[1].hasPrefix(" ") else {
                problems.append("\(path):\(number + 1): error: not a `sha256sum` line")
                continue
            }
            let name = String(parts[1].dropFirst())
            if listed[name] != nil { problems.append("\(path):\(number + 1): error: lists \(name) twice") }
            listed[name] = String(parts[0])
        }
        return listed
    }
}
