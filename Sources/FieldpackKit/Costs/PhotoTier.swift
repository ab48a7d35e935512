/// iNaturalist's CDN sizes (LocalPhoto's Paperclip styles): `square` is exactly 75 × 75, cropped;
/// the others fit inside a bound and are never enlarged.
public enum PhotoTier: String, CaseIterable, Sendable, Comparable {
    case square, thumb, small, medium, large, original

    /// The bounding box of a fitted tier (`square` is a fixed 75 × 75 crop).
    public var bound: Int {
        switch self {
        case .square: return 75
        case .thumb: return 100
        case .small: return 240
        case .medium: return 500
        case .large: return 1024
        case .original: return 2048
        }
    }

    /// The size token in URLs, as static bytes.
    var marker: StaticString {
        switch self {
        case .square: return "square"
        case .thumb: return "thumb"
        case .small: return "small"
        case .medium: return "medium"
        case .large: return "large"
        case .original: return "original"
        }
    }

    /// Position in `allCases`, smallest first.
    public var ordinal: Int {
        switch self {
        case .square: return 0
        case .thumb: return 1
        case .small: return 2
        case .medium: return 3
        case .large: return 4
        case .original: return 5
        }
    }

    public static func < (lhs: PhotoTier, rhs: PhotoTier) -> Bool { lhs.ordinal < rhs.ordinal }

    /// The size the CDN serves for a photo whose stored original is `original`: the original when
    /// its longest edge is within the bound, else scaled so the longest edge is the bound, the
    /// short edge rounded half up.
    public func servedSize(original: PixelSize) -> PixelSize {
        if self == .square { return PixelSize(width: 75, height: 75) }
        let long = max(original.width, original.height)
        guard long > bound else { return original }
        // Half up, and never below one pixel: an image is never 0 px on a side (2048 × 3 was a
        // thumb of 100 × 0, costing nothing).
        func scaled(_ edge: Int) -> Int {
            edge == long ? bound : max(1, (2 * edge * bound + long) / (2 * long))
        }
        return PixelSize(width: scaled(original.width), height: scaled(original.height))
    }
}

/// A width and height in pixels.
public struct PixelSize: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixels: Int { width * height }
    public var description: String { "\(width) × \(height)" }
}
