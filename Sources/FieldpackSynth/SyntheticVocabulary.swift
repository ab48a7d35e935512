import FieldpackKit
/// The word lists and places synthetic dumps draw from. Some entries are deliberately non-ASCII
/// or carry quotes, so every stage sees multi-byte UTF-8 and JSON escapes.
enum SyntheticVocabulary {
    /// An iconic group: the real ids and names at the top of its ancestry, and words for names.
    struct IconicGroup {
        var name: String
        var id: Int64
        /// Ancestors above the group itself, from life (48460) down.
        var ancestors: [Int64]
        var familySuffix: String
        var nouns: [String]
    }

    /// Groups repeated by rough share of iNaturalist observations (plants first, then insects…).
    static let groups: [IconicGroup] = [
        IconicGroup(
            name: "Plantae", id: 47126, ancestors: [48460], familySuffix: "aceae",
            nouns: ["Oak", "Fern", "Sedge", "Aster", "Violet", "Thistle", "Rush", "Clover", "Lily", "Orchid", "Pine", "Willow"]),
        IconicGroup(
            name: "Insecta", id: 47158, ancestors: [48460, 1, 47120, 372739], familySuffix: "idae",
            nouns: ["Beetle", "Moth", "Butterfly", "Bee", "Wasp", "Fly", "Dragonfly", "Grasshopper", "Skipper", "Ladybird"]),
        IconicGroup(
            name: "Aves", id: 3, ancestors: [48460, 1, 2, 355675], familySuffix: "idae",
            nouns: ["Warbler", "Sparrow", "Hawk", "Owl", "Finch", "Heron", "Wren", "Thrush", "Duck", "Woodpecker"]),
        IconicGroup(
            name: "Fungi", id: 47170, ancestors: [48460], familySuffix: "aceae",
            nouns: ["Bolete", "Milkcap", "Bracket", "Puffball", "Webcap", "Brittlegill", "Amanita"]),
        IconicGroup(
            name: "Arachnida", id: 47119, ancestors: [48460, 1, 47120, 245097], familySuffix: "idae",
            nouns: ["Spider", "Orbweaver", "Harvestman", "Tick", "Jumping Spider"]),
        IconicGroup(
            name: "Mollusca", id: 47115, ancestors: [48460, 1], familySuffix: "idae",
            nouns: ["Snail", "Slug", "Whelk", "Limpet"]),
        IconicGroup(
            name: "Mammalia", id: 40151, ancestors: [48460, 1, 2, 355675], familySuffix: "idae",
            nouns: ["Bat", "Shrew", "Squirrel", "Vole", "Deer", "Fox", "Mouse"]),
        IconicGroup(
            name: "Reptilia", id: 26036, ancestors: [48460, 1, 2, 355675], familySuffix: "idae",
            nouns: ["Lizard", "Skink", "Gecko", "Snake", "Turtle"]),
        IconicGroup(
            name: "Amphibia", id: 20978, ancestors: [48460, 1, 2, 355675], familySuffix: "idae",
            nouns: ["Frog", "Toad", "Salamander", "Newt", "Treefrog"]),
        IconicGroup(
            name: "Actinopterygii", id: 47178, ancestors: [48460, 1, 2, 355675], familySuffix: "idae",
            nouns: ["Minnow", "Darter", "Goby", "Sunfish", "Shiner"]),
    ]

    /// Group index by share: out of 100 genera, 40 plants, 25 insects, 12 birds, …
    static let groupShares = [40, 25, 12, 6, 4, 3, 3, 3, 2, 2]

    static let syllables = [
        "a", "ca", "ce", "cho", "cor", "da", "de", "di", "dro", "e", "fa", "ga", "gla", "go", "hy", "la", "le",
        "li", "lo", "lu", "ma", "me", "mi", "mo", "na", "ne", "no", "o", "pa", "pe", "phi", "pho", "pla", "po",
        "ra", "re", "ri", "ro", "sa", "se", "si", "so", "sta", "ta", "te", "ti", "to", "tri", "u", "va", "ve",
        "xa", "xe", "zo",
    ]
    static let genusEndings = ["us", "a", "um", "is", "ia", "ella", "opsis", "odon", "ax", "es"]
    static let epithetEndings = ["us", "a", "um", "is", "ensis", "ii", "ata", "ica", "oides", "alis", "iana", "osa"]

    static let adjectives = [
        "Common", "Eastern", "Western", "Northern", "Southern", "Great", "Lesser", "Spotted", "Striped", "Red",
        "Blue", "Golden", "Black", "White", "Green", "Dwarf", "Giant", "Hairy", "Smooth", "Painted", "Pale",
        "Dusky", "Royal", "Woodland", "Marsh", "Mountain", "Desert", "Coastal",
    ]

    /// Common names that are not plain ASCII (and one with quotes), used for a few taxa.
    static let foreignCommonNames = [
        "Mésange charbonnière", "Großer Abendsegler", "Ñandú común", "Żółw błotny", "Épervier d'Europe",
        "Hêtre commun", "Çam keseböceği", "Cigüeña blanca", "Grünspecht", "Æblesnudebille", "ヒメアカタテハ",
        "Sørlig \"fjellbjørk\"", "Обыкновенная белка", "Μέλισσα",
    ]

    static let firstNames = [
        "Anna", "Ben", "Carlos", "Dana", "Elif", "Farid", "Grace", "Hiro", "Inès", "Jonas", "Kofi", "Lena",
        "Maya", "Noah", "Olga", "Priya", "Quinn", "Rosa", "Sam", "Tomás", "Uma", "Victor", "Wen", "Yusuf", "Zoë",
    ]
    static let lastNames = [
        "Smith", "Kowalski", "García", "Nguyen", "Müller", "Okafor", "Tanaka", "Rossi", "Johansson", "Dubois",
        "Silva", "Patel", "Brown", "Novák", "O'Brien", "Łukaszewicz", "Ødegård", "Yılmaz", "Lee", "Martin",
    ]
    static let fullNames = ["田中 花子", "王伟", "김민준", "Алексей Иванов", "Νίκος Παπαδόπουλος"]
    static let handles = [
        "birder", "naturalist", "hiker", "botanist", "mothman", "herper", "fungi", "wildlife", "nature", "bugs",
        "field", "eco", "owl", "fern", "lichen", "tide",
    ]

    /// Photo attribution phrases in the user's locale, as the API writes them.
    static let someRightsReserved = [
        "some rights reserved", "some rights reserved", "some rights reserved", "some rights reserved",
        "certains droits réservés", "algunos derechos reservados", "einige Rechte vorbehalten",
    ]

    static let descriptions = [
        "Found under a log.", "Seen near the trail head, about 2 m from the path.",
        "Second photo shows the \"underside\".", "Flew off before I could get a better shot.\nID help welcome!",
        "Sur le bord du chemin, près de l'étang.", "En el jardín, sobre una hoja de roble.",
        "Am Waldrand – sehr häufig hier.", "Backyard visitor; comes every morning 🐦",
        "Several individuals on the same plant.", "Photographed through binoculars, sorry for the quality.",
    ]

    /// A place people observe in: a time zone (named for the reader; the offset ignores summer
    /// time), a box of coordinates and a few place names.
    struct Region {
        var timeZone: String
        var offsetMinutes: Int
        var latitude: ClosedRange<Int64>  // millionths of a degree
        var longitude: ClosedRange<Int64>
        var places: [String]
    }

    static let regions: [Region] = [
        Region(
            timeZone: "America/Los_Angeles", offsetMinutes: -420, latitude: 32_500_000...41_900_000,
            longitude: -124_300_000...(-114_200_000),
            places: ["San Francisco, CA, USA", "Los Angeles County, US-CA, US", "Yosemite National Park, CA, US", "Berkeley, CA, USA"]),
        Region(
            timeZone: "America/New_York", offsetMinutes: -240, latitude: 39_500_000...44_500_000,
            longitude: -79_700_000...(-72_000_000),
            places: ["Central Park, New York, NY, USA", "Ithaca, NY, USA", "Philadelphia, PA, USA", "Boston, MA, USA"]),
        Region(
            timeZone: "America/Chicago", offsetMinutes: -300, latitude: 29_000_000...47_000_000,
            longitude: -97_500_000...(-87_500_000),
            places: ["Austin, TX, USA", "Cook County, IL, USA", "Minneapolis, MN, USA"]),
        Region(
            timeZone: "America/Mexico_City", offsetMinutes: -360, latitude: 17_000_000...21_000_000,
            longitude: -101_000_000...(-96_000_000),
            places: ["Ciudad de México, CDMX, MX", "Xalapa, Veracruz, México", "Oaxaca de Juárez, Oax., México"]),
        Region(
            timeZone: "America/Sao_Paulo", offsetMinutes: -180, latitude: -24_000_000...(-22_000_000),
            longitude: -47_500_000...(-43_000_000),
            places: ["São Paulo, SP, Brasil", "Rio de Janeiro, RJ, Brasil", "Campinas, São Paulo, Brasil"]),
        Region(
            timeZone: "Europe/London", offsetMinutes: 60, latitude: 50_500_000...54_000_000,
            longitude: -3_000_000...500_000,
            places: ["London, UK", "Peak District, GB", "Oxford, England, GB"]),
        Region(
            timeZone: "Europe/Paris", offsetMinutes: 120, latitude: 43_500_000...49_000_000,
            longitude: -1_000_000...6_500_000,
            places: ["Paris, Île-de-France, FR", "Lyon, Auvergne-Rhône-Alpes, FR", "Forêt de Fontainebleau, FR"]),
        Region(
            timeZone: "Europe/Warsaw", offsetMinutes: 120, latitude: 49_500_000...54_000_000,
            longitude: 15_000_000...23_000_000,
            places: ["Kraków, Polska", "Białowieża, Podlaskie, PL", "Łódź, PL"]),
        Region(
            timeZone: "Asia/Tokyo", offsetMinutes: 540, latitude: 34_000_000...36_500_000,
            longitude: 135_000_000...140_500_000,
            places: ["東京都, 日本", "Kyoto, JP", "大阪市, 日本"]),
        Region(
            timeZone: "Asia/Kolkata", offsetMinutes: 330, latitude: 12_000_000...28_500_000,
            longitude: 73_000_000...88_000_000,
            places: ["Bengaluru, Karnataka, India", "Delhi, IN", "Western Ghats, IN"]),
        Region(
            timeZone: "Australia/Sydney", offsetMinutes: 600, latitude: -34_500_000...(-33_000_000),
            longitude: 150_000_000...151_500_000,
            places: ["Sydney NSW, Australia", "Blue Mountains, NSW, AU"]),
        Region(
            timeZone: "Africa/Johannesburg", offsetMinutes: 120, latitude: -34_300_000...(-25_000_000),
            longitude: 18_000_000...31_000_000,
            places: ["Cape Town, Western Cape, ZA", "Kruger National Park, ZA"]),
        Region(
            timeZone: "Pacific/Auckland", offsetMinutes: 720, latitude: -46_000_000...(-36_000_000),
            longitude: 168_000_000...178_000_000,
            places: ["Auckland, NZ", "Ōtautahi / Christchurch, NZ"]),
    ]

    /// Region index by share (out of 20): the United States first, like iNaturalist itself.
    static let regionShares = [4, 3, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]
}
