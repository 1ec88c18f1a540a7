using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W1 (sequential), W2 (random) and W3 (4 KiB values): durable batched inserts into an empty store, each
/// transaction committed before the next begins; then, for engines that can, the same with commits pipelined.
/// </summary>
internal static class InsertWorkloads
{
    private const int KeySize = 16;

    internal static void W1(BenchmarkContext context) =>
        Run(context, "W1", "seq insert", random: false, context.Sizes.W1Items, context.Sizes.W1Batch, valueSize: 128);

    internal static void W2(BenchmarkContext context) =>
        Run(context, "W2", "random insert", random: true, context.Sizes.W1Items, context.Sizes.W1Batch, valueSize: 128);

    internal static void W3(BenchmarkContext context) =>
        Run(context, "W3", "seq insert 4KiB", random: false, context.Sizes.W3Items, context.Sizes.W3Batch, valueSize: 4096);

    private static void Run(BenchmarkContext context, string workload, string phase, bool random, long items, int batch, int valueSize)
    {
        const ulong seed = 0x5EED_0002;
        long transactions = items / batch;

        // Transaction tx's puts: keys tx * batch onwards, in order or drawn at random.
        ReadOnlySpan<KeyValue> Fill(BatchBuffer buffer, long tx)
        {
            long first = tx * batch;
            for (int j = 0; j < batch; j++)
            {
                if (random) Keys.Random16(seed, first + j, buffer.Key(j));
                else Keys.Sequential16(first + j, buffer.Key(j));
                buffer.SetValue(j, first + j, valueSize);
            }
            return buffer.Puts(batch);
        }

        context.ForEachEngine(workload, DurabilityTier.Durable, engine =>
        {
            using var run = EngineRun.Open(context, workload, engine, DurabilityTier.Durable);
            var buffer = new BatchBuffer(batch, KeySize);
            var store = run.Store;
            var meter = PhaseMeter.Start(run);
            var ops = OpRunner.Run($"{workload} {engine.Name}", transactions, 1, context.Cap,
                (_, tx) => store.WriteBatch(Fill(buffer, tx)));
            // The close is part of the work (a checkpoint, a flush), so its bytes count; its time does not.
            run.CloseStore();
            long logical = ops.Done * batch * (long)(KeySize + valueSize);
            context.Add(meter.Finish(run, phase, ops, 1, batch, "items/s", logical, logical,
                note: $"latency per txn of {batch}"));
        });
        context.ForEachEngine(workload, DurabilityTier.Durable, engine =>
        {
            using var run = EngineRun.Open(context, workload, engine, DurabilityTier.Durable, suffix: "-pipelined");
            var pipelined = (IPipelinedWrites)run.Store;
            var buffer = new BatchBuffer(batch, KeySize);
            var meter = PhaseMeter.Start(run);
            var ops = PipelinedRunner.Run($"{workload} {engine.Name} pipelined", transactions, PipelinedInFlight, context.Cap,
                tx => pipelined.WriteBatchAsync(Fill(buffer, tx)));
            run.CloseStore();
            long logical = ops.Done * batch * (long)(KeySize + valueSize);
            context.Add(meter.Finish(run, $"{phase}, {PipelinedInFlight} in flight", ops, 1, batch, "items/s", logical, logical,
                note: $"one thread, CommitAsync, next txn begun before awaiting; latency per txn of {batch}, build to durable"));
        }, where: engine => engine.PipelinedWrites);
    }

    /// <summary>
    /// Commits in flight in the pipelined pass, for engines that offer <see cref="IPipelinedWrites"/>: each is still
    /// acknowledged only once durable, but the writer builds the next ones meanwhile.
    /// </summary>
    private const int PipelinedInFlight = 8;
}
