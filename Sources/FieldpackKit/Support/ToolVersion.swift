import CArchive
import CCrypto
import CISAL
import CLibXML2
import CSQLite3

/// The tool's version and the C libraries it runs on; recorded in every bundle.
public enum ToolVersion {
    public static let version = "0.1.0"

    public static var sqlite: String { String(cString: sqlite3_libversion()) }
    public static var libxml2: String { String(cString: fp_xml_version()) }

    /// libarchive's own words (`libarchive 3.6.2`).
    public static var libarchive: String { String(cString: archive_version_string()) }
    /// OpenSSL's (`OpenSSL 3.0.15 3 Sep 2024`), libcrypto's as loaded.
    public static var openssl: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
    /// ISA-L's, as its headers give it (the library has no call that says).
    public static var isal: String { "\(ISAL_MAJOR_VERSION).\(ISAL_MINOR_VERSION).\(ISAL_PATCH_VERSION)" }

    public static var description: String {
        "\(version) (SQLite \(sqlite), libxml2 \(libxml2), \(JSONParser.versionDescription), \(libarchive), \(openssl), ISA-L \(isal))"
    }
}
