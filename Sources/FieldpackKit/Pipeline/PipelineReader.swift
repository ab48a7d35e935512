/// A stage before the bundle, as a reader of the pipeline file: the keys it reads, and their
/// digest, which its depfile keeps in the file's place (`Depfile.Keyed`). make reruns the stage
/// when those keys change, not whenever the file does: a display target, a licence or a cost
/// edited reran ingest of the whole dump (70–150 s at iNaturalist's export, a round of Slurm
/// arrays), when only the bundle reads them. The bundle reads nearly every key and is named by
/// the file itself.
///
/// The lists err towards a rerun: a key a stage might read is in its list. A stage's error on
/// another key (a `targets` entry mistyped) is the bundle's to report, which reads it.
public enum PipelineReader: String, Sendable, CaseIterable {
    case inat
    case dedupe
    case wiki

    /// The keys it reads, a key of an object's key written `object.key`. The settings files
    /// that they name (`select`'s GeoJSON, the measured sizes) are inputs of their own.
    public var keys: [String] {
        switch self {
        // The inputs, the threshold, the export's date and the rules that leave rows out, with
        // the photos whose sizes are measured (written whatever the selection keeps).
        case .inat: ["inat", "max_reject_rate", "open_data_date", "select", "repeat_filter_bytes", "costs.measured_sizes"]
        case .dedupe: ["select", "costs.measured_sizes"]
        // The dumps, the blurb rules and the destinations' wanted articles (not their names).
        case .wiki:
            ["wikipedia", "wikipedia_language", "wikipedia_skip_sections", "wikipedia_summary_length", "max_reject_rate", "destinations"]
        }
    }

    /// Of a key whose value is a list of objects, the members of each that it reads (nil: the
    /// whole value).
    func members(of key: String) -> [String]? {
        self == .wiki && key == "destinations" ? Destination.wantKeys : nil
    }

    /// The digest of what it reads of the parsed pipeline `root`: each key's value as JSON
    /// (compact, members in their order; an array's elements one by one), or its absence.
    public func digest(of root: JSONValue) -> String {
        let digest = SHA256()
        for key in keys {
            var value: JSONValue? = root
            for part in key.split(separator: ".") {
                // The first member of that name, as the subscript finds it (a key given twice
                // is refused by `Pipeline.load`).
                value = value.flatMap { object in
                    object.isObject ? object.members.first { $0.key.bytes.elementsEqual(part.utf8) }?.value : nil
                }
            }
            digest.update(Array(key.utf8) + [0])
            if let value, value.isArray {
                // Element by element: a pipeline of 160,000 destinations is not copied whole.
                digest.update([UInt8(ascii: "[")])
                let read = members(of: key)
                for element in value.elements {
                    var writer = JSONWriter()
                    if let read, element.isObject {
                        // Those members in their order, each or its absence.
                        writer.beginArray()
                        for name in read {
                            if let member = element.members.first(where: { $0.key.bytes.elementsEqual(name.utf8) }) {
                                writer.value(member.value)
                            } else {
                                writer.null()  // as a null value is read: not given
                            }
                        }
                        writer.endArray()
                    } else {
                        writer.value(element)
                    }
                    digest.update(writer.bytes + [UInt8(ascii: ",")])
                }
                digest.update([UInt8(ascii: "]")])
            } else if let value {
                var writer = JSONWriter()
                writer.value(value)
                digest.update(writer.bytes)
            } else {
                digest.update([UInt8(ascii: "-")])
            }
            digest.update([0x0A])
        }
        return digest.finalizeHex()
    }

    /// What each reader reads of the pipeline file at `path` now, from one parse; nil when that
    /// is not a JSON object (told as changed: the stage then says what is wrong with it).
    public static func digests(ofFile path: String) -> [PipelineReader: String]? {
        let parser = JSONParser()
        guard let root = try? Pipeline.parsed(path, by: parser), root.isObject else { return nil }
        return withExtendedLifetime(parser) { Dictionary(uniqueKeysWithValues: allCases.map { ($0, $0.digest(of: root)) }) }
    }

    /// The pipeline file's line in its depfile: `pipeline` must have been loaded for this
    /// stage (`Pipeline.load(_:for:)`), which took the digest from the bytes it read.
    public func keyed(_ pipeline: Pipeline) -> [String: Depfile.Keyed] {
        guard let read = pipeline.readBy, read.reader == self else {
            preconditionFailure("the pipeline was not loaded for \(self) (Pipeline.load(_:for:))")
        }
        return [pipeline.path: Depfile.Keyed(kind: rawValue, digest: read.digest)]
    }
}
