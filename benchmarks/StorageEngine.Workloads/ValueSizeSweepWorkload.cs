using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W6, a value-size sweep: at 100 B, 1 KiB and 4 KiB values, each on a fresh store, random-key batch inserts into the
/// empty store, then as many random-key batch updates of the keys just inserted. 16-byte random keys (as W2 and W5),
/// one thread, ProcessCrash tier (engines without it run in the None tier beside ours,
/// <see cref="BenchmarkContext.ForEachEngineUnflushed"/>). Each value size gets the same byte budget of values
/// (<see cref="WorkloadSizes.W6ValueBytes"/>), so the item count shrinks as values grow, but never below
/// <see cref="WorkloadSizes.W6MinItems"/> (<see cref="WorkloadSizes.W6Items"/>): at quick sizes 100 B and 1 KiB values
/// write 128 MiB each, 4 KiB values 512 MiB. As in W5, each phase ends with the store's close, so what an engine held back for later (pages
/// waiting for a checkpoint, a memtable) counts in its write amplification though not in its time; the updates run
/// on the store reopened.
/// </summary>
internal static class ValueSizeSweepWorkload
{
    private const int KeySize = 16;
    private const ulong InsertSeed = 0x5EED_0006;
    private const ulong UpdateSeed = 0x5EED_0066;
    private static readonly int[] ValueSizes = [100, 1024, 4096];

    internal static void Run(BenchmarkContext context)
    {
        context.ForEachEngineUnflushed("W6", (engine, tier) =>
        {
            foreach (int valueSize in ValueSizes) RunOn(context, engine, tier, valueSize);
        });
    }

    /// <summary>"100 B", "1 KiB", "4 KiB": how phase names show a value size.</summary>
    internal static string SizeLabel(int bytes) => bytes % 1024 == 0 ? $"{bytes / 1024} KiB" : $"{bytes} B";

    private static void RunOn(BenchmarkContext context, PeerEngine engine, DurabilityTier tier, int valueSize)
    {
        int batch = context.Sizes.W6Batch;
        long items = context.Sizes.W6Items(valueSize);
        int entryBytes = KeySize + valueSize;
        string size = SizeLabel(valueSize);
        using var run = EngineRun.Open(context, "W6", engine, tier, suffix: "-" + valueSize);
        var buffer = new BatchBuffer(batch, KeySize);
        // A None-tier store keeps nothing once closed, so its updates run on it still open.
        bool closeBetween = tier != DurabilityTier.None;

        // Inserts: item i is key Random16(InsertSeed, i), so batch `call` holds items call * batch onwards.
        var meter = PhaseMeter.Start(run);
        var store = run.Store;
        var ops = OpRunner.Run($"W6 {engine.Name} insert {size}", items / batch, 1, context.Cap, (_, call) =>
        {
            long first = call * batch;
            for (int j = 0; j < batch; j++)
            {
                Keys.Random16(InsertSeed, first + j, buffer.Key(j));
                buffer.SetValue(j, first + j, valueSize);
            }
            store.WriteBatch(buffer.Puts(batch));
        });
        if (closeBetween) run.CloseStore();
        long inserted = ops.Done * batch;
        long logical = inserted * entryBytes;
        context.Add(meter.Finish(run, $"insert {size}", ops, 1, batch, "items/s", logical, logical,
            note: Note(ops, batch, entryBytes, $"{inserted:N0} new keys")));

        // Updates: each key drawn uniformly from those inserted (a batch may repeat one), with a value it did not have.
        if (closeBetween) run.ReopenStore();
        store = run.Store;
        meter = PhaseMeter.Start(run);
        ops = OpRunner.Run($"W6 {engine.Name} update {size}", inserted / batch, 1, context.Cap, (_, call) =>
        {
            long first = call * batch;
            for (int j = 0; j < batch; j++)
            {
                Keys.Random16(InsertSeed, Keys.Uniform(UpdateSeed, first + j, inserted), buffer.Key(j));
                buffer.SetValue(j, inserted + first + j, valueSize);
            }
            store.WriteBatch(buffer.Puts(batch));
        });
        if (closeBetween) run.CloseStore();
        context.Add(meter.Finish(run, $"update {size}", ops, 1, batch, "items/s", ops.Done * batch * entryBytes, logical,
            note: Note(ops, batch, entryBytes, $"keys uniform over the {inserted:N0} inserted")));
    }

    private static string Note(OpRun ops, int batch, int entryBytes, string keys) =>
        $"{keys}; {ops.Done * batch * (double)entryBytes / ops.Seconds / 1e6:N1} MB/s of keys+values; latency per txn of {batch}";
}
