@testable import FieldpackKit
import Testing

/// The users' credit names the bundle holds for the photos' credits (`CreditNames`).
@Suite struct CreditNamesTests {
    /// A user's name comes back as it was given, multi-byte and long ones too; a user with no
    /// name, and an id no user has (below, between and past them), give none.
    @Test func aUsersNameComesBackAndAnUnknownOrNamelessUserHasNone() {
        var names = CreditNames()
        #expect(names.name(of: 1) == nil)
        let given: [(Int64, String?)] = [
            (3, "Kim Ito"), (7, nil), (8, "Zoë Ångström"), (20, String(repeating: "long name ", count: 40)), (21, "x"),
        ]
        for (id, name) in given { names.add(id, name: name) }
        for (id, name) in given { #expect(names.name(of: id) == name) }
        #expect([Int64(0), 4, 9, 22, -3].allSatisfy { names.name(of: $0) == nil })
    }
}
