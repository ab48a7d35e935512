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

    /// The URL of `tier` for the same photo.
    public func url(_ tier: PhotoTier) -> String {
        "\(origin)\(pathPrefix)/photos/\(id)/\(tier.rawValue)\(hasDot ? "." : "")\(fileExtension)"
    }

    /// Hosts that belong to iNaturalist (an `http` URL on them is upgraded to `https`).
    static func isINaturalistHost(_ host: String) -> Bool {
        host == "inaturalist.org" || host.hasSuffix(".inaturalist.org")
            || host == "inaturalist-open-data.s3.amazonaws.com" || host == "inaturalist.s3.amazonaws.com"
    }

    /// Classifies a photo URL from the API.
    public static func classify(_ text: String) -> PhotoSource {
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            return .unusable("not an http(s) URL")
        }
        let afterScheme = text.dropFirst(scheme.count + 3)
        let withoutQuery = afterScheme.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let hostEnd = withoutQuery.firstIndex(of: "/") ?? withoutQuery.endIndex
        let host = String(withoutQuery[..<hostEnd]).lowercased()
        let path = String(withoutQuery[hostEnd...])
        guard !host.isEmpty else { return .unusable("URL has no host") }
        let ours = isINaturalistHost(host)

        for kind in PlaceholderKind.allCases where path.contains(kind.rawValue) && ours {
            return .placeholder(kind)
        }
        guard ours else {
            return scheme == "https" ? .remote(url: text) : .unusable("remote photo URL is not https")
        }
        // …/photos/{id}/{size}.{ext}
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 3] == "photos", let id = Int64(parts[parts.count - 2]) else {
            return .unusable("iNaturalist URL is not …/photos/{id}/{size}.{ext}")
        }
        let file = parts[parts.count - 1]
        let dot = file.firstIndex(of: ".")
        let sizeToken = String(dot.map { file[..<$0] } ?? file[...])
        guard let tier = PhotoTier(rawValue: sizeToken) else {
            return .unusable("iNaturalist URL has no size token (\(file))")
        }
        let prefix = parts[1..<(parts.count - 3)].map { "/\($0)" }.joined()
        return .inaturalist(PhotoURL(
            origin: "https://\(host)", pathPrefix: prefix, id: id, tier: tier,
            fileExtension: dot.map { String(file[file.index(after: $0)...]) } ?? "", hasDot: dot != nil))
    }
}
