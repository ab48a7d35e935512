/// A growable byte buffer without copy-on-write checks, for the hot write paths (a `[UInt8]`
/// checks uniqueness on every append). A reference type: copies of it share the bytes.
///
/// Not thread-safe.
public final class ByteBuffer {
    // Written for every byte of output: run-time exclusivity checks on these class properties
    // cost about a third of ingest (`perf`: `swift_beginAccess` under every record's encoding).
    // No method hands out an `inout` to them, so accesses cannot overlap; static checks still apply.
    @exclusivity(unchecked) public private(set) var base: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) public private(set) var count = 0
    @exclusivity(unchecked) public private(set) var capacity: Int

    public init(capacity: Int = 4096) {
        self.capacity = max(16, capacity)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always)
    func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always)
    public func append(_ byte: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    public func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    public func removeAll() { count = 0 }

    public func truncate(to newCount: Int) {
        precondition(newCount <= count)
        count = newCount
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    public var array: [UInt8] { Array(bytes) }
}
