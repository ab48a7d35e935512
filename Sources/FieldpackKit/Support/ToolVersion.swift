import CLibXML2
import CSQLite3

/// The tool's version and the C libraries it runs on; recorded in every bundle.
public enum ToolVersion {
    public static let version = "0.1.0"

    public static var sqlite: String { String(cString: sqlite3_libversion()) }
    public static var libxml2: String { String(cString: fp_xml_version()) }

    public static var description: String {
        "\(version) (SQLite \(sqlite), libxml2 \(libxml2), \(JSONParser.versionDescription))"
    }
}
