import CCrypto

/// An incremental SHA-256 over OpenSSL's libcrypto (SHA-NI where the CPU has it).
///
/// Not thread-safe: one hasher per thread.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not initialise SHA-256")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as lower-case hex; the hasher is finished afterwards.
    public func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return FieldpackKit.hex(digest[0..<Int(length)])
    }

    /// The SHA-256 of a byte string, as lower-case hex.
    public static func hex(of bytes: [UInt8]) -> String {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalizeHex()
    }

    /// The SHA-256 of a file, streamed in 1 MiB reads.
    ///
    /// `progress` counts the bytes (and the file, as a record) as they are hashed.
    public static func hex(ofFile path: String, progress: StageProgress? = nil) throws -> (digest: String, bytes: Int) {
        let file = try ReadableFile(path: path)
        let hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            total += count
            progress?.add(bytes: count)
        }
        progress?.add(records: 1)
        return (hasher.finalizeHex(), total)
    }
}

func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
