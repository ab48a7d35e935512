import CCrypto

/// An Ed25519 key (private, to sign; public, to verify) read from a PEM file, owned here and
/// freed with it. `openssl genpkey -algorithm ed25519 -out key.pem` makes the private key,
/// `openssl pkey -in key.pem -pubout -out key.pub.pem` its public half.
public final class Ed25519Key {
    let pointer: OpaquePointer
    public let path: String

    private init(pointer: OpaquePointer, path: String) {
        self.pointer = pointer
        self.path = path
    }

    deinit { EVP_PKEY_free(pointer) }

    public static func privateKey(at path: String) throws -> Ed25519Key {
        try load(path, publicHalf: false)
    }

    public static func publicKey(at path: String) throws -> Ed25519Key {
        try load(path, publicHalf: true)
    }

    private static func load(_ path: String, publicHalf: Bool) throws -> Ed25519Key {
        let text = try ReadableFile.contents(of: path)
        let loaded: OpaquePointer? = text.withUnsafeBytes { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            // A pass phrase callback that gives none: libcrypto's own asked for one on the
            // terminal, and a batch run waited for it.
            let noPassPhrase: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { _, _, _, _ in 0 }
            return publicHalf ? PEM_read_bio_PUBKEY(bio, nil, noPassPhrase, nil) : PEM_read_bio_PrivateKey(bio, nil, noPassPhrase, nil)
        }
        ERR_clear_error()
        if loaded == nil, !publicHalf, text.withUnsafeBytes({ firstOffset(of: "-----BEGIN ENCRYPTED PRIVATE KEY-----", in: $0) != nil }) {
            throw FieldpackError(
                path: path,
                "is an encrypted private key, and a batch run has no one to type its pass phrase: give it unencrypted (openssl pkey -in KEY -out PLAIN.pem), kept private")
        }
        guard let loaded else {
            throw FieldpackError(path: path, "not a PEM \(publicHalf ? "public" : "private") key")
        }
        let key = Ed25519Key(pointer: loaded, path: path)
        guard EVP_PKEY_get_id(loaded) == EVP_PKEY_ED25519 else {
            throw FieldpackError(path: path, "not an Ed25519 key (make one with: openssl genpkey -algorithm ed25519)")
        }
        return key
    }

    /// The 64-byte signature of `message`.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw FieldpackError(path: path, "libcrypto: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        let ok = EVP_DigestSignInit(context, nil, nil, nil, pointer) == 1
            && message.withUnsafeBufferPointer { input in
                signature.withUnsafeMutableBufferPointer {
                    EVP_DigestSign(context, $0.baseAddress, &length, input.baseAddress, input.count) == 1
                }
            }
        guard ok, length == 64 else {
            ERR_clear_error()
            throw FieldpackError(path: path, "signing failed (is this a private key?)")
        }
        return signature
    }

    /// Whether `signature` is this key's signature of `message`.
    public func verifies(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = EVP_DigestVerifyInit(context, nil, nil, nil, pointer) == 1
            && signature.withUnsafeBufferPointer { signed in
                message.withUnsafeBufferPointer { input in
                    EVP_DigestVerify(context, signed.baseAddress, signed.count, input.baseAddress, input.count) == 1
                }
            }
        ERR_clear_error()
        return ok
    }
}

/// `manifest.json.sig`: the base64 Ed25519 signature of `manifest.json`'s exact bytes, beside it.
public enum ManifestSignature {
    public static let fileName = "manifest.json.sig"

    /// Signs the folder's manifest.json with `key` and writes the signature file.
    public static func sign(bundle directory: String, with key: Ed25519Key) throws {
        let manifest = try ReadableFile.contents(of: "\(directory)/\(Manifest.jsonName)")
        let signature = try key.sign(manifest)
        try AtomicOutput.write(Base64.encode(signature) + "\n", to: "\(directory)/\(fileName)")
    }

    /// Nil if the folder's signature verifies with `key` over `manifest`, the manifest.json
    /// bytes the caller read (once: the bytes whose signature is checked are the ones it then
    /// trusts), else why not. Nil `manifest`: the folder has no readable manifest.json.
    public static func problem(bundle directory: String, manifest: [UInt8]?, key: Ed25519Key) -> String? {
        let path = "\(directory)/\(fileName)"
        guard FileSystem.existsItself(path) else { return "missing: the bundle is not signed" }
        let text: [UInt8]
        do { text = try ReadableFile.contents(of: path) } catch {
            // There, and not readable: not "not signed".
            return BundleVerifier.unreadable(error)
        }
        guard let signature = Base64.decode(text), signature.count == 64 else { return "not a base64 Ed25519 signature" }
        guard let manifest else { return "no manifest.json to check it against" }
        return key.verifies(signature, of: manifest) ? nil : "does not verify: manifest.json is not the one signed with this key"
    }
}
