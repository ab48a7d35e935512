/// The photo half of the bundle load, on the parsing thread: decides for every photo whether it
/// may ship (and with what credit and URLs), and holds back the rows that refer to photos until
/// the photos are decided — observation photo links, taxon photos, taxa's default photos — so
/// that the bundle keeps only shipped photos and every reference to them.
///
/// Deduped records arrive as taxa, users, observations, then photos: every user is known before
/// a photo needs a credit (its attribution name, else its observer's name: see
/// `PhotoRecord.Column.observer`). Photos arrive by id, and the links are sorted by photo (an
/// `ExternalSort`, spilling to the build folder), so each photo's links are merged in (inserted,
/// or dropped with it) as the photo is decided; the taxa's references to photos are decided in
/// the same pass. What it holds grows with the taxa and users, not with the observations or
/// photos.
struct PhotoShippingLoad {
    /// A kept observation's link to a photo, with what the photo's hero offer needs of the
    /// observation (its taxon and research-grade date), so that nothing per observation is
    /// held once its record has passed.
    struct Link {
        var photo: Int64
        var observation: Int64
        var position: Int64
        /// The observation's taxon (0: none).
        var taxon: Int64
        /// The observation's `updated_at` in Unix ms (`Int64.min` if unknown), if `researchGrade`.
        var updated: Int64
        /// The order links came in (the tie-breaker).
        var order: Int64
        var line: Int32
        var researchGrade: Bool

        /// By photo, then observation id descending, then as they came: the order a photo's
        /// `observation_photos` rows are inserted in, which the bundle's bytes depend on.
        static func precedes(_ a: Link, _ b: Link) -> Bool {
            if a.photo != b.photo { return a.photo < b.photo }
            if a.observation != b.observation { return a.observation > b.observation }
            return a.order < b.order
        }
    }

    struct TaxonPhoto {
        var taxon: Int64
        var position: Int64
        var photo: Int64
        var line: Int32
    }

    /// What the photo stream said about a photo a taxon refers to.
    enum Decision: UInt8 {
        case noRecord, ships, excluded
    }

    /// A taxon's reference to a photo, by photo id: an index into `taxonPhotos` (≥ 0) or
    /// into `defaultPhotos` (−1 − index).
    struct Reference {
        var photo: Int64
        var slot: Int32
    }

    /// The `photos` columns decided here, bound after the record's own, in this order (see
    /// `RecordBatch.Table`).
    enum DerivedColumn: CaseIterable {
        /// The record's URL if already normal, else the normalized one.
        case url
        case remote, credit
        /// Where the size token sits in the URL, for the app to put a tier's in its place.
        case urlSizeStart, urlSizeLength

        var name: String {
            switch self {
            case .url: "url"
            case .remote: "remote"
            case .credit: "credit"
            case .urlSizeStart: "url_size_start"
            case .urlSizeLength: "url_size_length"
            }
        }
    }

    static let derivedPhotoColumns = DerivedColumn.allCases.map(\.name)

    let policy: ShippingPolicy
    let measured: MeasuredSizes?
    /// A selection applies: a photo that no kept observation links and no taxon refers to is not
    /// inserted (the selection would remove it), nor decided, only counted.
    let selecting: Bool
    /// The photos left out so (see `selecting`).
    private(set) var notSelected = 0
    /// Without a selection, the photos that no observation links and no taxon refers to: nothing
    /// in the app reaches them (an older copy of an observation listed them; its newest copy
    /// does not), so they are not shipped, and the costs report counts them as `unlinked`.
    private(set) var unlinked = 0
    private let urls = PhotoURLParser()
    private let photoColumns = PhotoRecord.Column.bundleColumns
    private(set) var report: CostReport
    /// Each user's credit name (the usable name, else the login), by id.
    private var names = CreditNames()
    /// The observation being read: its id, taxon and research-grade date, for its links.
    private var current: (id: Int64, taxon: Int64, updated: Int64?)? = nil
    /// Every observation's links, sorted by photo (spilling to the build folder); read in step
    /// with the photos, which arrive by id, from the first photo on.
    private let links: ExternalSort<Link>
    private var pendingLinks: ExternalSort<Link>.Cursor? = nil
    /// The current photo's links.
    private var group: [Link] = []
    private var heroes = HeroChoice()
    private var taxonPhotos: [TaxonPhoto] = []
    private var defaultPhotos: [TaxonPhoto] = []
    /// What became of the photo each of them refers to, decided as the photos pass by.
    private var taxonPhotoDecisions: [Decision] = []
    private var defaultPhotoDecisions: [Decision] = []
    /// Both lists' references by photo id, and the next one to meet a photo.
    private var taxonReferences: [Reference] = []
    private var nextReference = 0
    private var samples: [DownloadSizeFit.Sample] = []

    /// - Parameters:
    ///   - space: where the links spill (the build folder).
    ///   - selecting: a selection applies (see `selecting`).
    init(policy: ShippingPolicy, measured: MeasuredSizes?, space: SortSpace = .memory, selecting: Bool = false) {
        self.policy = policy
        self.measured = measured
        self.selecting = selecting
        report = CostReport(policy: policy)
        links = ExternalSort<Link>(space: space, by: Link.precedes)
    }

    /// - Parameter name: the name to credit the user's photos with (see `UserRecord.creditName`).
    mutating func user(_ id: Int64, name: String?) {
        names.add(id, name: name)
    }

    /// A kept observation (they arrive in uuid order, dedupe's key); its links follow it.
    mutating func observation(_ id: Int64, taxon: Int64?, researchGradeUpdated updated: Int64?) {
        current = (id, taxon ?? 0, updated)
    }

    /// A link of the observation just given to `observation(_:taxon:researchGradeUpdated:)`.
    mutating func link(observation: Int64, photo: Int64, position: Int64, line: Int) throws {
        guard let current, current.id == observation else { preconditionFailure("a link of an observation not being read") }
        try links.append(Link(
            photo: photo, observation: observation, position: position, taxon: current.taxon,
            updated: current.updated ?? 0, order: Int64(links.count), line: Int32(clamping: line),
            researchGrade: current.updated != nil))
    }

    /// Photos dedupe did not write, because no observation it kept links them and no taxon
    /// refers to them (`DedupedSelectionRecord.photosNotSelected`): counted as not selected, as
    /// they would have been here.
    mutating func countNotSelected(_ count: Int) {
        notSelected += count
        report.addNotSelected(count)
    }

    mutating func taxonPhoto(taxon: Int64, position: Int64, photo: Int64, line: Int) {
        taxonPhotos.append(TaxonPhoto(taxon: taxon, position: position, photo: photo, line: Int32(clamping: line)))
    }

    mutating func defaultPhoto(taxon: Int64, photo: Int64, line: Int) {
        defaultPhotos.append(TaxonPhoto(taxon: taxon, position: 0, photo: photo, line: Int32(clamping: line)))
    }

    /// Decides one photo record (photos arrive by id). A photo that ships goes into `stream`,
    /// followed by the observation links to it. A photo that no (kept) observation links and no
    /// taxon refers to is counted as not selected when `selecting` (in `notSelected` and the
    /// report's `photos`), else as unlinked (`unlinked`, the report's `unlinked`), and not decided: its licence, URL and credit are never looked at,
    /// unless measured sizes of it fit the download figures (the decision is then made for the
    /// fit, but not counted in the report).
    ///
    /// - Throws: `FieldpackError` naming the line of an observation that links a photo with no
    ///   record (photo ids skipped over since the previous photo).
    mutating func photo(
        _ record: JSONColumns, id: Int64, line: Int, references: ReferenceCheck, into stream: BatchStream
    ) throws {
        typealias C = PhotoRecord.Column
        let pending = try beginPhotos()
        try skipLinks(before: id, references: references)
        group.removeAll(keepingCapacity: true)
        while let link = pending.peek, link.photo == id {
            group.append(link)
            try pending.advance()
        }
        // The taxa's references to this photo (those to photos skipped over have no record).
        while nextReference < taxonReferences.count, taxonReferences[nextReference].photo < id { nextReference += 1 }
        var referencesEnd = nextReference
        while referencesEnd < taxonReferences.count, taxonReferences[referencesEnd].photo == id { referencesEnd += 1 }
        let taxonSlots = nextReference..<referencesEnd
        nextReference = referencesEnd
        let selected = !taxonSlots.isEmpty || !group.isEmpty
        // A photo nothing reaches (or the selection leaves out) is only counted, not decided,
        // unless measured sizes of it calibrate the download figures.
        func leaveOut() {
            if selecting {
                notSelected += 1
                report.addNotSelected()
            } else {
                unlinked += 1
                report.addUnlinked()
            }
        }
        let measuredSizes = measured?.sizes(of: id) ?? []
        if !selected && measuredSizes.isEmpty {
            leaveOut()
            return
        }
        // Who to credit: the photo's own attribution name, else its observer (name, else login);
        // looked up only for a photo the rules before the credit do not exclude.
        func creditName() -> String? {
            if let name = UserRecord.usableName(record.text(C.attributionName)) { return name.string }
            return record.int64(C.observer).flatMap { names.name(of: $0) }
        }
        var original: PixelSize? = nil
        if let width = record.int64(C.width), let height = record.int64(C.height) {
            original = PixelSize(width: Int(width), height: Int(height))
        }
        let source = record.text(C.url).map(urls.classify) ?? .unusable("no URL")
        let licenseCode = record.text(C.license)
        let photo = PhotoShipping.decide(
            id: id, source: source, license: License.parse(licenseCode), licenseCode: licenseCode?.string, name: creditName(),
            original: original, hidden: record.bool(C.hidden) ?? false, policy: policy)
        let decision: Decision = photo.ships ? .ships : .excluded
        for reference in taxonReferences[taxonSlots] {
            if reference.slot >= 0 {
                taxonPhotoDecisions[Int(reference.slot)] = decision
            } else {
                defaultPhotoDecisions[Int(-1 - reference.slot)] = decision
            }
        }
        // Measured sizes fit the download figures of every photo that may ship, selected or not.
        if photo.ships, let known = photo.sizeClass.original, !photo.isRemote {
            for size in measuredSizes {
                samples.append(.init(tier: size.tier, served: size.tier.servedSize(original: known), bytes: size.bytes))
            }
        }
        if !selected {
            leaveOut()
            return
        }
        report.add(photo)
        if photo.ships {
            let batch = try stream.begin(.photos, line: line)
            batch.add(photoColumns, from: record)
            var sizeToken: (start: Int, length: Int)? = nil
            if case .inaturalist(let url) = photo.source { sizeToken = url.sizeToken }
            for column in DerivedColumn.allCases {
                switch column {
                case .url:
                    if case .inaturalist(let url) = source, url.isAlreadyNormal {
                        batch.text(record.text(C.url))
                    } else {
                        batch.text(photo.url)
                    }
                case .remote: batch.bool(photo.isRemote)
                case .credit: batch.text(photo.credit)
                case .urlSizeStart: batch.int(sizeToken.map { Int64($0.start) })
                case .urlSizeLength: batch.int(sizeToken.map { Int64($0.length) })
                }
            }
            for link in group {
                let batch = try stream.begin(.observationPhotos, line: Int(link.line))
                batch.int(link.observation)
                batch.int(link.photo)
                batch.int(link.position)
                if link.researchGrade, link.taxon != 0 {
                    heroes.offer(
                        taxon: link.taxon,
                        HeroChoice.Candidate(updated: link.updated, observation: link.observation, position: link.position, photo: id))
                }
            }
        }
    }

    /// Before the first photo: the links sorted by photo, the taxa's references indexed by it.
    private mutating func beginPhotos() throws -> ExternalSort<Link>.Cursor {
        if let pendingLinks { return pendingLinks }
        let cursor = try links.sorted()
        pendingLinks = cursor
        taxonPhotoDecisions = Array(repeating: .noRecord, count: taxonPhotos.count)
        defaultPhotoDecisions = Array(repeating: .noRecord, count: defaultPhotos.count)
        taxonReferences = taxonPhotos.indices.map { Reference(photo: taxonPhotos[$0].photo, slot: Int32($0)) }
            + defaultPhotos.indices.map { Reference(photo: defaultPhotos[$0].photo, slot: Int32(-1 - $0)) }
        taxonReferences.sort { $0.photo != $1.photo ? $0.photo < $1.photo : $0.slot < $1.slot }
        return cursor
    }

    /// Links to photo ids below `id` that have not been merged name photos with no record.
    private func skipLinks(before id: Int64, references: ReferenceCheck) throws {
        guard let link = pendingLinks?.peek else { return }
        if link.photo < id {
            throw references.violation(.photos, link.photo, from: "observation_photos.photo_id", line: Int(link.line))
        }
    }

    /// After the last photo: checks the held-back references of taxa against the photos (a photo
    /// with no record at all is an error naming the line that refers to it; an excluded photo's
    /// references are dropped), chooses each taxon's hero photo, fits the download figures to
    /// measured sizes, and adds the held rows, the display targets and the size-class costs to
    /// `stream`.
    mutating func finish(references: ReferenceCheck, into stream: BatchStream) throws {
        func ships(_ decision: Decision, _ entry: TaxonPhoto, from column: String) throws -> Bool {
            if decision == .noRecord { throw references.violation(.photos, entry.photo, from: column, line: Int(entry.line)) }
            return decision == .ships
        }
        _ = try beginPhotos()  // no photo record at all
        try skipLinks(before: Int64.max, references: references)
        for (entry, decision) in zip(taxonPhotos, taxonPhotoDecisions) where try ships(decision, entry, from: "taxon_photos.photo_id") {
            let batch = try stream.begin(.taxonPhotos, line: Int(entry.line))
            batch.int(entry.taxon)
            batch.int(entry.position)
            batch.int(entry.photo)
            heroes.taxonPhoto(taxon: entry.taxon, photo: entry.photo)
        }
        for (taxon, decision) in zip(defaultPhotos, defaultPhotoDecisions) where try ships(decision, taxon, from: "taxa.default_photo_id") {
            heroes.defaultPhoto(taxon: taxon.taxon, photo: taxon.photo)
        }
        for choice in heroes.choices() {
            let batch = try stream.begin(.taxonPhotoChoice, line: 0)
            batch.int(choice.defaultPhoto)
            batch.int(choice.hero)
            batch.int(choice.taxon)
        }
        if !samples.isEmpty { report.apply(DownloadSizeFit.fit(samples)) }
        for (index, target) in policy.targets.enumerated() {
            let box = target.box
            let batch = try stream.begin(.displayTargets, line: 0)
            batch.int(Int64(index + 1))
            batch.text(target.name)
            batch.real(target.width)
            batch.real(target.height)
            batch.real(target.scale)
            batch.text(target.mode.rawValue)
            batch.int(Int64(box.width))
            batch.int(Int64(box.height))
        }
        for (size, costs) in zip(report.classes, report.classCosts()) {
            for (index, cost) in costs.enumerated() {
                let batch = try stream.begin(.sizeCosts, line: 0)
                batch.bool(size.remote)
                batch.int(Int64(size.width))
                batch.int(Int64(size.height))
                batch.int(Int64(index + 1))
                batch.text(cost.tier?.rawValue)
                batch.int(Int64(cost.served.width))
                batch.int(Int64(cost.served.height))
                batch.int(Int64(cost.display.width))
                batch.int(Int64(cost.display.height))
                batch.int(Int64(cost.decodedBytes))
                batch.int(Int64(cost.transientBytes))
                batch.int(Int64(cost.downloadBytes))
                batch.bool(cost.upscaled)
                batch.bool(cost.assumedDimensions)
            }
        }
    }
}
