/// Where the app shows a photo: a box in points at a screen scale, filled (aspect-fill, cropped,
/// like a list cell) or fitted (aspect-fit, like a detail view).
public struct DisplayTarget: Sendable, Equatable {
    public enum Mode: String, Sendable {
        case fill, fit
    }

    public var name: String
    public var width: Double
    public var height: Double
    public var scale: Double
    public var mode: Mode

    /// The keys of a target in the pipeline file.
    static let keys = ["name", "width", "height", "scale", "mode"]

    public init(name: String, width: Double, height: Double, scale: Double, mode: Mode) {
        self.name = name
        self.width = width
        self.height = height
        self.scale = scale
        self.mode = mode
    }

    /// The box in pixels: points × scale, rounded.
    public var box: PixelSize {
        PixelSize(width: Int((width * scale).rounded()), height: Int((height * scale).rounded()))
    }

    /// Whether an image of `size` from `tier` is enough for this target without enlarging it:
    /// both sides must reach the box to fill it, either side to fit it. `square` (a 75 px crop
    /// of the photo's centre) only serves square fill boxes within 75 × 75: filling another box
    /// crops the photo otherwise (a 75 × 30 strip showed a panorama's middle quarter from the
    /// square, where filling it from the photo shows its middle five eighths; until 2026-12-08).
    public func isCovered(by size: PixelSize, tier: PhotoTier) -> Bool {
        let box = self.box
        if tier == .square { return Self.squareServes(mode: mode, box: box) && box.width == box.height }
        switch mode {
        case .fill: return size.width >= box.width && size.height >= box.height
        case .fit: return size.width >= box.width || size.height >= box.height
        }
    }

    /// Whether `square` served a box by the rule of bundles built before 2026-12-08: any fill box
    /// within 75 × 75, square or not (fieldpack-verify accepts their choice).
    static func squareServes(mode: Mode, box: PixelSize) -> Bool {
        mode == .fill && box.width <= 75 && box.height <= 75
    }

    /// What the app draws: the box when filling; the image scaled into the box when fitting.
    public func displaySize(of image: PixelSize) -> PixelSize {
        let box = self.box
        switch mode {
        case .fill:
            return box
        case .fit:
            guard image.width > 0 && image.height > 0 else { return box }
            let scale = min(Double(box.width) / Double(image.width), Double(box.height) / Double(image.height))
            return PixelSize(
                width: Int((Double(image.width) * scale).rounded()), height: Int((Double(image.height) * scale).rounded()))
        }
    }
}
