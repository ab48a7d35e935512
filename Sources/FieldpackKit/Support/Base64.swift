import CCrypto

/// Standard base64 (RFC 4648 §4) through libcrypto.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        let count = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { EVP_EncodeBlock($0.baseAddress, input.baseAddress, Int32(input.count)) }
        }
        return String(decoding: out.prefix(Int(count)), as: UTF8.self)
    }

    /// The decoded bytes (line breaks ignored); nil if malformed.
    static func decode<S: Sequence>(_ text: S) -> [UInt8]? where S.Element == UInt8 {
        let clean = text.filter { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        guard clean.count % 4 == 0, clean.count < Int(Int32.max) else { return nil }
        if clean.isEmpty { return [] }
        var decoded = [UInt8](repeating: 0, count: clean.count / 4 * 3)
        let count = clean.withUnsafeBufferPointer { input in
            decoded.withUnsafeMutableBufferPointer { EVP_DecodeBlock($0.baseAddress, input.baseAddress, Int32(input.count)) }
        }
        guard count >= 0 else { return nil }
        let padding = clean.reversed().prefix(2).filter { $0 == UInt8(ascii: "=") }.count
        return Array(decoded.prefix(Int(count) - padding))
    }
}
