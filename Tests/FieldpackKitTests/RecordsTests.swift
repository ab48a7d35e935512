import FieldpackKit
import FieldpackTestSupport
import Foundation
import Testing

/// Strings held as `JSONText`, the way ingest holds them: pointing into a parsed document.
private final class ParsedStrings {
    private let parser = JSONParser()
    private let document: PaddedBuffer
    private var texts: [String: JSONText] = [:]

    init(_ strings: [String]) throws {
        var writer = JSONWriter()
        writer.beginArray()
        for string in strings { writer.string(string) }
        writer.endArray()
        document = PaddedBuffer(copying: writer.bytes)
        let root = try parser.parse(document)
        for (string, value) in zip(strings, root.elements) { texts[string] = value.text }
    }

    subscript(_ string: String) -> JSONText { texts[string]! }
}

/// What a column of an encoded record must hold.
private enum Cell {
    case integer(Int64), real(Double), text(String), bool(Bool), null
    /// A list, as compact JSON.
    case json(String)
}

/// One record kind's column layout, read from its `Column` enum.
struct Layout: Sendable, CustomTestStringConvertible {
    var name: String
    var tag: String
    var kind: RecordKind
    /// The raw values of `allCases`, ascending.
    var positions: [Int]
    /// The raw values `inOrder` visits, and `ordered`'s.
    var visited: [Int]
    var ordered: [Int]
    /// Whether each column (in record order) is an occurrence column.
    var occurrence: [Bool]
    var idPosition: Int?

    var testDescription: String { name }

    init<C: RecordColumnSet>(_ name: String, _ columns: C.Type, tag: String, id: C?) {
        self.name = name
        self.tag = tag
        kind = C.kind
        positions = C.allCases.map(\.rawValue).sorted()
        var visited: [Int] = []
        C.inOrder { visited.append($0.rawValue) }
        self.visited = visited
        ordered = C.ordered.map(\.rawValue)
        occurrence = C.ordered.map(\.spec.occurrence)
        idPosition = id?.rawValue
    }
}

@Suite struct RecordsTests {
    static let layouts = [
        Layout("ObservationRecord", ObservationRecord.Column.self, tag: "obs", id: .id),
        Layout("UserRecord", UserRecord.Column.self, tag: "user", id: .id),
        Layout("TaxonRecord", TaxonRecord.Column.self, tag: "taxon", id: .id),
        Layout("PhotoRecord", PhotoRecord.Column.self, tag: "photo", id: .id),
        Layout("InputRecord", InputRecord.Column.self, tag: "input", id: nil),
        Layout("DedupedInputRecord", DedupedInputRecord.Column.self, tag: "input", id: nil),
        Layout("DedupedSelectionRecord", DedupedSelectionRecord.Column.self, tag: "select", id: nil),
    ]

    // MARK: Column tables

    @Test(arguments: layouts)
    func positionsRunFromOneWithoutGaps(layout: Layout) {
        #expect(layout.positions == Array(1...layout.positions.count))
        #expect(layout.visited == layout.positions)
        #expect(layout.ordered == layout.positions)
    }

    @Test(arguments: layouts)
    func theIdIsAtPositionOne(layout: Layout) {
        if let id = layout.idPosition { #expect(id == 1) }
    }

    @Test(arguments: layouts)
    func occurrenceColumnsComeLast(layout: Layout) {
        let afterFirstOccurrence = layout.occurrence.drop { !$0 }
        #expect(!afterFirstOccurrence.contains(false))
    }

    @Test(arguments: layouts)
    func eachColumnSetNamesItsKind(layout: Layout) {
        #expect(layout.kind.name == layout.tag)
    }

    @Test func occurrenceColumnsAreTheOnesThatSayWhereACopyWasSeen() {
        #expect(ObservationRecord.Column.ordered.filter(\.spec.occurrence) == [.seen])
        #expect(UserRecord.Column.ordered.filter(\.spec.occurrence) == [.seen])
        #expect(TaxonRecord.Column.ordered.filter(\.spec.occurrence) == [.seen])
        #expect(PhotoRecord.Column.ordered.filter(\.spec.occurrence) == [.seen, .observation, .observer])
        #expect(InputRecord.Column.ordered.filter(\.spec.occurrence).isEmpty)
    }

    // MARK: Encoding, read back

    /// Parses the one line `writer` holds and checks every column of kind `C` against `expected`,
    /// then the source (if any) after them.
    private func expectLine<C: RecordColumnSet & Hashable>(
        _ writer: JSONWriter, _ columns: C.Type, _ expected: [C: Cell], source: String?,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(Set(expected.keys) == Set(C.allCases), "every column has an expected value", sourceLocation: sourceLocation)
        let bytes = writer.bytes
        #expect(bytes.last == UInt8(ascii: "\n"), sourceLocation: sourceLocation)
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 1, sourceLocation: sourceLocation)
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: bytes)
        var record = JSONColumns()
        let loaded = record.load(try parser.parse(buffer))
        #expect(loaded, sourceLocation: sourceLocation)
        #expect(record.count == C.allCases.count + 1 + (source == nil ? 0 : 1), sourceLocation: sourceLocation)
        #expect(record.string(0) == C.kind.name, sourceLocation: sourceLocation)
        for column in C.ordered {
            let place = "column \(column) at \(column.rawValue)"
            switch expected[column] {
            case .integer(let value)?: #expect(record.int64(column) == value, "\(place)", sourceLocation: sourceLocation)
            case .real(let value)?: #expect(record.double(column) == value, "\(place)", sourceLocation: sourceLocation)
            case .text(let value)?: #expect(record.string(column) == value, "\(place)", sourceLocation: sourceLocation)
            case .bool(let value)?: #expect(record.bool(column) == value, "\(place)", sourceLocation: sourceLocation)
            case .null?: #expect(record[column] == nil, "\(place)", sourceLocation: sourceLocation)
            case .json(let value)?:
                var copy = JSONWriter()
                if let list = record[column] { copy.value(list) }
                #expect(String(decoding: copy.bytes, as: UTF8.self) == value, "\(place)", sourceLocation: sourceLocation)
            case nil: break
            }
            // Each value's JSON type is the one its column's spec declares.
            guard let value = record[column] else { continue }
            let kinds: [JSONValue.Kind] = switch column.spec.value {
            case .integer: [.integer]
            case .real: [.double, .integer]
            case .text: [.string]
            case .bool: [.bool]
            case .list: [.array]
            }
            #expect(kinds.contains(value.kind), "\(place) is \(value.kind)", sourceLocation: sourceLocation)
        }
        if let source {
            #expect(record.string(C.allCases.count + 1) == source, sourceLocation: sourceLocation)
        }
    }

    /// The bytes from `start` to the end of the line.
    private func tail(_ writer: JSONWriter, from start: Int) -> String {
        String(decoding: writer.bytes[start...], as: UTF8.self)
    }

    @Test func anObservationReadsBackColumnByColumn() throws {
        let strings = try ParsedStrings([
            "uuid-102", "research", "2024-04-30", "2024-04-30T09:15:00Z", "2024-04-30T10:00:00+00:00",
            "2024-05-01T10:00:00+00:00", "obscured", "private", "Bois de la Cambre, \"Bruxelles\"", "CC-BY-NC",
        ])
        var observation = ObservationRecord(id: 101)
        observation.uuid = strings["uuid-102"]
        observation.user = 103
        observation.taxon = 104
        observation.qualityGrade = strings["research"]
        observation.observedOn = strings["2024-04-30"]
        observation.timeObservedAt = strings["2024-04-30T09:15:00Z"]
        observation.createdAt = strings["2024-04-30T10:00:00+00:00"]
        observation.updatedAt = strings["2024-05-01T10:00:00+00:00"]
        observation.latitude = 50.5
        observation.longitude = -4.25
        observation.positionalAccuracy = 112
        observation.geoprivacy = strings["obscured"]
        observation.obscured = true
        observation.taxonGeoprivacy = strings["private"]
        observation.placeGuess = strings["Bois de la Cambre, \"Bruxelles\""]
        observation.license = strings["CC-BY-NC"]
        observation.photos = [(photo: 117, position: 0), (photo: 118, position: 1)]
        observation.seen = 1_714_557_600_000
        var writer = JSONWriter()
        observation.encode(into: &writer, source: "3#4")
        try expectLine(writer, ObservationRecord.Column.self, [
            .id: .integer(101), .uuid: .text("uuid-102"), .user: .integer(103), .taxon: .integer(104),
            .qualityGrade: .text("research"), .observedOn: .text("2024-04-30"),
            .timeObservedAt: .text("2024-04-30T09:15:00Z"), .createdAt: .text("2024-04-30T10:00:00+00:00"),
            .updatedAt: .text("2024-05-01T10:00:00+00:00"), .latitude: .real(50.5), .longitude: .real(-4.25),
            .positionalAccuracy: .integer(112), .geoprivacy: .text("obscured"), .obscured: .bool(true),
            .taxonGeoprivacy: .text("private"), .placeGuess: .text("Bois de la Cambre, \"Bruxelles\""), .license: .text("cc-by-nc"),
            .photos: .json("[[117,0],[118,1]]"), .unknown: .null, .part: .null, .seen: .integer(1_714_557_600_000),
        ], source: "3#4")
    }

    /// The app addresses an observation without an API id by its uuid, a case-sensitive text:
    /// stored as the winning copy spelt it, one observation's address changed between builds.
    @Test func anObservationsUUIDIsWrittenInLowerCaseAndOtherTextAsItCame() throws {
        let strings = try ParsedStrings(["C41E8B07-9D3A-4F12-B6E8-0A7C5D2F9B34", "uuid-ABC", "c41e8b07-9d3a-4f12-b6e8-0a7c5d2f9b34"])
        for (given, written) in [
            ("C41E8B07-9D3A-4F12-B6E8-0A7C5D2F9B34", "c41e8b07-9d3a-4f12-b6e8-0a7c5d2f9b34"),
            ("c41e8b07-9d3a-4f12-b6e8-0a7c5d2f9b34", "c41e8b07-9d3a-4f12-b6e8-0a7c5d2f9b34"),
            ("uuid-ABC", "uuid-ABC"),
        ] {
            var observation = ObservationRecord(id: 7)
            observation.uuid = strings[given]
            var writer = JSONWriter()
            observation.encode(into: &writer, source: "0:1")
            let line = String(decoding: writer.bytes, as: UTF8.self)
            #expect(line.hasPrefix("[\"obs\",7,\"\(written)\","), "\(line)")
        }
    }

    @Test func anObservationWithOnlyAnIdHasNullsAndAnEmptyPhotoList() throws {
        var writer = JSONWriter()
        ObservationRecord(id: 5).encode(into: &writer, source: "0:1")
        var expected = Dictionary(uniqueKeysWithValues: ObservationRecord.Column.allCases.map { ($0, Cell.null) })
        expected[.id] = .integer(5)
        expected[.photos] = .json("[]")
        try expectLine(writer, ObservationRecord.Column.self, expected, source: "0:1")
    }

    @Test func aUserReadsBackAndSaysWhereItsOccurrenceColumnsBegin() throws {
        let strings = try ParsedStrings(["zoe", "Zoë Brontë"])
        var user = UserRecord(id: 401)
        user.login = strings["zoe"]
        user.name = strings["Zoë Brontë"]
        user.seen = 404
        var writer = JSONWriter()
        let occurrenceStart = user.encode(into: &writer, source: "1#0")
        try expectLine(writer, UserRecord.Column.self, [
            .id: .integer(401), .login: .text("zoe"), .name: .text("Zoë Brontë"), .seen: .integer(404),
        ], source: "1#0")
        #expect(tail(writer, from: occurrenceStart) == ",404,\"1#0\"]\n")
    }

    @Test func aTaxonFromTheTaxaEndpointReadsBack() throws {
        let strings = try ParsedStrings([
            "Danaus plexippus", "species", "Insecta", "Monarque", "http://en.wikipedia.org/wiki/Monarch_butterfly",
        ])
        var taxon = TaxonRecord(id: 201, from: .taxa, name: strings["Danaus plexippus"])
        taxon.rank = strings["species"]
        taxon.rankLevel = 5.5
        taxon.ancestry = "48460/1/47120"
        taxon.iconicTaxonName = strings["Insecta"]
        taxon.preferredCommonName = strings["Monarque"]
        taxon.wikipediaURL = strings["http://en.wikipedia.org/wiki/Monarch_butterfly"]
        taxon.isActive = false
        taxon.defaultPhoto = 210
        taxon.photos = [211, 212]
        taxon.speciesCount = 12
        taxon.seen = 213
        var writer = JSONWriter()
        let occurrenceStart = taxon.encode(into: &writer, source: "2#7")
        try expectLine(writer, TaxonRecord.Column.self, [
            .id: .integer(201), .from: .text("taxa"), .name: .text("Danaus plexippus"), .rank: .text("species"),
            .rankLevel: .real(5.5), .ancestry: .text("48460/1/47120"), .iconicTaxonName: .text("Insecta"),
            .preferredCommonName: .text("Monarque"),
            .wikipediaURL: .text("http://en.wikipedia.org/wiki/Monarch_butterfly"), .isActive: .bool(false),
            .defaultPhoto: .integer(210), .photos: .json("[211,212]"), .speciesCount: .integer(12), .unknown: .null, .seen: .integer(213),
        ], source: "2#7")
        #expect(tail(writer, from: occurrenceStart) == ",213,\"2#7\"]\n")
        try withColumns(writer) { #expect(TaxonRecord.isFromTaxa($0)) }
    }

    @Test func aTaxonInsideAnObservationHasNoPhotoList() throws {
        let strings = try ParsedStrings(["Danaus plexippus"])
        var writer = JSONWriter()
        TaxonRecord(id: 48662, from: .observation, name: strings["Danaus plexippus"]).encode(into: &writer, source: "0#0")
        var expected = Dictionary(uniqueKeysWithValues: TaxonRecord.Column.allCases.map { ($0, Cell.null) })
        expected[.id] = .integer(48662)
        expected[.from] = .text("obs")
        expected[.name] = .text("Danaus plexippus")
        try expectLine(writer, TaxonRecord.Column.self, expected, source: "0#0")
        try withColumns(writer) { #expect(!TaxonRecord.isFromTaxa($0)) }
    }

    @Test func aPhotoReadsBackAndSaysWhereItsOccurrenceColumnsBegin() throws {
        let strings = try ParsedStrings([
            "https://inaturalist-open-data.s3.amazonaws.com/photos/301/square.jpg", "CC0", "(c) Zoë, no rights reserved",
            "LocalPhoto", "Zoë",
        ])
        var photo = PhotoRecord(
            id: 301, context: .defaultPhoto, url: strings["https://inaturalist-open-data.s3.amazonaws.com/photos/301/square.jpg"])
        photo.taxon = 302
        photo.position = 303
        photo.license = strings["CC0"]
        photo.attribution = strings["(c) Zoë, no rights reserved"]
        photo.width = 2048
        photo.height = 1536
        photo.type = strings["LocalPhoto"]
        photo.hidden = false
        photo.attributionName = strings["Zoë"]
        photo.seen = 310
        photo.observation = 311
        photo.observer = 312
        var writer = JSONWriter()
        let occurrenceStart = photo.encode(into: &writer, source: "4#2")
        try expectLine(writer, PhotoRecord.Column.self, [
            .id: .integer(301), .taxon: .integer(302), .context: .text("default"), .position: .integer(303),
            .url: .text("https://inaturalist-open-data.s3.amazonaws.com/photos/301/square.jpg"), .license: .text("cc0"),
            .attribution: .text("(c) Zoë, no rights reserved"), .width: .integer(2048), .height: .integer(1536),
            .type: .text("LocalPhoto"), .hidden: .bool(false), .attributionName: .text("Zoë"), .seen: .integer(310),
            .observation: .integer(311), .observer: .integer(312),
        ], source: "4#2")
        #expect(tail(writer, from: occurrenceStart) == ",310,311,312,\"4#2\"]\n")
        try withColumns(writer) { #expect(!PhotoRecord.isObservationPhoto($0)) }
    }

    @Test func anObservationPhotoSaysSo() throws {
        let strings = try ParsedStrings(["https://static.inaturalist.org/photos/9/square.jpg"])
        var writer = JSONWriter()
        PhotoRecord(id: 9, context: .observation, url: strings["https://static.inaturalist.org/photos/9/square.jpg"])
            .encode(into: &writer, source: "0#0")
        try withColumns(writer) {
            #expect(PhotoRecord.isObservationPhoto($0))
            #expect($0.string(PhotoRecord.Column.context) == "obs")
        }
    }

    @Test func anIngestInputRecordReadsBackAndGivesItsDedupedForm() throws {
        let input = InputRecord(
            index: 2, path: "inat/page-3.json", bytes: 5000, sha256: String(repeating: "ab", count: 32),
            format: "gzip+json-lines", records: 17, rejected: 3, salvaged: 4, pruned: "5ffa26b7")
        var writer = JSONWriter()
        input.encode(into: &writer)
        try expectLine(writer, InputRecord.Column.self, [
            .index: .integer(2), .path: .text("inat/page-3.json"), .bytes: .integer(5000),
            .sha256: .text(String(repeating: "ab", count: 32)), .format: .text("gzip+json-lines"), .records: .integer(17),
            .rejected: .integer(3), .salvaged: .integer(4), .pruned: .text("5ffa26b7"),
        ], source: nil)
        try withColumns(writer) { columns in
            let deduped = try #require(DedupedInputRecord(ingest: columns))
            #expect(deduped.path == "inat/page-3.json")
            #expect(deduped.bytes == 5000)
            #expect(deduped.sha256 == String(repeating: "ab", count: 32))
            #expect(deduped.format == "gzip+json-lines")
        }
    }

    @Test func aDedupedInputRecordRoundTrips() throws {
        let input = DedupedInputRecord(path: "dumps/observations.csv.gz", bytes: 1 << 40, sha256: "00ff", format: "document")
        var writer = JSONWriter()
        input.encode(into: &writer)
        try expectLine(writer, DedupedInputRecord.Column.self, [
            .path: .text("dumps/observations.csv.gz"), .bytes: .integer(1 << 40), .sha256: .text("00ff"),
            .format: .text("document"),
        ], source: nil)
        try withColumns(writer) { columns in
            let read = try #require(DedupedInputRecord(deduped: columns))
            #expect(read.path == input.path)
            #expect(read.bytes == input.bytes)
            #expect(read.sha256 == input.sha256)
            #expect(read.format == input.format)
        }
    }

    /// Runs `body` on the columns of the one record `writer` holds.
    private func withColumns(_ writer: JSONWriter, _ body: (JSONColumns) throws -> Void) throws {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: writer.bytes)
        var columns = JSONColumns()
        let loaded = columns.load(try parser.parse(buffer))
        #expect(loaded)
        try body(columns)
    }

    @Test func aRecordWiderThanTheSlotsIsLoadedWholeAndANarrowerOneAfterItHasOnlyItsOwnColumns() throws {
        let parser = JSONParser()
        var columns = JSONColumns()
        let wide = PaddedBuffer(copying: Array(("[" + (0..<40).map(String.init).joined(separator: ",") + "]").utf8))
        #expect(columns.load(try parser.parse(wide)))
        #expect(columns.count == 40)
        #expect((0..<40).map { columns.int64($0) } == (0..<40).map { Int64($0) })
        let narrow = PaddedBuffer(copying: Array(#"["user", 7, null]"#.utf8))
        #expect(columns.load(try parser.parse(narrow)))
        #expect(columns.count == 3)
        #expect(columns.string(0) == "user" && columns.int64(1) == 7 && columns[2] == nil)
        #expect(columns[3] == nil && columns[39] == nil)
        let notArray = PaddedBuffer(copying: Array(#"{"a": 1}"#.utf8))
        #expect(columns.load(try parser.parse(notArray)) == false)
        #expect(columns.count == 0 && columns[0] == nil)
    }

    @Test func theIdOfAParsedRecordIsItsFirstColumn() throws {
        var writer = JSONWriter()
        UserRecord(id: 77).encode(into: &writer, source: "0#0")
        try withColumns(writer) { #expect($0.id == 77) }
    }

    // MARK: Licences

    @Test(arguments: [("CC-BY", "cc-by"), ("Cc-By-Sa", "cc-by-sa"), ("cc0", "cc0"), ("", "")])
    func licenceCodesAreWrittenInLowerCase(code: String, expected: String) throws {
        let strings = try ParsedStrings([code])
        var writer = JSONWriter()
        writer.lowercasedString(strings[code])
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(expected)\"")
    }

    @Test func aMissingLicenceIsNull() {
        var writer = JSONWriter()
        writer.lowercasedString(nil)
        #expect(writer.bytes == Array("null".utf8))
    }

    // MARK: Kinds and sources

    @Test(arguments: RecordKind.allCases)
    func aLinesKindIsToldByItsTag(kind: RecordKind) throws {
        let line = Array("[\"\(kind.name)\",1,\"0#0\"]".utf8)
        #expect(line.withUnsafeBytes { RecordKind.of($0) } == kind)
        let strings = try ParsedStrings([kind.name])
        #expect(RecordKind(tag: strings[kind.name]) == kind)
    }

    @Test(arguments: ["", "[", "[\"", "[\"o", "[1,2]", "[ \"obs\"]", "{\"obs\":1}", "\"obs\"", "[\"zebra\"]", "[\"Obs\"]"])
    func aLineWithoutAKnownTagHasNoKind(line: String) {
        #expect(Array(line.utf8).withUnsafeBytes { RecordKind.of($0) } == nil)
    }

    @Test func unknownTagsHaveNoKind() throws {
        let garbage = ["observation", "OBS", "", "ob", "obs ", "inputs", "taxa"]
        let strings = try ParsedStrings(garbage)
        for tag in garbage {
            #expect(RecordKind(tag: strings[tag]) == nil, "\(tag)")
        }
    }

    @Test func theContentOfAnIngestRecordEndsBeforeItsSource() throws {
        let strings = try ParsedStrings(["zoe"])
        var user = UserRecord(id: 7)
        user.login = strings["zoe"]
        user.seen = 1_714_557_600_000
        var writer = JSONWriter()
        user.encode(into: &writer, source: "0#3")
        let line = Array(writer.bytes.dropLast())  // without the newline, as the line reader gives it
        let length = line.withUnsafeBytes { RecordSource.contentLength($0) }
        #expect(String(decoding: line[..<length], as: UTF8.self) + "]" == "[\"user\",7,\"zoe\",null,1714557600000]")
    }

    @Test func aLineWithoutACommaIsAllContent() {
        let line = Array("[\"input\"]".utf8)
        #expect(line.withUnsafeBytes { RecordSource.contentLength($0) } == line.count)
    }

    @Test func theContentHashIgnoresTheSourceButNotTheContent() {
        func hash(_ line: String) -> UInt64 { Array(line.utf8).withUnsafeBytes { RecordSource.contentHash($0) } }
        #expect(hash("[\"user\",7,\"zoe\",null,5,\"0#3\"]") == hash("[\"user\",7,\"zoe\",null,5,\"12:40\"]"))
        #expect(hash("[\"user\",7,\"zoe\",null,5,\"0#3\"]") != hash("[\"user\",7,\"zoë\",null,5,\"0#3\"]"))
        #expect(hash("[\"user\",7,\"zoe\",null,5,\"0#3\"]") != hash("[\"user\",8,\"zoe\",null,5,\"0#3\"]"))
    }

    // MARK: Articles

    private func decodedArticle(_ writer: JSONWriter, path: String = "wiki/articles.jsonl", line: Int = 1) throws -> ArticleRecord {
        let parser = JSONParser()
        let buffer = PaddedBuffer(copying: writer.bytes)
        return try ArticleRecord(decoding: try parser.parse(buffer), path: path, line: line)
    }

    @Test func anArticleRoundTrips() throws {
        var article = ArticleRecord(
            title: "Monarch butterfly", url: "https://fr.wikipedia.org/wiki/Monarque_(papillon)",
            summary: "Le monarque est un « papillon » migrateur.", html: "<p>Le <b>monarque</b>\n\"migre\"</p>")
        article.pageID = 19_812
        article.revision = 1_234_567_890
        article.modified = "2024-03-01T12:00:00Z"
        article.language = "fr"
        article.wikidata = "Q212621"
        article.license = "CC-BY-SA-3.0"
        article.taxa = [48662, 48663]
        article.destinations = ["be-brussels", "mx-michoacan"]
        article.sections = 4
        var writer = JSONWriter()
        article.encode(into: &writer)
        #expect(writer.bytes.last == UInt8(ascii: "\n"))
        #expect(try decodedArticle(writer) == article)
    }

    @Test func anArticleWithOnlyTheRequiredKeysGetsTheDefaults() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("title"); writer.string("Danaus")
        writer.key("url"); writer.string("https://en.wikipedia.org/wiki/Danaus")
        writer.key("summary"); writer.string("A genus.")
        writer.key("html"); writer.string("<p>A genus.</p>")
        writer.endObject()
        let article = try decodedArticle(writer)
        #expect(article == ArticleRecord(
            title: "Danaus", url: "https://en.wikipedia.org/wiki/Danaus", summary: "A genus.", html: "<p>A genus.</p>"))
        #expect(article.language == "en")
        #expect(article.license == "CC-BY-SA")  // the version is unknown without a licence or a date
        #expect(article.taxa.isEmpty && article.destinations.isEmpty && article.sections == 0)
    }

    @Test func anArticleWithoutHTMLNamesTheFileAndLine() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("title"); writer.string("Danaus")
        writer.key("url"); writer.string("https://en.wikipedia.org/wiki/Danaus")
        writer.key("summary"); writer.string("A genus.")
        writer.endObject()
        let error = try #require(throws: FieldpackError.self) {
            _ = try decodedArticle(writer, path: "wiki/articles.jsonl", line: 12)
        }
        #expect(error.path == "wiki/articles.jsonl")
        #expect(error.line == 12)
        #expect(error.description.hasPrefix("wiki/articles.jsonl:12: error: "))
    }

    // MARK: The bundle's INSERTs

    /// The columns the bundle builder derives for photos and taxa, after the record's own
    /// (restated from `PhotoShippingLoad` and `RecordBatch`).
    static let inserts: [(table: String, sql: String, parameters: Int)] = [
        ("users", UserRecord.Column.insertSQL(into: "users"), UserRecord.Column.bundleColumns.count),
        ("observations", ObservationRecord.Column.insertSQL(into: "observations"), ObservationRecord.Column.bundleColumns.count),
        ("taxa", TaxonRecord.Column.insertSQL(into: "taxa", extra: ["article_id"]), TaxonRecord.Column.bundleColumns.count + 1),
        ("photos",
         PhotoRecord.Column.insertSQL(into: "photos", extra: ["url", "remote", "credit", "url_size_start", "url_size_length"]),
         PhotoRecord.Column.bundleColumns.count + 5),
        ("articles", ArticleRecord.insertSQL, 1 + ArticleRecord.Key.allCases.compactMap(\.bundleColumn).count),
    ]

    @Test(arguments: inserts)
    func everyGeneratedInsertPreparesAgainstTheMigratedSchema(table: String, sql: String, parameters: Int) throws {
        let directory = try TemporaryDirectory("records-schema")
        let database = try Database(path: directory.file("content.sqlite"))
        try Migrator().migrate(database)
        let statement = try database.prepare(sql)
        #expect(statement.parameterCount == parameters)
        #expect(sql.hasPrefix("INSERT INTO \(table) ("))
    }

    @Test func theInsertListsTheBundleColumnsInRecordOrderThenTheExtras() {
        #expect(UserRecord.Column.insertSQL(into: "users") == "INSERT INTO users (id, login, name) VALUES (?, ?, ?)")
        #expect(TaxonRecord.Column.insertSQL(into: "taxa", extra: ["article_id"]).contains(
            "(id, name, rank, rank_level, ancestry, iconic_taxon_name, preferred_common_name, wikipedia_url, is_active, species_count, article_id)"))
    }

    @Test func anArticlesValuesMatchItsInsert() throws {
        let article = ArticleRecord(title: "T", url: "https://en.wikipedia.org/wiki/T", summary: "S", html: "<p>H</p>")
        let directory = try TemporaryDirectory("records-articles")
        let database = try Database(path: directory.file("content.sqlite"))
        try Migrator().migrate(database)
        let insert = try database.prepare(ArticleRecord.insertSQL)
        #expect(insert.parameterCount == 1 + article.bundleValues.count)
        try insert.bind([.integer(1)] + article.bundleValues)
        try insert.run()
        #expect(try database.rows("SELECT id, title, url, language, license, sections, summary, blurb_html FROM articles") == [
            ["1", "T", "https://en.wikipedia.org/wiki/T", "en", "CC-BY-SA", "0", "S", "<p>H</p>"],
        ])
    }
}
