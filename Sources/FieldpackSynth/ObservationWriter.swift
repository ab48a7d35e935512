import FieldpackKit
/// Writes one synthetic iNaturalist API v1 observation as compact JSON.
///
/// Observation `index` is a pure function of the world's seed and the index: its own fields come
/// from one random stream, and its user, photos and identifications from streams of their own,
/// so an older copy (`olderCopy: true`) draws the same values and differs only where it should
/// (an earlier `updated_at`, a lower quality grade, only the first identification, and for one
/// copy in five the photo licence the user had before).
///
/// Not thread-safe: each writer thread owns one.
struct ObservationWriter {
    let world: SyntheticWorld
    /// How many distinct observations the dump holds (spreads creation dates over the years).
    let total: Int
    /// Whether records carry `SyntheticDamage`.
    let damage: Bool
    private var scratch = ByteScratch()

    init(world: SyntheticWorld, total: Int, damage: Bool = false) {
        self.world = world
        self.total = max(total, 1)
        self.damage = damage
    }

    /// First and last creation time of the dump's observations (Unix seconds).
    static let firstCreated: Int64 = 1_325_376_000  // 2012-01-01
    static let lastCreated: Int64 = 1_733_011_200  // 2024-12-01

    static let idBase: Int64 = 10_000_000
    static let photoBase: Int64 = 50_000_000
    static let identificationBase: Int64 = 200_000_000
    static let observationPhotoBase: Int64 = 300_000_000

    /// The user who made observation `index`, and how many photos it has (1–3, mean 1.7).
    func owner(of index: Int) -> (user: Int, photos: Int) {
        var rng = SplitMix64(seed: world.seed, stream: SyntheticWorld.Stream.observationUser, index: UInt64(index))
        let user = world.drawUser(&rng)
        let roll = rng.below(100)
        return (user, roll < 45 ? 1 : roll < 85 ? 2 : 3)
    }

    mutating func write(_ index: Int, olderCopy: Bool, into out: inout JSONWriter) {
        var rng = SplitMix64(seed: world.seed, stream: SyntheticWorld.Stream.observation, index: UInt64(index))
        let (userIndex, photoCount) = owner(of: index)
        let user = world.users[userIndex]
        let taxonIndex = world.drawTaxon(&rng)
        let taxon = world.taxa[taxonIndex]
        let id = Self.idBase + Int64(index) * 2 + Int64(rng.below(2))
        let vocabulary = SyntheticVocabulary.self
        let region = vocabulary.regions[pickShare(vocabulary.regionShares, &rng)]
        let offset = region.offsetMinutes

        // Times: creation spread over the years in id order; observed before; updated after.
        let span = Self.lastCreated - Self.firstCreated
        let created = Self.firstCreated + span * Int64(index) / Int64(total) + Int64(rng.below(3600))
        let delayRoll = rng.below(100)
        let delay = Int64(delayRoll < 60 ? rng.below(2 * 86_400) : delayRoll < 90 ? rng.below(30 * 86_400) : rng.below(700 * 86_400))
        let observed = created - delay - 60
        let updateRoll = rng.below(100)
        let sinceCreated = Int64(60 + (updateRoll < 50 ? rng.below(86_400) : updateRoll < 85 ? rng.below(60 * 86_400) : rng.below(1000 * 86_400)))
        let olderFraction = Int64(rng.int(in: 1...9))
        let updated = created + (olderCopy ? sinceCreated * olderFraction / 10 : sinceCreated)
        let hasTime = !rng.chance(3, in: 100)

        let qualityRoll = rng.below(100)
        var quality: StaticString = qualityRoll < 60 ? "research" : qualityRoll < 90 ? "needs_id" : "casual"
        if olderCopy && qualityRoll < 60 { quality = "needs_id" }
        let latitude = region.latitude.lowerBound + Int64(rng.below(Int(region.latitude.upperBound - region.latitude.lowerBound)))
        let longitude = region.longitude.lowerBound + Int64(rng.below(Int(region.longitude.upperBound - region.longitude.lowerBound)))
        let accuracies = [3, 4, 5, 8, 10, 12, 16, 20, 25, 30, 50, 65, 100, 250, 1000, 5000]
        let accuracy: Int? = rng.chance(15, in: 100) ? nil : accuracies[rng.below(accuracies.count)]
        let obscured = rng.chance(6, in: 100)
        let place = region.places[rng.below(region.places.count)]
        let description: String? = rng.chance(12, in: 100) ? rng.pick(vocabulary.descriptions) : nil
        let identificationRoll = rng.below(100)
        let identificationCount = identificationRoll < 72 ? 1 : identificationRoll < 95 ? 2 : 3
        let sharedPhoto: Int? = index > 0 && rng.chance(1, in: 600) ? index - 1 - rng.below(min(index, 20)) : nil
        // Drawn for every copy, so the older one's stream stays in step with the newer one's.
        let licenceChanged = rng.chance(1, in: 5)
        let oldLicences = olderCopy && licenceChanged
        let damaged = damage ? SyntheticDamage.kind(seed: world.seed, index: index, olderCopy: olderCopy) : nil
        var detail = SyntheticDamage.detail(seed: world.seed, index: index, olderCopy: olderCopy)

        out.beginObject()
        out.key("id")
        if damaged == .nonNumericID { out.string("obs-\(id)") } else { out.int(id) }
        out.key("uuid"); quotedScratch(&out) { $0.uuid(&rng) }
        out.key("quality_grade"); quotedScratch(&out) { $0.ascii(quality) }
        out.key("observed_on"); quotedScratch(&out) { $0.date(observed, offsetMinutes: offset) }
        out.key("time_observed_at")
        if hasTime { quotedScratch(&out) { $0.timestamp(observed, offsetMinutes: offset) } } else { out.null() }
        out.key("created_at"); quotedScratch(&out) { $0.timestamp(created, offsetMinutes: offset) }
        out.key("updated_at"); quotedScratch(&out) { $0.timestamp(updated, offsetMinutes: offset) }
        out.key("location")
        quotedScratch(&out) {
            $0.micro(latitude)
            $0.byte(UInt8(ascii: ","))
            $0.micro(longitude)
        }
        out.key("geojson")
        out.beginObject()
        out.key("type"); quotedScratch(&out) { $0.ascii("Point") }
        out.key("coordinates")
        out.beginArray()
        rawScratch(&out) { $0.micro(longitude) }
        rawScratch(&out) { $0.micro(latitude) }
        out.endArray()
        out.endObject()
        out.key("positional_accuracy")
        if damaged == .accuracyAsText { out.string("about \(accuracy ?? 10) m") } else { out.int(accuracy.map(Int64.init)) }
        out.key("geoprivacy"); obscured ? quotedScratch(&out) { $0.ascii("obscured") } : out.null()
        out.key("obscured"); out.bool(obscured)
        out.key("place_guess"); out.string(damaged == .unicodeText ? detail.pick(SyntheticDamage.places) : place)
        out.key("description"); out.string(damaged == .unicodeText ? detail.pick(SyntheticDamage.descriptions) : description)
        out.key("license_code"); out.raw(user.observationLicense)
        out.key("taxon"); out.raw(taxon.json)
        out.key("user"); out.raw(user.json)

        // The same photos twice, as the API lists them: photos[], then observation_photos[].
        var photos: [(owner: Int, slot: Int, oldLicence: Bool)] = (0..<photoCount).map { (index, $0, oldLicences) }
        if let sharedPhoto {
            if photos.count == 3 { photos.removeLast() }
            photos.append((sharedPhoto, 0, oldLicences))
        }
        if damaged == .relicensedRepeat {
            // A photo of an earlier observation, shown again under its owner's other licence.
            photos.append((index - 1 - detail.below(min(index, 50)), 0, !oldLicences))
        }
        let textDimensions = damaged == .stringDimensions
        out.key("photos")
        if damaged == .photosNotAList {
            out.string("n/a")
        } else {
            out.beginArray()
            for (position, photo) in photos.enumerated() {
                writePhoto(photo.owner, photo.slot, oldLicence: photo.oldLicence, textDimensions: textDimensions && position == 0, into: &out)
            }
            out.endArray()
        }
        out.key("observation_photos")
        out.beginArray()
        for (position, photo) in photos.enumerated() {
            var linkRNG = SplitMix64(seed: world.seed, stream: SyntheticWorld.Stream.photo, index: UInt64(index * 4 + position) | 1 << 62)
            out.beginObject()
            out.key("id"); out.int(Self.observationPhotoBase + Int64(index) * 4 + Int64(position))
            out.key("position"); out.int(position)
            out.key("uuid"); quotedScratch(&out) { $0.uuid(&linkRNG) }
            out.key("photo_id"); out.int(Self.photoID(photo.owner, photo.slot))
            out.key("photo")
            writePhoto(photo.owner, photo.slot, oldLicence: photo.oldLicence, textDimensions: textDimensions && position == 0, into: &out)
            out.endObject()
        }
        out.endArray()

        out.key("identifications")
        out.beginArray()
        for number in 0..<(olderCopy ? 1 : identificationCount) {
            writeIdentification(index, number, observer: userIndex, taxon: taxonIndex, created: created, offset: offset, into: &out)
        }
        out.endArray()
        out.endObject()
    }

    static func photoID(_ observation: Int, _ slot: Int) -> Int64 {
        photoBase + Int64(observation) * 4 + Int64(slot)
    }

    /// Photo `slot` of observation `observation`: the same bytes wherever it appears (except
    /// that an older copy may show the licence its owner had before). `textDimensions` writes its
    /// `original_dimensions` as a `"2048x1536"` string (damage).
    private mutating func writePhoto(
        _ observation: Int, _ slot: Int, oldLicence: Bool, textDimensions: Bool = false, into out: inout JSONWriter
    ) {
        var rng = SplitMix64(seed: world.seed, stream: SyntheticWorld.Stream.photo, index: UInt64(observation * 4 + slot))
        let owner = world.users[self.owner(of: observation).user]
        let id = Self.photoID(observation, slot)
        let flickr = rng.chance(1, in: 100)
        let stamp = 1_300_000_000 + rng.below(430_000_000)
        out.beginObject()
        out.key("id"); out.int(id)
        out.key("license_code"); out.raw(oldLicence ? owner.previousPhotoLicense : owner.photoLicense)
        out.key("url")
        if flickr {
            let farm = rng.int(in: 1...9)
            let server = rng.int(in: 1...9999)
            let photo = rng.int(in: 100_000...9_999_999_999)
            let secret = rng.next()
            quotedScratch(&out) {
                $0.ascii("https://farm"); $0.int(Int64(farm)); $0.ascii(".staticflickr.com/"); $0.int(Int64(server))
                $0.byte(UInt8(ascii: "/")); $0.int(Int64(photo)); $0.byte(UInt8(ascii: "_")); $0.hex(secret, count: 10)
                $0.ascii("_s.jpg")
            }
        } else {
            quotedScratch(&out) {
                $0.ascii(owner.openData ? "https://inaturalist-open-data.s3.amazonaws.com/photos/" : "https://static.inaturalist.org/photos/")
                $0.int(id)
                $0.ascii("/square.jpg?")
                $0.int(Int64(stamp))
            }
        }
        out.key("attribution"); out.raw(oldLicence ? owner.previousPhotoAttribution : owner.photoAttribution)
        out.key("original_dimensions")
        if flickr {
            out.null()
        } else {
            let portrait = rng.chance(1, in: 4)
            let long = [2048, 2048, 2048, 1600, 1024][rng.below(5)]
            let aspect = [(3, 4), (3, 4), (9, 16), (2, 3), (1, 1)][rng.below(5)]
            let short = long * aspect.0 / aspect.1
            if textDimensions {
                out.string("\(portrait ? short : long)x\(portrait ? long : short)")
            } else {
                out.beginObject()
                out.key("width"); out.int(portrait ? short : long)
                out.key("height"); out.int(portrait ? long : short)
                out.endObject()
            }
        }
        out.key("flags"); out.beginArray(); out.endArray()
        out.endObject()
    }

    /// Identification `number` of observation `index`; the first is the observer's own.
    private mutating func writeIdentification(
        _ index: Int, _ number: Int, observer: Int, taxon observationTaxon: Int, created: Int64, offset: Int,
        into out: inout JSONWriter
    ) {
        var rng = SplitMix64(seed: world.seed, stream: SyntheticWorld.Stream.identification, index: UInt64(index * 4 + number))
        let userIndex = number == 0 ? observer : world.drawUser(&rng)
        let agrees = rng.chance(number == 0 ? 85 : 80, in: 100)
        let taxonIndex = agrees ? observationTaxon : world.drawTaxon(&rng)
        let taxon = world.taxa[taxonIndex]
        let at = created + Int64(number) * Int64(rng.below(5 * 86_400)) + Int64(rng.below(600))
        out.beginObject()
        out.key("id"); out.int(Self.identificationBase + Int64(index) * 4 + Int64(number))
        out.key("uuid"); quotedScratch(&out) { $0.uuid(&rng) }
        out.key("user"); out.raw(world.users[userIndex].json)
        out.key("created_at"); quotedScratch(&out) { $0.timestamp(at, offsetMinutes: offset) }
        out.key("category")
        quotedScratch(&out) { $0.ascii(number == 0 ? "leading" : agrees ? "supporting" : "maverick") }
        out.key("own_observation"); out.bool(number == 0)
        out.key("taxon_id"); out.int(taxon.id)
        out.key("taxon"); out.raw(taxon.identificationJSON)
        out.endObject()
    }

    /// Builds a piece in the scratch buffer and writes it as an already-encoded JSON value.
    @inline(__always)
    private mutating func rawScratch(_ out: inout JSONWriter, _ build: (inout ByteScratch) -> Void) {
        scratch.reset()
        build(&scratch)
        out.raw(scratch.bytes)
    }

    /// Builds ASCII text that needs no escaping in the scratch buffer and writes it quoted.
    @inline(__always)
    private mutating func quotedScratch(_ out: inout JSONWriter, _ build: (inout ByteScratch) -> Void) {
        scratch.reset()
        scratch.byte(UInt8(ascii: "\""))
        build(&scratch)
        scratch.byte(UInt8(ascii: "\""))
        out.raw(scratch.bytes)
    }
}

/// An index drawn by share: `shares[k]` out of their sum.
func pickShare(_ shares: [Int], _ rng: inout SplitMix64) -> Int {
    var roll = rng.below(shares.reduce(0, +))
    for (index, share) in shares.enumerated() {
        if roll < share { return index }
        roll -= share
    }
    return 0
}
