/// The shipping decision for one photo: whether it may ship and why not, its licence and credit,
/// and the URL of every tier (or the remote URL). Its costs depend only on its `sizeClass`.
public struct PhotoShipping: Sendable {
    public enum Exclusion: Sendable, Equatable, Hashable {
        case license(License)
        case unknownLicense(String)
        case placeholder(PlaceholderKind)
        case unusableURL(String)
        /// Hidden by a moderator (`hidden: true`), whatever its URL says.
        case hidden
        case noCredit

        /// A stable key for counting: `license:cc-by-nc`, `placeholder:media-hidden`, …
        public var key: String {
            switch self {
            case .license(let license): return "license:\(license.rawValue)"
            case .unknownLicense(let code): return "unknown-license:\(code)"
            case .placeholder(let kind): return "placeholder:\(kind.rawValue)"
            case .unusableURL(let reason): return "url:\(reason)"
            case .hidden: return "hidden"
            case .noCredit: return "no-credit"
            }
        }
    }

    public var id: Int64
    public var exclusion: Exclusion?
    public var license: License?
    public var credit: String?
    public var source: PhotoSource
    public var original: PixelSize?

    public var ships: Bool { exclusion == nil }

    /// Decides for one photo.
    ///
    /// - Parameters:
    ///   - name: the photographer's name to credit (the photo's `attribution_name`, else the
    ///     observer's name or login), nil if unknown.
    public static func decide(
        id: Int64, source: PhotoSource, licenseCode: String?, name: @autoclosure () -> String?, original: PixelSize?,
        hidden: Bool = false, policy: ShippingPolicy
    ) -> PhotoShipping {
        decide(
            id: id, source: source, license: License.parse(licenseCode), licenseCode: licenseCode, name: name(), original: original,
            hidden: hidden, policy: policy)
    }

    /// Decides for one photo whose licence code is already read (`License.parse`): the code's
    /// text and the name are asked for only when the decision needs them (an unknown code; a
    /// photo no rule before the credit excludes), which most photos of a guide that ships only
    /// some licences never are.
    static func decide(
        id: Int64, source: PhotoSource, license: License?, licenseCode: @autoclosure () -> String?, name: @autoclosure () -> String?,
        original: PixelSize?, hidden: Bool = false, policy: ShippingPolicy
    ) -> PhotoShipping {
        var shipping = PhotoShipping(
            id: id, exclusion: nil, license: license, credit: nil, source: source, original: original)
        switch source {
        case .inaturalist(let url) where url.id != id: shipping.exclusion = .unusableURL("URL names another photo")
        case .placeholder(let kind): shipping.exclusion = .placeholder(kind)
        case .unusable(let reason): shipping.exclusion = .unusableURL(reason)
        case .inaturalist, .remote: if hidden { shipping.exclusion = .hidden }
        }
        if shipping.exclusion == nil {
            if let license {
                if !policy.licenses.contains(license) { shipping.exclusion = .license(license) }
            } else {
                shipping.exclusion = .unknownLicense(licenseCode() ?? "")
            }
        }
        if shipping.exclusion == nil {
            shipping.credit = license?.credit(name: name())
            if shipping.credit == nil { shipping.exclusion = .noCredit }
        }
        return shipping
    }

    public var isRemote: Bool {
        if case .remote = source { return true }
        return false
    }

    public var sizeClass: SizeClass { SizeClass(remote: isRemote, original: original) }

    /// The URL to store: for an iNaturalist photo, its own tier's URL as https without the
    /// cache-busting query; a remote photo's URL as it came.
    public var url: String? {
        switch source {
        case .inaturalist(let url): return url.url(url.tier)
        case .remote(let url): return url
        case .placeholder, .unusable: return nil
        }
    }
}
