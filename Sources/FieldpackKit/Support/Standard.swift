#if canImport(Glibc)
import Glibc
#endif

/// Writes diagnostics to standard error, unbuffered and without Foundation.
public enum StandardError {
    public static func write(_ text: String) {
        var line = text
        if !line.hasSuffix("\n") { line += "\n" }
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = buffer.baseAddress.map { Glibc.write(2, $0, buffer.count - 1) }
        }
    }
}

/// The current `errno` as text.
func systemError() -> String {
    String(cString: strerror(errno))
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" || first == "\r" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result.removeLast() }
        return result
    }
}

extension String {
    package func replacingOccurrences(of target: String, with replacement: String) -> String {
        if target.isEmpty { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

/// The value of environment variable `name`, nil if unset. The executables read settings such as
/// `SOURCE_DATE_EPOCH` and pass them to the library, which reads nothing from the environment
/// that could change an output (only `FIELDPACK_TRACE`, for phase timings on stderr).
public func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
