/// Where ingest read a record, the last element of its line (a source holds no comma): the
/// input's index, then the place in it (`3#17`, the 18th element of a page's `results`; `3#`,
/// the document itself; `3:12`, line 12; `3:folder/observations.csv:17`, a line of a member of
/// the export's tar). The deduped record is the same bytes without it.
///
/// Copies that every rule ranks the same (the same content, equally new) are told apart by
/// their sources, so that which one a report names does not depend on the order the inputs were
/// given in nor on which of them ingest read together: by the input's path (byte order), then by
/// the place, numbers by their value. Never by the index, which follows the order given.
public enum RecordSource {
    /// How many bytes of an ingest record precede its trailing `,"<source>"]`: the record as the
    /// deduped file holds it, less the closing bracket.
    public static func contentLength(_ line: UnsafeRawBufferPointer) -> Int {
        var index = line.count - 1
        while index > 0 {
            if line[index] == UInt8(ascii: ",") { return index }
            index -= 1
        }
        return line.count
    }

    /// The identity of a record's content: the stable hash of its bytes without the source.
    public static func contentHash(_ line: UnsafeRawBufferPointer) -> UInt64 {
        stableHash(UnsafeRawBufferPointer(rebasing: line[0..<contentLength(line)]))
    }

    /// Whether source `a` comes before `b`; `paths` gives each input's path by its index.
    static func precedes(_ a: String, _ b: String, paths: [Int: String]) -> Bool {
        let (aIndex, aPlace) = split(a)
        let (bIndex, bPlace) = split(b)
        if aIndex != bIndex {
            let aPath = aIndex.flatMap { paths[$0] } ?? ""
            let bPath = bIndex.flatMap { paths[$0] } ?? ""
            if !aPath.utf8.elementsEqual(bPath.utf8) { return aPath.utf8.lexicographicallyPrecedes(bPath.utf8) }
        }
        return naturalOrder(aPlace, bPlace)
    }

    /// The index and what follows its separator (`#` or `:`); no index: the whole text.
    private static func split(_ source: String) -> (Int?, Substring.UTF8View) {
        let utf8 = source.utf8
        guard let separator = utf8.firstIndex(where: { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: ":") }),
            let index = Int(Substring(utf8[..<separator]))
        else { return (nil, Substring(source).utf8) }
        return (index, Substring(utf8[utf8.index(after: separator)...]).utf8)
    }

    /// Byte order, except that runs of digits compare by their value (`9` before `17`); equal
    /// values (`07`, `7`) fall back to byte order, so the order is total.
    private static func naturalOrder(_ a: Substring.UTF8View, _ b: Substring.UTF8View) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        var i = a.startIndex
        var j = b.startIndex
        while i < a.endIndex && j < b.endIndex {
            if isDigit(a[i]) && isDigit(b[j]) {
                var iEnd = i
                while iEnd < a.endIndex && isDigit(a[iEnd]) { iEnd = a.index(after: iEnd) }
                var jEnd = j
                while jEnd < b.endIndex && isDigit(b[jEnd]) { jEnd = b.index(after: jEnd) }
                let x = a[i..<iEnd].drop { $0 == UInt8(ascii: "0") }
                let y = b[j..<jEnd].drop { $0 == UInt8(ascii: "0") }
                if x.count != y.count { return x.count < y.count }
                if !x.elementsEqual(y) { return x.lexicographicallyPrecedes(y) }
                i = iEnd
                j = jEnd
                continue
            }
            if a[i] != b[j] { return a[i] < b[j] }
            i = a.index(after: i)
            j = b.index(after: j)
        }
        if i < a.endIndex || j < b.endIndex { return j < b.endIndex }
        return a.lexicographicallyPrecedes(b)
    }
}
