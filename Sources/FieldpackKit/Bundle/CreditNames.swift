/// Each user's credit name (`UserRecord.creditName`), by user id, for the credits of the photos
/// that come after the users (`PhotoShippingLoad`).
///
/// Every user dedupe wrote passes through the load: API users, and the export's observers (its
/// table whole, 500,000 users at 10M observations, until ingest left out those no kept row
/// needs, `ExportParents`: 151,500 there). As a dictionary of strings the 500,000 took 25 MB
/// (38 MB while it grew); here a user takes its id, where its name ends, and the name's bytes,
/// about 24 bytes.
/// Users come in ascending id order (`ReferenceCheck` refuses deduped records that do not), so
/// a lookup is a binary search.
struct CreditNames {
    private var ids: [Int64] = []
    /// Where each user's name ends in `bytes` (it starts where the previous one ends); a user
    /// with no name has an empty one (a usable name is never empty).
    private var ends: [UInt32] = []
    private var bytes: [UInt8] = []

    /// Notes user `id`'s credit name (nil: none); ids come ascending.
    mutating func add(_ id: Int64, name: String?) {
        precondition(ids.last.map { $0 < id } ?? true, "users come in ascending id order")
        if var name {
            name.withUTF8 { bytes.append(contentsOf: $0) }
        }
        precondition(bytes.count <= Int(UInt32.max), "more than 4 GB of user names")
        ids.append(id)
        ends.append(UInt32(bytes.count))
    }

    /// User `id`'s credit name; nil when the user has none, or no user has that id.
    func name(of id: Int64) -> String? {
        guard let index = ids.withUnsafeBufferPointer({ $0.sortedIndex(of: id) }) else { return nil }
        let start = index == 0 ? 0 : Int(ends[index - 1])
        let end = Int(ends[index])
        guard end > start else { return nil }
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }
}
