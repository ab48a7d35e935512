import FieldpackKit
import Testing

/// Issue 12: a task's share of a sharded stage, from `--shard I/N` or from the engine it runs
/// under (Slurm, Kubernetes Indexed Jobs, AWS Batch), and a clear error for a share that is not one.
@Suite struct ShardTests {
    @Test func theOptionNamesTheShardCountedFromZero() throws {
        let shard = try Shard.resolve(option: "3/16", environment: { _ in nil })
        #expect(shard.index == 3 && shard.count == 16)
        #expect(shard.owns(19) && !shard.owns(4))
    }

    @Test(arguments: ["16/16", "-1/4", "1/0", "1", "a/b", "1/2/3", ""])
    func aShareThatIsNotOneIsAUsageError(text: String) {
        #expect(throws: UsageError.self) { try Shard.resolve(option: text, environment: { _ in nil }) }
    }

    @Test func underSlurmTheArrayTaskIsTheShardAndTheOptionWins() throws {
        let slurm = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "8", "SLURM_ARRAY_TASK_MIN": "0"]
        #expect(try Shard.resolve(option: nil, environment: { slurm[$0] }) == Shard(index: 5, count: 8))
        #expect(try Shard.resolve(option: "1/2", environment: { slurm[$0] }) == Shard(index: 1, count: 2))
        // A rerun's sparse array (--array=1,3): the index is the shard, the count must be given.
        let sparse = ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3"]
        #expect(throws: UsageError.self) { try Shard.resolve(option: nil, environment: { sparse[$0] }) }
        let given = sparse.merging(["FIELDPACK_SHARDS": "4"]) { $1 }
        #expect(try Shard.resolve(option: nil, environment: { given[$0] }) == Shard(index: 3, count: 4))
    }

    @Test func kubernetesAndAWSBatchIndexesNeedTheCountGiven() throws {
        let kubernetes = ["JOB_COMPLETION_INDEX": "2", "FIELDPACK_SHARDS": "4"]
        #expect(try Shard.resolve(option: nil, environment: { kubernetes[$0] }) == Shard(index: 2, count: 4))
        #expect(throws: UsageError.self) {
            try Shard.resolve(option: nil, environment: { ["AWS_BATCH_JOB_ARRAY_INDEX": "2"][$0] })
        }
    }

    @Test func withoutAnEngineARunIsTheWholeJob() throws {
        #expect(try Shard.resolve(option: nil, environment: { _ in nil }) == Shard.whole)
    }
}
