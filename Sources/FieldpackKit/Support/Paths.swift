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
