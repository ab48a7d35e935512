import FieldpackKit
/// The taxa and users a synthetic dump's observations share, each encoded to JSON once.
///
/// Every taxon and user is a pure function of the seed and its index, so the world is the same
/// for the same seed and sizes. Observations pick taxa and users with Zipf-like popularity
/// (a few very common, a long tail), through a fixed permutation so that popular ids are spread
/// over the id range.
struct SyntheticWorld: Sendable {
    /// A taxon as observations embed it.
    struct Taxon: Sendable {
        var id: Int64
        /// The whole `taxon` object of an observation, with its `default_photo`.
        var json: [UInt8]
        /// The smaller `taxon` object of an identification.
        var identificationJSON: [UInt8]
    }

    /// A user as observations and identifications embed them.
    struct User: Sendable {
        var id: Int64
        var json: [UInt8]
        /// How the user licenses observations and photos (a JSON string or null).
        var observationLicense: [UInt8]
        var photoLicense: [UInt8]
        var photoAttribution: [UInt8]
        /// What the photo licence was before the user changed it (for older copies).
        var previousPhotoLicense: [UInt8]
        var previousPhotoAttribution: [UInt8]
        /// True if photos go to the open-data bucket (any Creative Commons licence).
        var openData: Bool
        /// The name attributions use: the user's name, else the login.
        var owner: String
    }

    /// A licence the way the API writes it: `license_code` and the text in attributions.
    struct License {
        var code: String?
        var label: String
    }

    static let licenses: [(License, share: Int)] = [
        (License(code: "cc-by-nc", label: "CC BY-NC"), 52),
        (License(code: "cc-by", label: "CC BY"), 14),
        (License(code: "cc0", label: "CC0"), 8),
        (License(code: "cc-by-sa", label: "CC BY-SA"), 5),
        (License(code: "cc-by-nc-sa", label: "CC BY-NC-SA"), 5),
        (License(code: "cc-by-nd", label: "CC BY-ND"), 2),
        (License(code: "cc-by-nc-nd", label: "CC BY-NC-ND"), 4),
        (License(code: nil, label: ""), 10),
    ]

    let seed: UInt64
    let taxa: [Taxon]
    let users: [User]
    let taxonPopularity: ZipfTable
    let userPopularity: ZipfTable
    private let taxonStride: Int
    private let userStride: Int

    /// Streams (see `SplitMix64.init(seed:stream:index:)`): one constant per kind of thing.
    enum Stream {
        static let taxon: UInt64 = 1
        static let genus: UInt64 = 2
        static let user: UInt64 = 3
        static let layout: UInt64 = 4
        static let observation: UInt64 = 5
        static let observationUser: UInt64 = 6
        static let photo: UInt64 = 7
        static let identification: UInt64 = 8
    }

    /// `damage` gives some users names from `SyntheticDamage.names`; the rest are unchanged.
    init(seed: UInt64, taxa taxonCount: Int, users userCount: Int, damage: Bool = false) {
        self.seed = seed
        taxonPopularity = ZipfTable(count: taxonCount, flatten: 30)
        userPopularity = ZipfTable(count: userCount, flatten: 20)
        taxonStride = Self.coprimeStride(for: taxonCount)
        userStride = Self.coprimeStride(for: userCount)
        var users: [User] = []
        users.reserveCapacity(userCount)
        for index in 0..<userCount { users.append(Self.makeUser(index, seed: seed, damage: damage)) }
        self.users = users
        var taxa: [Taxon] = []
        taxa.reserveCapacity(taxonCount)
        for index in 0..<taxonCount { taxa.append(Self.makeTaxon(index, seed: seed, users: users)) }
        self.taxa = taxa
    }

    /// A popular-first draw of a taxon index.
    func drawTaxon(_ rng: inout SplitMix64) -> Int {
        taxonPopularity.draw(&rng) * taxonStride % taxa.count
    }

    /// A popular-first draw of a user index.
    func drawUser(_ rng: inout SplitMix64) -> Int {
        userPopularity.draw(&rng) * userStride % users.count
    }

    /// A prime that does not divide `count`, so `rank * stride % count` permutes `0..<count`.
    private static func coprimeStride(for count: Int) -> Int {
        for prime in [7919, 7927, 7933] where count % prime != 0 { return prime }
        return 1
    }

    // MARK: - Users

    private static func makeUser(_ index: Int, seed: UInt64, damage: Bool) -> User {
        var rng = SplitMix64(seed: seed, stream: Stream.user, index: UInt64(index))
        let vocabulary = SyntheticVocabulary.self
        let id = Int64(1000 + index * 97 + rng.below(97))
        var login = rng.pick(vocabulary.handles)
        login += rng.chance(1, in: 2) ? "_" : ""
        login += String(index, radix: 36)
        var name: String? = nil
        if rng.chance(65, in: 100) {
            name = rng.chance(4, in: 100)
                ? rng.pick(vocabulary.fullNames) : "\(rng.pick(vocabulary.firstNames)) \(rng.pick(vocabulary.lastNames))"
        }
        if damage, let damaged = SyntheticDamage.userName(seed: seed, index: index) { name = damaged }
        let iconStamp = 1_400_000_000 + rng.below(300_000_000)
        let hasIcon = rng.chance(6, in: 10)
        let observationsCount = rng.chance(1, in: 20) ? rng.int(in: 1000...90_000) : rng.int(in: 1...999)
        let photoLicense = pickLicense(&rng)
        let observationLicense = rng.chance(9, in: 10) ? photoLicense : pickLicense(&rng)
        let previous = photoLicense.code == "cc-by-nc" ? License(code: "cc-by", label: "CC BY") : License(code: "cc-by-nc", label: "CC BY-NC")

        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("id"); writer.int(id)
        writer.key("login"); writer.string(login)
        writer.key("name"); writer.string(name)
        writer.key("icon_url")
        writer.string(hasIcon ? "https://static.inaturalist.org/attachments/users/icons/\(id)/thumb.jpg?\(iconStamp)" : nil)
        writer.key("observations_count"); writer.int(observationsCount)
        writer.endObject()
        let owner = name ?? login
        return User(
            id: id, json: writer.bytes,
            observationLicense: licenseJSON(observationLicense),
            photoLicense: licenseJSON(photoLicense),
            photoAttribution: jsonQuoted(attribution(owner, photoLicense, phrase: "some rights reserved")),
            previousPhotoLicense: licenseJSON(previous),
            previousPhotoAttribution: jsonQuoted(attribution(owner, previous, phrase: "some rights reserved")),
            openData: photoLicense.code != nil, owner: owner)
    }

    static func pickLicense(_ rng: inout SplitMix64) -> License {
        var roll = rng.below(100)
        for (license, share) in licenses {
            if roll < share { return license }
            roll -= share
        }
        return licenses[0].0
    }

    static func licenseJSON(_ license: License) -> [UInt8] {
        license.code.map(jsonQuoted) ?? Array("null".utf8)
    }

    /// `(c) Anna Smith, some rights reserved (CC BY-NC)`, `no rights reserved`, or all rights reserved.
    static func attribution(_ owner: String, _ license: License, phrase: String) -> String {
        switch license.code {
        case nil: return "(c) \(owner), all rights reserved"
        case "cc0": return "\(owner), no rights reserved (CC0)"
        default: return "(c) \(owner), \(phrase) (\(license.label))"
        }
    }

    // MARK: - Taxa

    private enum Rank {
        case species, subspecies, genus, complex, family

        var name: String {
            switch self {
            case .species: return "species"
            case .subspecies: return "subspecies"
            case .genus: return "genus"
            case .complex: return "complex"
            case .family: return "family"
            }
        }

        var level: Int {
            switch self {
            case .species: return 10
            case .subspecies: return 5
            case .genus: return 20
            case .complex: return 11
            case .family: return 30
            }
        }
    }

    private static func makeTaxon(_ index: Int, seed: UInt64, users: [User]) -> Taxon {
        let vocabulary = SyntheticVocabulary.self
        // About six taxa per genus, five genera per family, eight families per order.
        let genus = index / 6
        var genusRNG = SplitMix64(seed: seed, stream: Stream.genus, index: UInt64(genus))
        let groupIndex = pickShare(vocabulary.groupShares, &genusRNG)
        let group = vocabulary.groups[groupIndex]
        let family = genus / 5
        let order = family / 8
        var familyRNG = SplitMix64(seed: seed, stream: Stream.genus, index: UInt64(1 << 40 | family))
        let genusName = latinName(&genusRNG, endings: vocabulary.genusEndings, capitalized: true)
        let familyName = latinStem(&familyRNG).capitalizedFirst + group.familySuffix

        var rng = SplitMix64(seed: seed, stream: Stream.taxon, index: UInt64(index))
        let id = Int64(40_000 + index * 17 + rng.below(17))
        let rankRoll = rng.below(100)
        let rank: Rank = rankRoll < 84 ? .species : rankRoll < 90 ? .subspecies : rankRoll < 96 ? .genus : rankRoll < 98 ? .complex : .family

        let orderID = Int64(3_000_000 + order)
        let familyID = Int64(3_100_000 + family)
        let genusID = Int64(3_500_000 + genus)
        var ancestors = group.ancestors + [group.id, orderID, familyID]
        let name: String
        switch rank {
        case .family:
            ancestors.removeLast()
            name = familyName
        case .genus:
            name = genusName
        case .species, .complex:
            ancestors.append(genusID)
            name = "\(genusName) \(latinName(&rng, endings: vocabulary.epithetEndings, capitalized: false))"
        case .subspecies:
            ancestors.append(genusID)
            ancestors.append(Int64(4_000_000 + index))
            let epithet = latinName(&rng, endings: vocabulary.epithetEndings, capitalized: false)
            name = "\(genusName) \(epithet) \(latinName(&rng, endings: vocabulary.epithetEndings, capitalized: false))"
        }
        var commonName: String? = nil
        let commonRoll = rng.below(100)
        if commonRoll < 3 {
            commonName = rng.pick(vocabulary.foreignCommonNames)
        } else if commonRoll < 70 {
            commonName = "\(rng.pick(vocabulary.adjectives)) \(rng.pick(group.nouns))"
        }
        let wikipedia = rng.chance(6, in: 10) ? "http://en.wikipedia.org/wiki/\(name.replacingOccurrences(of: " ", with: "_"))" : nil
        let isActive = !rng.chance(1, in: 100)
        let ancestry = ancestors.map(String.init).joined(separator: "/")
        let photo = defaultPhoto(index, rng: &rng, users: users)

        var writer = JSONWriter(capacity: 1024)
        func common(_ writer: inout JSONWriter, full: Bool) {
            writer.beginObject()
            writer.key("id"); writer.int(id)
            writer.key("name"); writer.string(name)
            writer.key("rank"); writer.string(rank.name)
            writer.key("rank_level"); writer.int(rank.level)
            if full {
                writer.key("ancestry"); writer.string(ancestry)
                writer.key("ancestor_ids")
                writer.beginArray()
                for ancestor in ancestors { writer.int(ancestor) }
                writer.int(id)
                writer.endArray()
            }
            writer.key("iconic_taxon_name"); writer.string(group.name)
            writer.key("is_active"); writer.bool(isActive)
            if full { writer.key("wikipedia_url"); writer.string(wikipedia) }
            if let commonName { writer.key("preferred_common_name"); writer.string(commonName) }
            writer.key("default_photo")
            writer.raw(full ? photo.full : photo.short)
            writer.endObject()
        }
        common(&writer, full: true)
        let json = writer.bytes
        writer.reset()
        common(&writer, full: false)
        let identificationJSON = writer.bytes
        return Taxon(id: id, json: json, identificationJSON: identificationJSON)
    }

    /// A taxon's default photo, full (with `square_url` and `medium_url`) and short.
    ///
    /// Its owner is some user; about 3% are old Flickr photos with no dimensions.
    private static func defaultPhoto(_ index: Int, rng: inout SplitMix64, users: [User]) -> (full: [UInt8], short: [UInt8]) {
        let photoID = Int64(1_000_000 + index * 37 + rng.below(37))
        let owner = users[rng.below(users.count)].owner
        let license = pickLicense(&rng)
        let phrase = rng.pick(SyntheticVocabulary.someRightsReserved)
        let attribution = attribution(owner, license, phrase: phrase)
        let url: String
        let medium: String
        let dimensions: (Int, Int)?
        if rng.chance(3, in: 100) {
            let base = "https://farm\(rng.int(in: 1...9)).staticflickr.com/\(rng.int(in: 1...9999))/\(rng.int(in: 100_000...9_999_999_999))_\(String(rng.next() >> 24, radix: 16))"
            url = base + "_s.jpg"
            medium = base + ".jpg"
            dimensions = nil
        } else {
            let stamp = 1_300_000_000 + rng.below(400_000_000)
            let host = license.code == nil
                ? "https://static.inaturalist.org/photos" : "https://inaturalist-open-data.s3.amazonaws.com/photos"
            url = "\(host)/\(photoID)/square.jpg?\(stamp)"
            medium = "\(host)/\(photoID)/medium.jpg?\(stamp)"
            dimensions = (2048, [1536, 1365, 2048, 1152, 1638][rng.below(5)])
        }
        var writer = JSONWriter(capacity: 512)
        func write(_ writer: inout JSONWriter, full: Bool) {
            writer.beginObject()
            writer.key("id"); writer.int(photoID)
            writer.key("license_code"); writer.string(license.code)
            writer.key("url"); writer.string(url)
            writer.key("attribution"); writer.string(attribution)
            writer.key("original_dimensions")
            if let dimensions {
                writer.beginObject()
                writer.key("width"); writer.int(dimensions.0)
                writer.key("height"); writer.int(dimensions.1)
                writer.endObject()
            } else {
                writer.null()
            }
            writer.key("flags"); writer.beginArray(); writer.endArray()
            if full {
                writer.key("square_url"); writer.string(url)
                writer.key("medium_url"); writer.string(medium)
            }
            writer.endObject()
        }
        write(&writer, full: true)
        let full = writer.bytes
        writer.reset()
        write(&writer, full: false)
        return (full, writer.bytes)
    }

    static func latinStem(_ rng: inout SplitMix64) -> String {
        var stem = rng.pick(SyntheticVocabulary.syllables) + rng.pick(SyntheticVocabulary.syllables)
        if rng.chance(1, in: 2) { stem += rng.pick(SyntheticVocabulary.syllables) }
        return stem
    }

    static func latinName(_ rng: inout SplitMix64, endings: [String], capitalized: Bool) -> String {
        let word = latinStem(&rng) + rng.pick(endings)
        return capitalized ? word.capitalizedFirst : word
    }
}

extension String {
    var capitalizedFirst: String {
        guard let first = first else { return self }
        return first.uppercased() + dropFirst()
    }
}
