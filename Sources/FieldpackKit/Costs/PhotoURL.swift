#if canImport(Glibc)
import Glibc
#endif

/// What a photo URL from the API is, decided structurally.
public enum PhotoSource: Sendable, Equatable {
    /// An iNaturalist-hosted photo: every tier's URL can be derived.
    case inaturalist(PhotoURL)
    /// A third-party photo (Flickr, Wikimedia Commons, …): only the URL it came with.
    case remote(url: String)
    /// Not a photo but a stand-in image; never ships.
    case placeholder(PlaceholderKind)
    /// Not usable: the reason.
    case unusable(String)
}

/// The stand-in images iNaturalist serves instead of a photo.
public enum PlaceholderKind: String, Sendable, CaseIterable {
    case copyrightInfringement = "copyright-infringement"
    case artificiallyGenerated = "artificially-generated-content"
    case mediaHidden = "media-hidden"
    case stillProcessing = "attachment_defaults"

    /// The stand-in a photo URL's path names, if any. Every marker holds a `-` or `_`, which a
    /// photo's own path (`/photos/{id}/{size}.{ext}`) does not: only a path with one is
    /// searched for them (a search per marker).
    static func named(inPath path: UnsafeBufferPointer<UInt8>) -> PlaceholderKind? {
        guard path.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }) else { return nil }
        return allCases.first { PhotoURLParser.contains(path, $0.marker) }
    }

    /// The path fragment that marks it (each holds a `-` or `_`: `named(inPath:)` relies on it).
    var marker: StaticString {
        switch self {
        case .copyrightInfringement: return "copyright-infringement"
        case .artificiallyGenerated: return "artificially-generated-content"
        case .mediaHidden: return "media-hidden"
        case .stillProcessing: return "attachment_defaults"
        }
    }
}

/// `{prefix}/photos/{id}/{size}.{ext}[?timestamp]`, parsed so that other tiers are derived by
/// replacing only the size token: the extension is kept verbatim (`jpg`, `jpeg`, `JPG`, `png`, or
/// empty), the host is kept (it changes with the licence), the cache-busting query is dropped.
public struct PhotoURL: Sendable, Equatable {
    /// Scheme and host (always https), e.g. `https://inaturalist-open-data.s3.amazonaws.com`.
    public var origin: String
    /// The path before `/photos/` (usually empty).
    public var pathPrefix: String
    public var id: Int64
    public var tier: PhotoTier
    /// The extension as written, possibly empty.
    public var fileExtension: String
    /// Whether the file name has a dot (`square.` with an empty extension does; `square` does not).
    public var hasDot: Bool
    /// Where the size token starts in `url(tier)`: 1-based, in Unicode characters (how SQLite's
    /// `substr` counts).
    public var sizeTokenStart: Int
    /// The text parsed was already `url(tier)` (https, lower-case host, no query): it can be
    /// stored as it is.
    public var isAlreadyNormal: Bool

    /// The URL of `tier` for the same photo.
    public func url(_ tier: PhotoTier) -> String {
        pieces(size: tier.rawValue).joined()
    }

    /// Whether `byte` may be in a photo file's extension: letters and digits (`jpg`, `jpeg`,
    /// `JPG`, `png`, `gif`), in API URLs and the export's `extension` column alike.
    static func isExtensionByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    /// The URL's pieces around the size token, for writers that join them without a String.
    public func pieces(size: String) -> [String] {
        [origin, pathPrefix, "/photos/", String(id), "/", size, hasDot ? "." : "", fileExtension]
    }

    /// Where a URL's host and path are in its bytes, told without a String: the host after the
    /// scheme's `://` (a scheme of at most 6 bytes: `http`, `https`, in any case), up to `/`, `?`
    /// or `#`; the path from there up to `?` or `#`. nil when there is no such scheme.
    struct Address {
        let host: Range<Int>
        let path: Range<Int>

        init?(_ bytes: UnsafeRawBufferPointer) {
            var colon = 0
            while colon < min(bytes.count, 6), bytes[colon] != UInt8(ascii: ":") { colon += 1 }
            guard colon < bytes.count - 2, bytes[colon] == UInt8(ascii: ":"), bytes[colon + 1] == UInt8(ascii: "/"),
                  bytes[colon + 2] == UInt8(ascii: "/") else { return nil }
            var end = colon + 3
            while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
            // The host without the scheme's own port (`hostName`, as `PhotoURLParser.classify` reads it).
            let name = PhotoURL.hostName(in: UnsafeRawBufferPointer(rebasing: bytes[(colon + 3)..<end]), secure: colon == 5)
            host = (colon + 3)..<(colon + 3 + name.end)
            var pathEnd = end
            while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
            path = end..<pathEnd
        }
    }

    /// Where the host's name ends in a URL's authority (the bytes between `://` and the path):
    /// before the scheme's own port (`:443` for https, `:80` for http), which names the same
    /// server (with it, iNaturalist's host was taken for another); at the authority's end
    /// otherwise, with any other port given as `otherPort`.
    static func hostName(in authority: UnsafeRawBufferPointer, secure: Bool) -> (end: Int, otherPort: String?) {
        guard let colon = authority.lastIndex(of: UInt8(ascii: ":")) else { return (authority.count, nil) }
        let port = String(decoding: UnsafeRawBufferPointer(rebasing: authority[(colon + 1)...]), as: UTF8.self)
        return port == (secure ? "443" : "80") ? (colon, nil) : (authority.count, port)
    }

    /// Whether `url` is on one of iNaturalist's hosts (`isINaturalistHost`), and the stand-in
    /// image its path names if it is (the markers `classify` looks for), told from its bytes
    /// without a String: dedupe asks it of every photo copy. A URL with no scheme counts as not
    /// hosted.
    static func hosting(_ url: JSONText) -> (hosted: Bool, placeholder: PlaceholderKind?) {
        let bytes = UnsafeRawBufferPointer(start: url.start, count: url.count)
        guard let address = Address(bytes), isINaturalistHost(bytes: UnsafeRawBufferPointer(rebasing: bytes[address.host])) else {
            return (false, nil)
        }
        let path = UnsafeBufferPointer(start: (url.start + address.path.lowerBound).assumingMemoryBound(to: UInt8.self), count: address.path.count)
        return (true, PlaceholderKind.named(inPath: path))
    }

    /// Whether `url` is on iNaturalist's open-data bucket (`inaturalist-open-data.s3…`), where it
    /// serves openly licensed photos (INAT.md §1.4), not its static host.
    static func isOpenDataHost(_ url: JSONText) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: url.start, count: url.count)
        guard let address = Address(bytes) else { return false }
        let host = bytes[address.host]
        let bucket = Array("inaturalist-open-data.".utf8)
        guard host.count > bucket.count else { return false }
        return zip(host.prefix(bucket.count), bucket).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 + 32 : $0) == $1 } && isHosted(url)
    }

    /// Whether `url` is on one of iNaturalist's hosts (`hosting`).
    static func isHosted(_ url: JSONText) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: url.start, count: url.count)
        guard let address = Address(bytes) else { return false }
        return isINaturalistHost(bytes: UnsafeRawBufferPointer(rebasing: bytes[address.host]))
    }

    /// Hosts that belong to iNaturalist (an `http` URL on them is upgraded to `https`): the one
    /// list, compared byte by byte, case folded.
    static func isINaturalistHost(bytes host: UnsafeRawBufferPointer) -> Bool {
        func equals(_ name: StaticString, atEnd: Bool = false) -> Bool {
            let count = name.utf8CodeUnitCount
            guard atEnd ? host.count >= count : host.count == count else { return false }
            let from = host.count - count
            for offset in 0..<count {
                let byte = host[from + offset]
                if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != name.utf8Start[offset] { return false }
            }
            return true
        }
        if equals("inaturalist-open-data.s3.amazonaws.com") || equals("inaturalist.s3.amazonaws.com")
            || equals("inaturalist.org") || equals(".inaturalist.org", atEnd: true)
        {
            return true
        }
        // The same hosts spelt otherwise: a fully qualified name's final dot, and the buckets at
        // a regional S3 endpoint (`inaturalist-open-data.s3.us-east-1.amazonaws.com`,
        // `….s3-us-west-2.…`), where a photo was taken for a remote one and shipped at 75 px for
        // every target.
        guard host.last == UInt8(ascii: ".") || equals(".amazonaws.com", atEnd: true) else { return false }
        var name = String(decoding: host, as: UTF8.self).lowercased()
        if name.hasSuffix(".") {
            name.removeLast()
            return !name.hasSuffix(".") && isINaturalistHost(name)
        }
        for bucket in ["inaturalist-open-data.s3", "inaturalist.s3"] where name.hasPrefix(bucket + ".") || name.hasPrefix(bucket + "-") {
            if isAWSRegion(name.dropFirst(bucket.count + 1).dropLast(".amazonaws.com".count)) { return true }
        }
        return false
    }

    /// An AWS region's name (`us-east-1`, `eu-west-2`, `us-gov-west-1`, `external-1`): letters
    /// in two or more words, then a number. Only such a name, not any word (a bucket named
    /// `inaturalist.s3` of someone else's is `inaturalist.s3.s3-us-west-2.amazonaws.com`).
    static func isAWSRegion(_ region: Substring) -> Bool {
        if region == "external-1" { return true }
        let words = region.split(separator: "-", omittingEmptySubsequences: false)
        guard words.count >= 3, words[0].count == 2, let number = words.last, !number.isEmpty, number.allSatisfy(\.isASCII), Int(number) != nil else {
            return false
        }
        return words.dropLast().allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x61 && $0 <= 0x7A } }
    }

    static func isINaturalistHost(_ host: String) -> Bool {
        var host = host
        return host.withUTF8 { isINaturalistHost(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The URL with `{size}` where the size token goes: `https://host/photos/1/{size}.jpg`.
    public var template: String {
        pieces(size: Self.sizePlaceholder).joined()
    }

    public static let sizePlaceholder = "{size}"

    /// Where the size token is in `url(tier)`: its 1-based start and its length, in Unicode
    /// characters.
    public var sizeToken: (start: Int, length: Int) {
        (sizeTokenStart, tier.marker.utf8CodeUnitCount)
    }

    /// Classifies a photo URL from the API.
    public static func classify(_ text: String) -> PhotoSource {
        PhotoURLParser().classify(text)
    }
}

/// Classifies photo URLs on their UTF-8 bytes, remembering the last few hosts it saw (URLs
/// mostly share a few: the open-data bucket, the static host, Flickr's farms), so that the
/// common case allocates nothing but the result. It runs for every photo. Not thread-safe: one
/// per thread.
public final class PhotoURLParser {
    /// A host seen: its bytes (lower case), whether it is iNaturalist's, and its origin.
    private struct Host {
        var bytes: [UInt8]
        var ours: Bool
        var origin: String
        var originCharacters: Int
    }

    /// The hosts seen, at most `remembered` (then each new one takes the place of the one
    /// remembered longest, `replaced`).
    private var hosts: [Host] = []
    private var replaced = 0
    private static let remembered = 8

    public init() {}

    public func classify(_ text: String) -> PhotoSource {
        var bytes = text
        return bytes.withUTF8 { classify(bytes: $0, original: { text }) }
    }

    /// Classifies a URL in the JSON parser's buffer: a String is made only for a remote URL.
    public func classify(_ text: JSONText) -> PhotoSource {
        let bytes = UnsafeBufferPointer(start: text.start.assumingMemoryBound(to: UInt8.self), count: text.count)
        return classify(bytes: bytes, original: { text.string })
    }

    private func classify(bytes: UnsafeBufferPointer<UInt8>, original: () -> String) -> PhotoSource {
        @inline(__always) func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
        func hasPrefix(_ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            for index in 0..<count where lower(bytes[index]) != prefix.utf8Start[index] { return false }
            return true
        }
        let secure: Bool
        let index: Int
        if hasPrefix("https://") {
            secure = true
            index = 8
        } else if hasPrefix("http://") {
            secure = false
            index = 7
        } else {
            return .unusable("not an http(s) URL")
        }
        // The query string, if any, ends the part that matters.
        var end = index
        while end < bytes.count && bytes[end] != UInt8(ascii: "?") && bytes[end] != UInt8(ascii: "#") { end += 1 }
        var hostEnd = index
        while hostEnd < end && bytes[hostEnd] != UInt8(ascii: "/") { hostEnd += 1 }
        guard hostEnd > index else { return .unusable("URL has no host") }
        // The host without the scheme's own port (`PhotoURL.hostName`): with it, its photo was
        // taken for a remote one with a 75-px square as its only URL. A user name, or another
        // port, is no URL to ship.
        let authority = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[index..<hostEnd]))
        if authority.contains(UInt8(ascii: "@")) { return .unusable("URL names a user before its host") }
        let name = PhotoURL.hostName(in: authority, secure: secure)
        if let port = name.otherPort { return .unusable("URL names the port \(port)") }
        let nameEnd = index + name.end
        let hostBytes = UnsafeBufferPointer(rebasing: bytes[index..<nameEnd])
        let slot: Int
        if let seen = hosts.firstIndex(where: { $0.bytes.count == hostBytes.count && zip(hostBytes, $0.bytes).allSatisfy { lower($0) == $1 } }) {
            slot = seen
        } else {
            let lowered = hostBytes.map(lower)
            let name = String(decoding: lowered, as: UTF8.self)
            let origin = "https://\(name)"
            let host = Host(bytes: lowered, ours: PhotoURL.isINaturalistHost(name), origin: origin, originCharacters: origin.unicodeScalars.count)
            if hosts.count < Self.remembered {
                slot = hosts.count
                hosts.append(host)
            } else {
                // The one remembered longest gives way.
                slot = replaced
                hosts[slot] = host
                replaced = (replaced + 1) % Self.remembered
            }
        }
        let host = hosts[slot]
        guard host.ours else {
            guard secure else { return .unusable("remote photo URL is not https") }
            // Text ingest repaired (`TextRepair`): the URL that was meant is not known.
            if Self.contains(UnsafeBufferPointer(rebasing: bytes[...]), "\u{FFFD}") { return .unusable("remote photo URL held bytes that are not UTF-8") }
            return .remote(url: original())
        }
        let path = UnsafeBufferPointer(rebasing: bytes[hostEnd..<end])
        if let kind = PlaceholderKind.named(inPath: path) { return .placeholder(kind) }

        // …/photos/{id}/{file}: the last three slashes.
        var found = 0
        var slashes = (0, 0, 0)
        var position = path.count - 1
        while position >= 0 && found < 3 {
            if path[position] == UInt8(ascii: "/") {
                switch found {
                case 0: slashes.0 = position
                case 1: slashes.1 = position
                default: slashes.2 = position
                }
                found += 1
            }
            position -= 1
        }
        let malformed = PhotoSource.unusable("iNaturalist URL is not …/photos/{id}/{size}.{ext}")
        guard found == 3 else { return malformed }
        // A brace would be mistaken for the template's `{size}`; real paths never hold one.
        if path.contains(UInt8(ascii: "{")) || path.contains(UInt8(ascii: "}")) {
            return .unusable("iNaturalist URL path holds a brace")
        }
        let (fileStart, idStart, photosStart) = (slashes.0 + 1, slashes.1 + 1, slashes.2 + 1)
        guard idStart - 1 - photosStart == 6, Self.contains(UnsafeBufferPointer(rebasing: path[photosStart..<(idStart - 1)]), "photos")
        else { return malformed }
        var id: Int64 = 0
        // Up to 19 digits: every id to 2^63 − 1, which ingest takes (a larger one overflows below).
        guard fileStart - 1 > idStart, fileStart - 1 - idStart <= 19 else { return malformed }
        // `…/photos/00706/…`: the URL rebuilt from the id (`706`) would not be the one given,
        // and the size token's place, counted in the given one, fell inside the extension.
        guard path[idStart] != UInt8(ascii: "0") else { return .unusable("iNaturalist URL's photo id starts with 0") }
        for byte in path[idStart..<(fileStart - 1)] {
            guard byte >= 0x30 && byte <= 0x39 else { return malformed }
            let (tens, over) = id.multipliedReportingOverflow(by: 10)
            let (sum, past) = tens.addingReportingOverflow(Int64(byte - 0x30))
            guard !over && !past else { return .unusable("iNaturalist URL's photo id is past 2^63 - 1") }
            id = sum
        }
        var dot = fileStart
        while dot < path.count && path[dot] != UInt8(ascii: ".") { dot += 1 }
        guard let tier = Self.tier(UnsafeBufferPointer(rebasing: path[fileStart..<dot])) else {
            return .unusable("iNaturalist URL has no size token (\(String(decoding: path[fileStart...], as: UTF8.self)))")
        }
        let hasDot = dot < path.count
        // `square.jpg ` (a stray space), `square.jpg%20`: every tier's URL would carry it.
        if hasDot, !path[(dot + 1)...].allSatisfy(PhotoURL.isExtensionByte) {
            return .unusable("iNaturalist URL's extension \"\(String(decoding: path[(dot + 1)...].prefix(20), as: UTF8.self))\" is not letters and digits")
        }
        var characters = 0
        for byte in path[0..<fileStart] where byte & 0xC0 != 0x80 { characters += 1 }
        // Not when a port was dropped: the text given is not the URL rebuilt.
        let alreadyNormal = secure && end == bytes.count && memcmp(bytes.baseAddress!, "https://", 8) == 0 && nameEnd == hostEnd
            && zip(hostBytes, host.bytes).allSatisfy { $0 == $1 }
        return .inaturalist(PhotoURL(
            origin: host.origin, pathPrefix: photosStart > 1 ? String(decoding: path[0..<(photosStart - 1)], as: UTF8.self) : "",
            id: id, tier: tier, fileExtension: hasDot ? String(decoding: path[(dot + 1)...], as: UTF8.self) : "",
            hasDot: hasDot, sizeTokenStart: host.originCharacters + characters + 1, isAlreadyNormal: alreadyNormal))
    }

    private static func tier(_ token: UnsafeBufferPointer<UInt8>) -> PhotoTier? {
        for tier in PhotoTier.allCases {
            let name = tier.marker
            if token.count == name.utf8CodeUnitCount && memcmp(token.baseAddress!, name.utf8Start, token.count) == 0 { return tier }
        }
        return nil
    }

    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Bool {
        firstOffset(of: needle, in: UnsafeRawBufferPointer(haystack)) != nil
    }
}
