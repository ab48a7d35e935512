/// Measured file sizes of some photos' tiers (from a CDN log or a HEAD crawl), named by the
/// pipeline's `costs.measured_sizes`: a CSV with the header `photo_id,tier,bytes`, one line per
/// photo and tier. The bundle stage fits the per-tier download figures to them.
public struct MeasuredSizes: Sendable {
    public let path: String
    /// (photo, tier, bytes), sorted by photo then tier.
    public private(set) var entries: [(photo: Int64, tier: PhotoTier, bytes: Int)] = []

    public init(path: String) throws {
        self.path = path
        Depfile.noteReading(path)
        let reader = LineReader(source: try RawFileSource(path: path))
        var header = true
        // Where each (photo, tier) was given: a second line for one was fitted as another sample
        // (a typo'd duplicate set a tier's figure at six times the default, without a word).
        var lines: [PhotoKey: Int] = [:]
        while let line = try reader.next() {
            var bytes = line.bytes
            // A spreadsheet's byte order mark before the header.
            if header, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(3)) }
            let text = String(Substring(String(decoding: bytes, as: UTF8.self)).trimmingSpaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            if header {
                guard text == "photo_id,tier,bytes" else {
                    throw FieldpackError(path: path, line: line.number, "the header must be photo_id,tier,bytes")
                }
                header = false
                continue
            }
            let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.trimmingSpaces) }
            guard fields.count == 3 else {
                throw FieldpackError(path: path, line: line.number, "expected photo_id,tier,bytes; found \(fields.count) fields")
            }
            guard let photo = Int64(fields[0]), photo > 0 else {
                throw FieldpackError(path: path, line: line.number, "photo_id \"\(fields[0])\" is not a positive integer")
            }
            guard let tier = PhotoTier(rawValue: fields[1]) else {
                throw FieldpackError(
                    path: path, line: line.number,
                    "tier \"\(fields[1])\" is not one of \(PhotoTier.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard let bytes = Int(fields[2]), bytes > 0 else {
                throw FieldpackError(path: path, line: line.number, "bytes \"\(fields[2])\" is not a positive integer")
            }
            if let first = lines.updateValue(line.number, forKey: PhotoKey(photo: photo, tier: tier)) {
                throw FieldpackError(
                    path: path, line: line.number, "photo \(photo)'s \(tier.rawValue) is given twice (line \(first) and here): one line per photo and tier")
            }
            entries.append((photo, tier, bytes))
        }
        if header { throw FieldpackError(path: path, "empty: expected the header photo_id,tier,bytes") }
        entries.sort { $0.photo != $1.photo ? $0.photo < $1.photo : $0.tier < $1.tier }
    }

    private struct PhotoKey: Hashable {
        var photo: Int64
        var tier: PhotoTier
    }

    /// The measured tiers of `photo`.
    public func sizes(of photo: Int64) -> ArraySlice<(photo: Int64, tier: PhotoTier, bytes: Int)> {
        let low = entries.partitionPoint { $0.photo < photo }
        var high = low
        while high < entries.count && entries[high].photo == photo { high += 1 }
        return entries[low..<high]
    }
}
