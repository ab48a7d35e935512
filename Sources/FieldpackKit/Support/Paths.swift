#if canImport(Glibc)
import Glibc
#endif

/// The last component of `path` (the whole of a bare name).
func fileName(of path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
}

/// The folder holding `path` ("." for a bare name).
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// `path` written one way: no empty or `.` components (`./dumps//pages/` is `dumps/pages`), so
/// the same file named two ways is recorded, ordered and compared as one (an input's path is in
/// the manifest and the reports, and the wiki stage breaks a tie between two copies of an
/// article by it). `..` stays: without the links it crosses, what it leads to is not known.
package func lexicallyNormal(_ path: String) -> String {
    guard !path.isEmpty else { return path }  // nothing, not "." (the current folder)
    let absolute = path.hasPrefix("/")
    let parts = path.split(separator: "/").filter { $0 != "." }
    let joined = parts.joined(separator: "/")
    if absolute { return "/" + joined }
    return joined.isEmpty ? "." : joined
}
