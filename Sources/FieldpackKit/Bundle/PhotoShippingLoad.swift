/// The photo half of the bundle load, on the parsing thread: decides for every photo whether it
/// may ship (and with what credit and URLs), and holds back the rows that refer to photos until
/// the photos are decided — observation photo links, taxon photos, taxa's default photos — so
/// that the bundle keeps only shipped photos and every reference to them.
///
/// Deduped records arrive as taxa, users, observations, then photos: every observer is known
/// before a photo needs a credit. Photos arrive by id, and the links are indexed by photo, so
/// each photo's links are merged in (inserted, or dropped with it) as the photo is decided.
struct PhotoShippingLoad {
    struct Link {
        var observation: Int64
        var photo: Int64
        var position: Int64
        var line: Int32
    }

    struct TaxonPhoto {
        var taxon: Int64
        var position: Int64
        var photo: Int64
        var line: Int32
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
    private let urls = PhotoURLParser()
    private let photoColumns = PhotoRecord.Column.bundleColumns
    private(set) var report: CostReport
    /// Each user's credit name (the usable name, else the login), by id.
    private var names: [Int64: String] = [:]
    private var observationIDs: [Int64] = []
    private var observers: [Int64] = []
    /// Each observation's taxon (0: none), and its `updated_at` in Unix ms if it is research
    /// grade (nil otherwise): what the hero photo fallback ranks by.
    private var observationTaxa: [Int64] = []
    private var researchGradeUpdated: [Int64?] = []
    private var observationsSorted = true
    private var links: [Link] = []
    /// Link indices by photo, then observation id descending: the observation that credits a
    /// photo is its highest-id one. Built when the first photo arrives.
    private var linksByPhoto: [Int32] = []
    /// The next entry of `linksByPhoto` to merge with the photos.
    private var nextLink = 0
    private var heroes = HeroChoice()
    private var taxonPhotos: [TaxonPhoto] = []
    private var defaultPhotos: [TaxonPhoto] = []
    /// Whether each photo (in `ReferenceCheck`'s photo order) ships.
    private var shipped: [Bool] = []
    private var samples: [DownloadSizeFit.Sample] = []

    init(policy: ShippingPolicy, measured: MeasuredSizes?) {
        self.policy = policy
        self.measured = measured
        report = CostReport(policy: policy)
    }

    /// - Parameter name: the name to credit the user's photos with (see `UserRecord.creditName`).
    mutating func user(_ id: Int64, name: String?) {
        if let name { names[id] = name }
    }

    /// Observations arrive in uuid order (dedupe's key), and are sorted by id when the first
    /// photo needs them (`sortObservations`).
    mutating func observation(_ id: Int64, user: Int64?, taxon: Int64?, researchGradeUpdated updated: Int64?) {
        if let last = observationIDs.last, last > id { observationsSorted = false }
        observationIDs.append(id)
        observers.append(user ?? 0)
        observationTaxa.append(taxon ?? 0)
        researchGradeUpdated.append(updated)
    }

    mutating func link(observation: Int64, photo: Int64, position: Int64, line: Int) {
        links.append(Link(observation: observation, photo: photo, position: position, line: Int32(clamping: line)))
    }

    mutating func taxonPhoto(taxon: Int64, position: Int64, photo: Int64, line: Int) {
        taxonPhotos.append(TaxonPhoto(taxon: taxon, position: position, photo: photo, line: Int32(clamping: line)))
    }

    mutating func defaultPhoto(taxon: Int64, photo: Int64, line: Int) {
        defaultPhotos.append(TaxonPhoto(taxon: taxon, position: 0, photo: photo, line: Int32(clamping: line)))
    }

    /// Decides one photo record (photos arrive by id). A photo that ships goes into `stream`,
    /// followed by the observation links to it.
    ///
    /// - Throws: `FieldpackError` naming the line of an observation that links a photo with no
    ///   record (photo ids skipped over since the previous photo).
    mutating func photo(
        _ record: JSONColumns, id: Int64, line: Int, references: ReferenceCheck, into stream: BatchStream
    ) throws {
        typealias C = PhotoRecord.Column
        sortObservations()
        if linksByPhoto.isEmpty && !links.isEmpty { indexLinks() }
        try skipLinks(before: id, references: references)
        // Who to credit: the photo's own attribution name, else its observer (name, else login).
        var name = UserRecord.usableName(record.string(C.attributionName))
        if name == nil, PhotoRecord.isObservationPhoto(record), let observation = record.int64(C.observation) {
            name = observerName(of: observation)
        }
        if name == nil, nextLink < linksByPhoto.count, links[Int(linksByPhoto[nextLink])].photo == id {
            // A taxon photo that is also an observation's photo: its observer took it.
            name = observerName(of: links[Int(linksByPhoto[nextLink])].observation)
        }
        var original: PixelSize? = nil
        if let width = record.int64(C.width), let height = record.int64(C.height) {
            original = PixelSize(width: Int(width), height: Int(height))
        }
        let source = record.text(C.url).map(urls.classify) ?? .unusable("no URL")
        let photo = PhotoShipping.decide(
            id: id, source: source, licenseCode: record.string(C.license), name: name, original: original, hidden: record.bool(C.hidden) ?? false, policy: policy)
        report.add(photo)
        shipped.append(photo.ships)
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
            if let measured, let known = photo.sizeClass.original, !photo.isRemote {
                for size in measured.sizes(of: id) {
                    samples.append(.init(tier: size.tier, served: size.tier.servedSize(original: known), bytes: size.bytes))
                }
            }
        }
        while nextLink < linksByPhoto.count, links[Int(linksByPhoto[nextLink])].photo == id {
            let link = links[Int(linksByPhoto[nextLink])]
            nextLink += 1
            guard photo.ships else { continue }
            let batch = try stream.begin(.observationPhotos, line: Int(link.line))
            batch.int(link.observation)
            batch.int(link.photo)
            batch.int(link.position)
            let index = observationIDs.partitionPoint { $0 < link.observation }
            if let updated = researchGradeUpdated[index], observationTaxa[index] != 0 {
                heroes.offer(
                    taxon: observationTaxa[index],
                    HeroChoice.Candidate(updated: updated, observation: link.observation, position: link.position, photo: id))
            }
        }
    }

    /// Links to photo ids below `id` that have not been merged name photos with no record.
    private func skipLinks(before id: Int64, references: ReferenceCheck) throws {
        guard nextLink < linksByPhoto.count else { return }
        let link = links[Int(linksByPhoto[nextLink])]
        if link.photo < id {
            throw references.violation(.photos, link.photo, from: "observation_photos.photo_id", line: Int(link.line))
        }
    }

    /// Puts the observations in id order, for the lookups by id.
    private mutating func sortObservations() {
        guard !observationsSorted else { return }
        let order = observationIDs.indices.sorted { observationIDs[$0] < observationIDs[$1] }
        observationIDs = order.map { observationIDs[$0] }
        observers = order.map { observers[$0] }
        observationTaxa = order.map { observationTaxa[$0] }
        researchGradeUpdated = order.map { researchGradeUpdated[$0] }
        observationsSorted = true
    }

    private mutating func indexLinks() {
        linksByPhoto = Array(0..<Int32(links.count))
        linksByPhoto.sort { a, b in
            let (x, y) = (links[Int(a)], links[Int(b)])
            return x.photo != y.photo ? x.photo < y.photo : x.observation > y.observation
        }
    }

    private func observerName(of observation: Int64) -> String? {
        let low = observationIDs.partitionPoint { $0 < observation }
        guard low < observationIDs.count, observationIDs[low] == observation, observers[low] != 0 else { return nil }
        return names[observers[low]]
    }

    /// After the last photo: checks the held-back references of taxa against the photos (a photo
    /// with no record at all is an error naming the line that refers to it; an excluded photo's
    /// references are dropped), chooses each taxon's hero photo, fits the download figures to
    /// measured sizes, and adds the held rows, the display targets and the size-class costs to
    /// `stream`.
    mutating func finish(references: ReferenceCheck, into stream: BatchStream) throws {
        func ships(_ photo: Int64, from column: String, line: Int32) throws -> Bool {
            shipped[try references.position(of: photo, in: .photos, from: column, line: Int(line))]
        }
        if linksByPhoto.isEmpty && !links.isEmpty { indexLinks() }  // no photo record at all
        try skipLinks(before: Int64.max, references: references)
        for entry in taxonPhotos where try ships(entry.photo, from: "taxon_photos.photo_id", line: entry.line) {
            let batch = try stream.begin(.taxonPhotos, line: Int(entry.line))
            batch.int(entry.taxon)
            batch.int(entry.position)
            batch.int(entry.photo)
            heroes.taxonPhoto(taxon: entry.taxon, photo: entry.photo)
        }
        for taxon in defaultPhotos where try ships(taxon.photo, from: "taxa.default_photo_id", line: taxon.line) {
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
