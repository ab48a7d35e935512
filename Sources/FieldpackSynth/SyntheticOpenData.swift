import CArchive
import FieldpackKit

/// Writes a deterministic synthetic iNaturalist open-data export of N observations, in the
/// export's real shape (INAT.md §4): the four tab-separated tables with their header rows, no
/// quoting, and the traps of the real files — duplicate photo rows (a photo in two
/// observations, about 0.1% of photos), `'` and `"` inside taxon and observer names, `None` and
/// empty observer names, `JPG` and `jpeg` beside `jpg`, photos without dimensions, observations
/// without coordinates, accuracy or date, inactive taxa, and the 2024-12 `anomaly_score` column.
///
/// Loose tables (`DIR/observations.csv`, …) or, with `tar`, one
/// `DIR/inaturalist-open-data-<date>.tar.gz` holding `inaturalist-open-data-<date>/<table>.csv`
/// as the real bundle does (written through libarchive). The same N and seed give the same bytes.
public struct SyntheticOpenData {
    public struct Options: Sendable {
        public var observations: Int
        public var seed: UInt64
        public var output: String
        public var tar = false
        /// `YYYYMMDD`, in the bundle's name.
        public var date = "20241127"

        public init(observations: Int, seed: UInt64, output: String) {
            self.observations = observations
            self.seed = seed
            self.output = output
        }
    }

    public struct Summary: Sendable {
        public var observations = 0
        public var photoRows = 0
        public var duplicatePhotoRows = 0
        public var taxa = 0
        public var observers = 0
        public var bytes = 0
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    static let tables = ["observations", "photos", "taxa", "observers"]
    static let licenses = ["CC-BY", "CC-BY", "CC-BY-NC", "CC-BY-NC", "CC-BY-NC", "CC-BY-SA", "CC-BY-NC-SA", "CC-BY-ND", "CC-BY-NC-ND", "CC0", "PD"]
    static let grades = ["research", "research", "research", "needs_id", "needs_id", "casual"]
    static let quotedNames = ["O'Brien", "Jean \"JJ\" Dupont", "d'Artagnan", "\"Birdy\""]

    public func run() throws -> Summary {
        let n = max(1, options.observations)
        try FileSystem.makeDirectories(options.output)
        let folder = options.tar ? "\(options.output)/.synth-open-data" : options.output
        try FileSystem.makeDirectories(folder)
        var summary = Summary()
        let taxa = max(10, n / 50)
        let observers = max(5, n / 20)
        try writeTaxa(taxa, to: "\(folder)/taxa.csv", summary: &summary)
        try writeObservers(observers, to: "\(folder)/observers.csv", summary: &summary)
        try writeObservations(n, taxa: taxa, observers: observers, folder: folder, summary: &summary)
        if options.tar {
            let name = "inaturalist-open-data-\(options.date)"
            summary.bytes = try Self.writeTar(
                "\(options.output)/\(name).tar.gz", folder: name, files: Self.tables.map { ("\($0).csv", "\(folder)/\($0).csv") })
            FileSystem.removeTree(folder)
        } else {
            summary.bytes = Self.tables.reduce(0) { $0 + (FileSystem.size("\(folder)/\($1).csv") ?? 0) }
        }
        return summary
    }

    /// Life, three kingdoms, genera (`genusID`), then species (`speciesID`), `/`-separated ancestry.
    private func writeTaxa(_ count: Int, to path: String, summary: inout Summary) throws {
        var rng = SplitMix64(seed: options.seed, stream: 0x7A7A, index: 0)
        let output = try AtomicOutput(path: path)
        var text = "taxon_id\tancestry\trank_level\trank\tname\tactive\n"
        text += "48460\t\t100\tstateofmatter\tLife\ttrue\n"
        let kingdoms: [(Int, String)] = [(1, "Animalia"), (47126, "Plantae"), (47170, "Fungi")]
        for (id, name) in kingdoms { text += "\(id)\t48460\t70\tkingdom\t\(name)\ttrue\n" }
        let genera = max(1, count / 5)
        for genus in 0..<genera {
            let kingdom = kingdoms[genus % kingdoms.count].0
            text += "\(Self.genusID(genus, species: count))\t48460/\(kingdom)\t20\tgenus\t\(SyntheticWorld.latinName(&rng, endings: SyntheticVocabulary.genusEndings, capitalized: true))\ttrue\n"
        }
        for species in 0..<count {
            let genus = species % genera
            let kingdom = kingdoms[genus % kingdoms.count].0
            var name = "\(SyntheticWorld.latinName(&rng, endings: SyntheticVocabulary.genusEndings, capitalized: true)) \(SyntheticWorld.latinName(&rng, endings: SyntheticVocabulary.epithetEndings, capitalized: false))"
            // Cultivar and informal names carry quotes, which the export does not escape.
            if rng.chance(1, in: 40) { name += " 'Aurea'" } else if rng.chance(1, in: 80) { name += " \"sp. A\"" }
            let active = rng.chance(1, in: 50) ? "false" : "true"
            text += "\(Self.speciesID(species))\t48460/\(kingdom)/\(Self.genusID(genus, species: count))\t10\tspecies\t\(name)\t\(active)\n"
            if text.utf8.count > 1 << 20 { try output.write(text); text = "" }
        }
        try output.write(text)
        try output.commit(durable: false)
        summary.taxa = 4 + genera + count
    }

    static func speciesID(_ index: Int) -> Int { 300_000 + index }

    /// The id of genus `index` of an export with `species` species: 200000 + k while that stays
    /// below the species' ids (the first 100,000 genera, an export of up to 25M observations,
    /// whose bytes are as they always were), then past the last species' id. Until 2026-12-07
    /// every genus was 200000 + k, so past 25M observations genus k and species k − 100000 had
    /// one id, and the taxa table gave that id on both sides of a taxon rule: ingest then leaves
    /// the rule to the bundle (`ExportTaxa`), and the benchmark at iNaturalist's size measured
    /// that fallback instead of the export path.
    static func genusID(_ index: Int, species: Int) -> Int {
        let below = speciesID(0) - 200_000
        return index < below ? 200_000 + index : speciesID(species) + (index - below)
    }

    private func writeObservers(_ count: Int, to path: String, summary: inout Summary) throws {
        var rng = SplitMix64(seed: options.seed, stream: 0x0B5E, index: 0)
        let output = try AtomicOutput(path: path)
        var text = "observer_id\tlogin\tname\n"
        for index in 0..<count {
            let name: String
            switch rng.below(20) {
            case 0..<6: name = "None"  // Python-written exports
            case 6..<8: name = ""
            case 8: name = rng.pick(Self.quotedNames)
            default: name = "\(rng.pick(SyntheticVocabulary.firstNames)) \(rng.pick(SyntheticVocabulary.lastNames))"
            }
            text += "\(index + 1)\tobserver_\(index + 1)\t\(name)\n"
            if text.utf8.count > 1 << 20 { try output.write(text); text = "" }
        }
        try output.write(text)
        try output.commit(durable: false)
        summary.observers = count
    }

    private func writeObservations(_ count: Int, taxa: Int, observers: Int, folder: String, summary: inout Summary) throws {
        let observationsFile = try AtomicOutput(path: "\(folder)/observations.csv")
        let photosFile = try AtomicOutput(path: "\(folder)/photos.csv")
        var observations = "observation_uuid\tobserver_id\tlatitude\tlongitude\tpositional_accuracy\ttaxon_id\tquality_grade\tobserved_on\tanomaly_score\n"
        var photos = "photo_uuid\tphoto_id\tobservation_uuid\tobserver_id\textension\tlicense\twidth\theight\tposition\n"
        let popularity = ZipfTable(count: taxa, flatten: 8)
        var nextPhoto = 1_000_000
        var previousUUID = ""
        for index in 0..<count {
            var rng = SplitMix64(seed: options.seed, stream: 0x0B50, index: UInt64(index))
            let uuid = Self.uuid(&rng)
            let observer = rng.below(observers) + 1
            let coordinates = rng.chance(1, in: 20)
                ? "\t" : "\(Self.decimal(rng.int(in: -60_000_000...70_000_000)))\t\(Self.decimal(rng.int(in: -179_000_000...179_000_000)))"
            let accuracy = rng.chance(3, in: 5) ? "" : String(rng.int(in: 1...5000))
            let taxon = Self.speciesID(popularity.draw(&rng))
            let date = rng.chance(1, in: 30) ? "" : "20\(10 + rng.below(15))-\(Self.two(1 + rng.below(12)))-\(Self.two(1 + rng.below(28)))"
            let anomaly = rng.chance(1, in: 4) ? "" : "0.\(rng.below(1000))"
            observations += "\(uuid)\t\(observer)\t\(coordinates)\t\(accuracy)\t\(taxon)\t\(rng.pick(Self.grades))\t\(date)\t\(anomaly)\n"
            summary.observations += 1
            // 0-4 photos, about 1.7 on average.
            let photoCount = [0, 1, 1, 1, 2, 2, 2, 3, 3, 4][rng.below(10)]
            for position in 0..<photoCount {
                let photo = nextPhoto
                nextPhoto += 1
                let photoUUID = Self.uuid(&rng)
                let fileExtension = ["jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "jpg", "JPG", "jpeg", "png"][rng.below(14)]
                let size = rng.chance(1, in: 20)
                    ? "\t" : (rng.chance(1, in: 2) ? "2048\t\(rng.int(in: 900...2048))" : "\(rng.int(in: 100...2048))\t2048")
                let row = "\(photoUUID)\t\(photo)\t\(uuid)\t\(observer)\t\(fileExtension)\t\(rng.pick(Self.licenses))\t\(size)\t\(position)\n"
                photos += row
                summary.photoRows += 1
                // A photo attached to a second observation: the same photo row again, linked to
                // the previous observation (one row per link).
                if !previousUUID.isEmpty && rng.chance(1, in: 1000) {
                    photos += "\(photoUUID)\t\(photo)\t\(previousUUID)\t\(observer)\t\(fileExtension)\t\(rng.pick(Self.licenses))\t\(size)\t\(position + 5)\n"
                    summary.photoRows += 1
                    summary.duplicatePhotoRows += 1
                }
            }
            previousUUID = uuid
            if observations.utf8.count > 1 << 20 { try observationsFile.write(observations); observations = "" }
            if photos.utf8.count > 1 << 20 { try photosFile.write(photos); photos = "" }
        }
        try observationsFile.write(observations)
        try photosFile.write(photos)
        try observationsFile.commit(durable: false)
        try photosFile.commit(durable: false)
    }

    /// A version-4 uuid in lower case.
    static func uuid(_ rng: inout SplitMix64) -> String {
        let high = rng.next()
        let low = rng.next()
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        for index in 0..<32 {
            var nibble = Int(index < 16 ? (high >> UInt64(60 - 4 * index)) & 0xF : (low >> UInt64(60 - 4 * (index - 16))) & 0xF)
            if index == 12 { nibble = 4 }
            if index == 16 { nibble = 8 | (nibble & 3) }
            if index == 8 || index == 12 || index == 16 || index == 20 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(hex[nibble])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Millionths of a degree as the export writes coordinates (10 decimals).
    static func decimal(_ millionths: Int) -> String {
        let sign = millionths < 0 ? "-" : ""
        let magnitude = abs(millionths)
        let fraction = String(magnitude % 1_000_000)
        return "\(sign)\(magnitude / 1_000_000).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)0000"
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// Writes `files` (member name, path) into a gzip-compressed ustar archive under `folder/`,
    /// streaming each file; returns the archive's size.
    static func writeTar(_ path: String, folder: String, files: [(String, String)]) throws -> Int {
        let temporary = "\(path).tmp"
        guard let archive = archive_write_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
        defer { archive_write_free(archive) }
        func check(_ status: Int32) throws {
            if status != ARCHIVE_OK {
                throw FieldpackError(path: path, archive_error_string(archive).map { String(cString: $0) } ?? "libarchive error")
            }
        }
        try check(archive_write_add_filter_gzip(archive))
        // No time in the gzip header: the same export gives the same bytes.
        try check(archive_write_set_filter_option(archive, "gzip", "timestamp", nil))
        try check(archive_write_set_format_ustar(archive))
        try check(archive_write_open_filename(archive, temporary))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for (name, source) in files {
            guard let entry = archive_entry_new() else { throw FieldpackError(path: path, "libarchive: out of memory") }
            defer { archive_entry_free(entry) }
            archive_entry_set_pathname(entry, "\(folder)/\(name)")
            archive_entry_set_size(entry, Int64(FileSystem.size(source) ?? 0))
            archive_entry_set_filetype(entry, 0o100000)
            archive_entry_set_perm(entry, 0o644)
            archive_entry_set_mtime(entry, 0, 0)
            try check(archive_write_header(archive, entry))
            let file = try ReadableFile(path: source)
            while true {
                let got = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
                if got == 0 { break }
                let written = buffer.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, got) }
                if written != got { try check(ARCHIVE_FATAL) }
            }
        }
        try check(archive_write_close(archive))
        try FileSystem.rename(temporary, to: path)
        return FileSystem.size(path) ?? 0
    }
}
