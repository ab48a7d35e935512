#if canImport(Glibc)
import Glibc
#endif

/// The folder holding `path` ("." for a bare name).
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
