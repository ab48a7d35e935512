@testable import FieldpackKit
import FieldpackTestSupport
import Testing

/// The bundle decides every photo on its parsing thread: the licence read from the record's
/// bytes, the credit name and the code's text asked for only when the decision needs them, the
/// URL's host remembered among a few, the exclusions counted per licence. Each must decide
/// exactly as the plain, String-based path does.
@Suite struct ShippingDecisionTests {
    private func withText<T>(_ text: String, _ body: (JSONText) -> T) -> T {
        var text = text
        return text.withUTF8 { body(JSONText(start: UnsafeRawPointer($0.baseAddress!), count: $0.count)) }
    }

    @Test func aLicenceCodeReadFromItsBytesIsTheOneItsTextGives() {
        var codes = License.allCases.map(\.rawValue)
        codes += codes.map { $0.uppercased() } + codes.map { String($0.enumerated().map { $0.offset % 2 == 0 ? Character($0.element.uppercased()) : $0.element }) }
        codes += ["cc-by-4.0", "cc_by", "cc-by ", " cc0", "ccby", "cc-by-nc-sa-nd", "all rights reserved", "p", "gfd", "cc-zz", "ﬀ", "çc0"]
        for code in codes {
            #expect(withText(code) { License.parse($0) } == License.parse(code), "\(code)")
        }
        #expect(License.parse(nil as JSONText?) == .allRightsReserved)
        #expect(withText("x") { License.parse(JSONText(start: $0.start, count: 0)) } == .allRightsReserved)
    }

    @Test func aLicencesOrdinalIsItsPlaceAmongAllCases() {
        #expect(License.allCases.map(\.ordinal) == Array(License.allCases.indices))
    }

    @Test func theNameAndTheCodesTextAreAskedForOnlyWhenTheDecisionNeedsThem() throws {
        let policy = ShippingPolicy()
        let url = PhotoURL.classify("https://inaturalist-open-data.s3.amazonaws.com/photos/5/square.jpg")
        var names = 0
        var codes = 0
        func name() -> String? {
            names += 1
            return "Ada"
        }
        func code(_ text: String) -> String? {
            codes += 1
            return text
        }
        // Excluded by its licence: neither is read.
        let noncommercial = PhotoShipping.decide(
            id: 5, source: url, license: .ccByNc, licenseCode: code("cc-by-nc"), name: name(), original: nil, policy: policy)
        #expect(noncommercial.exclusion == .license(.ccByNc))
        #expect(names == 0 && codes == 0)
        // An unknown code: its text names the exclusion, and no name is read.
        let unknown = PhotoShipping.decide(
            id: 5, source: url, license: nil, licenseCode: code("cc-by-9"), name: name(), original: nil, policy: policy)
        #expect(unknown.exclusion == .unknownLicense("cc-by-9"))
        #expect(names == 0 && codes == 1)
        // It may ship: the name makes the credit.
        let shipped = PhotoShipping.decide(
            id: 5, source: url, license: .ccBy, licenseCode: code("cc-by"), name: name(), original: nil, policy: policy)
        #expect(shipped.ships && shipped.credit == "(c) Ada, some rights reserved (CC BY)")
        #expect(names == 1 && codes == 1)
        // The String-based path decides the same.
        let plain = PhotoShipping.decide(id: 5, source: url, licenseCode: "CC-BY", name: "Ada", original: nil, policy: policy)
        #expect(plain.credit == shipped.credit && plain.exclusion == nil)
    }

    /// More hosts than the parser remembers, in an order that evicts each, in either case: each
    /// URL gets what a new parser gives it.
    @Test func aURLIsClassifiedTheSameWhicheverHostsCameBefore() {
        var urls: [String] = []
        let hosts = ["inaturalist-open-data.s3.amazonaws.com", "static.inaturalist.org", "www.inaturalist.org", "inaturalist.s3.amazonaws.com"]
            + (1...9).map { "farm\($0).staticflickr.com" }
        for round in 0..<3 {
            for (index, host) in hosts.enumerated() {
                let shown = round == 1 ? host.uppercased() : host
                urls.append("https://\(shown)/photos/\(100 + index)/square.jpg?\(round)")
                urls.append("http://\(shown)/photos/\(200 + index)/medium.JPG")
                urls.append("https://\(shown)/attachment_defaults/local_photos/square.png")
            }
            urls.append("https://inaturalist-open-data.s3.amazonaws.com/photos/7/large.jpeg")
        }
        let parser = PhotoURLParser()
        for url in urls {
            #expect(parser.classify(url) == PhotoURLParser().classify(url), "\(url)")
        }
    }

    /// The parser searches a path for placeholder markers only if it holds a `-` or `_`.
    @Test func everyPlaceholderMarkerHoldsADashOrAnUnderscore() {
        for kind in PlaceholderKind.allCases {
            let marker = String(decoding: UnsafeBufferPointer(start: kind.marker.utf8Start, count: kind.marker.utf8CodeUnitCount), as: UTF8.self)
            #expect(marker.contains("-") || marker.contains("_"), "\(marker)")
        }
    }

    @Test func exclusionsByLicenceAndByOtherReasonsAreCountedTogether() {
        var report = CostReport(policy: ShippingPolicy())
        let url = PhotoURL.classify("https://static.inaturalist.org/photos/5/square.jpg")
        let policy = ShippingPolicy()
        for (license, name) in [(License.ccByNc, "A"), (.ccByNc, "B"), (.allRightsReserved, "C"), (.ccBy, nil), (.ccBy, "D")] {
            report.add(PhotoShipping.decide(id: 5, source: url, license: license, licenseCode: license.rawValue, name: name, original: nil, policy: policy))
        }
        report.add(PhotoShipping.decide(id: 5, source: url, license: nil, licenseCode: "odd", name: "E", original: nil, policy: policy))
        #expect(report.excluded == ["license:cc-by-nc": 2, "license:all-rights-reserved": 1, "no-credit": 1, "unknown-license:odd": 1])
        #expect(report.photos == 6 && report.shipped == 1)
    }
}
