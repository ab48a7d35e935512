/// One task's share of a sharded stage: task `index` of `count` (0-based, `index < count`).
///
/// Given as `--shard I/N`, or read from the engine the task runs under when `--shard` is not
/// given: Slurm job arrays (`SLURM_ARRAY_TASK_ID` is the index; the count is `FIELDPACK_SHARDS`,
/// or `SLURM_ARRAY_TASK_COUNT` for an array numbered 0…N-1), Kubernetes Indexed
/// Jobs (`JOB_COMPLETION_INDEX`, with the count from `FIELDPACK_SHARDS`, as Kubernetes does not
/// export the completions count) and AWS Batch array jobs (`AWS_BATCH_JOB_ARRAY_INDEX`, count from
/// `FIELDPACK_SHARDS`). Without either, a run is the whole job: shard 0 of 1.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// The whole job, unsharded.
    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    /// The most shards a job has.
    public static let maximumCount = 999_999

    public init(index: Int, count: Int) throws(UsageError) {
        guard count >= 1 else { throw UsageError("a shard count must be at least 1, not \(count)") }
        // As the Makefile's SHARDS: a stage keeps a little per shard (a part file, a slot), and
        // 99999999999 crashed the process allocating them, where it should say so.
        guard count <= Self.maximumCount else {
            throw UsageError("a shard count must be at most \(Self.maximumCount) (the Makefile's SHARDS too), not \(count)")
        }
        guard index >= 0 && index < count else {
            throw UsageError("shard \(index) is not one of 0…\(count - 1) (of \(count))")
        }
        self.index = index
        self.count = count
    }

    private init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `I/N`, as `--shard` takes it.
    public init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw UsageError("--shard takes INDEX/COUNT (as 3/16, counted from 0), not \"\(text)\"")
        }
        try self.init(index: index, count: count)
    }

    /// The shard given on the command line, else the engine's, else the whole job.
    public static func resolve(
        option: String?, environment read: (String) -> String? = { environment($0) }
    ) throws(UsageError) -> Shard {
        if let option { return try Shard(parsing: option) }
        func number(_ name: String) throws(UsageError) -> Int? {
            guard let text = read(name), !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw UsageError("\(name) must be an integer, not \"\(text)\"") }
            return value
        }
        if let index = try number("SLURM_ARRAY_TASK_ID") {
            // The array index is the shard index. The count is FIELDPACK_SHARDS, else the array's
            // size when the array is 0…N-1; a sparse array (a rerun's --array=1,3) does not say
            // how many shards there are.
            if let count = try number("FIELDPACK_SHARDS") { return try Shard(index: index, count: count) }
            if let count = try number("SLURM_ARRAY_TASK_COUNT"), try number("SLURM_ARRAY_TASK_MIN") ?? 0 == 0,
               try number("SLURM_ARRAY_TASK_MAX") ?? (count - 1) == count - 1 {
                return try Shard(index: index, count: count)
            }
            throw UsageError("SLURM_ARRAY_TASK_ID is set but the array is not 0…N-1: give the shard count as FIELDPACK_SHARDS or --shard I/N")
        }
        for name in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            guard let index = try number(name) else { continue }
            guard let count = try number("FIELDPACK_SHARDS") else {
                throw UsageError("\(name) is set: give the shard count as FIELDPACK_SHARDS or --shard I/N")
            }
            return try Shard(index: index, count: count)
        }
        return .whole
    }

    public var isWhole: Bool { count == 1 }

    /// Whether item `position` (a file's place in the input list, a partition number) is this
    /// shard's: round robin, so every shard's share differs by at most one.
    public func owns(_ position: Int) -> Bool { position % count == index }

    public var description: String { "\(index)/\(count)" }
}
