// The libFuzzer harness for every fuzz target (Tests/Fuzz/build.sh compiles it into the library's
// module with -sanitize=fuzzer,address). FIELDPACK_FUZZ_TARGET names the target (`FuzzTarget`);
// a broken invariant aborts, so libFuzzer saves the input as a crash.
#if canImport(Glibc)
import Glibc
#endif

let selectedTarget: FuzzTarget? = getenv("FIELDPACK_FUZZ_TARGET").flatMap { FuzzTarget(rawValue: String(cString: $0)) }

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard selectedTarget != nil else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        let message = "fieldpack-fuzz: set FIELDPACK_FUZZ_TARGET to one of: \(names)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    if let violation = selectedTarget!.run(bytes) {
        let message = "fieldpack-fuzz: \(selectedTarget!.rawValue): invariant broken: \(violation)\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        abort()
    }
    return 0
}
