using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W5, after TidesDB's benchtool: 16-byte keys, 100-byte values. Sequential and random writes at batch sizes
/// 1, 10, 100 and 1,000 (ProcessCrash tier, a fresh store each), point reads and 100-key range scans on the
/// randomly written store, then durable single-put commits from 1 to all-cores threads. Engines without a
/// ProcessCrash tier run the writes and reads in the None tier against ours (<see cref="BenchmarkContext.ForEachEngineUnflushed"/>).
/// </summary>
internal static class BenchtoolWorkload
{
    private const int KeySize = 16;
    private const int ValueSize = 100;
    private const int EntryBytes = KeySize + ValueSize;
    private const ulong RandomSeed = 0x5EED_0005;
    private static readonly int[] BatchSizes = [1, 10, 100, 1000];

    internal static void Run(BenchmarkContext context)
    {
        int threads = context.Threads;
        context.ForEachEngineUnflushed("W5", (engine, tier) => WritesAndReads(context, engine, tier));

        for (int t = 1; t <= threads; t++)
        {
            int writers = t;
            context.ForEachEngine("W5", DurabilityTier.Durable, engine => DurableWrites(context, engine, writers));
        }
    }

    /// <summary>The write phases, each on a fresh store, then reads of the last one (random keys, batches of 1,000).</summary>
    private static void WritesAndReads(BenchmarkContext context, PeerEngine engine, DurabilityTier tier)
    {
        long items = context.Sizes.W5Items;
        int threads = context.Threads;
        WarmUpWrites(context, engine, tier);
        foreach (bool random in new[] { false, true })
        {
            foreach (int batch in BatchSizes)
            {
                string phase = $"{(random ? "random" : "seq")} write b={batch}";
                using var run = EngineRun.Open(context, "W5", engine, tier);
                var store = run.Store;
                var buffer = new BatchBuffer(batch, KeySize);
                var meter = PhaseMeter.Start(run);
                var ops = OpRunner.Run($"W5 {engine.Name} {phase}", items / batch, 1, context.Cap,
                    (_, call) => WriteBatch(store, buffer, random, batch, call));
                // What an engine left for later (pages held for a checkpoint, a memtable) is written at the
                // close, and its bytes count here, as in W1-W3; its time does not. The reads reopen the store, so
                // none of that work lands in them. A None-tier store keeps nothing once closed, so the reads
                // run on it still open.
                bool readsFollow = random && batch == BatchSizes[^1];
                if (!readsFollow || tier != DurabilityTier.None) run.CloseStore();
                long written = ops.Done * batch;
                long logical = written * EntryBytes;
                context.Add(meter.Finish(run, phase, ops, 1, batch, "items/s", logical, logical,
                    note: batch == 1 ? "" : $"latency per txn of {batch}"));
                if (readsFollow)
                {
                    run.ReopenStore();
                    Reads(context, run, written, threads);
                }
            }
        }
    }

    /// <summary>Batch <paramref name="call"/> of a write phase: keys from <c>call × batch</c> on, in order or hashed.</summary>
    private static void WriteBatch(IKeyValueStore store, BatchBuffer buffer, bool random, int batch, long call)
    {
        long first = call * batch;
        for (int j = 0; j < batch; j++)
        {
            if (random) Keys.Random16(RandomSeed, first + j, buffer.Key(j));
            else Keys.Sequential16(first + j, buffer.Key(j));
            buffer.SetValue(j, first + j, ValueSize);
        }
        store.WriteBatch(buffer.Puts(batch));
    }

    /// <summary>
    /// Untimed, before an engine's write phases: each phase's shape for <see cref="WriteWarmUpSeconds"/> on a scratch
    /// store, then deleted. At quick sizes a phase of batches of 1,000 is a hundred commits, over in some 50 ms:
    /// without this it timed a managed engine's per-commit code before the .NET JIT had optimized it (the same
    /// build measured 0.16 and 0.5 µs per item, with and without tiered compilation), a native engine's not.
    /// </summary>
    private static void WarmUpWrites(BenchmarkContext context, PeerEngine engine, DurabilityTier tier)
    {
        foreach (bool random in new[] { false, true })
        {
            foreach (int batch in BatchSizes)
            {
                using var run = EngineRun.Open(context, "W5", engine, tier, "-warmup");
                var buffer = new BatchBuffer(batch, KeySize);
                OpRunner.Run($"W5 {engine.Name} warm-up b={batch}", context.Sizes.W5Items / batch, 1, WriteWarmUpSeconds,
                    (_, call) => WriteBatch(run.Store, buffer, random, batch, call), recordLatency: false);
            }
        }
    }

    // Shorter than a read phase's warm-up (OpRunner.WarmUpSeconds): eight shapes per engine, each a fresh store.
    private const double WriteWarmUpSeconds = 0.3;

    private static void Reads(BenchmarkContext context, EngineRun run, long written, int threads)
    {
        var store = run.Store;
        long live = written * EntryBytes;
        var values = PerThreadBuffers.Create(threads, ValueSize);
        foreach (int readers in threads == 1 ? new[] { 1 } : new[] { 1, threads })
        {
            var meter = PhaseMeter.Start(run);
            var ops = OpRunner.Run($"W5 {run.Engine.Name} point reads x{readers}", written, readers, double.PositiveInfinity, (t, i) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Random16(RandomSeed, Keys.Uniform(51, i, written), key);
                if (store.Get(key, values[t]) < 0) throw new InvalidOperationException("a written key was not found");
            }, warmUp: true, minSeconds: context.MinReadSeconds);
            context.Add(meter.Finish(run, "point read", ops, readers, 1, "ops/s", 0, live));
        }
        if (!run.Engine.OrderedScans)
        {
            context.Skip($"W5 {run.Engine.Name}: range scan 100: the engine has no ordered scan");
        }
        else
        {
            var meter = PhaseMeter.Start(run);
            var ops = OpRunner.Run($"W5 {run.Engine.Name} range 100", Math.Max(threads, written / 10), threads, double.PositiveInfinity, (_, i) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Random16(RandomSeed, Keys.Uniform(52, i, written), key);
                store.Scan(key, 100);
            }, warmUp: true, minSeconds: context.MinReadSeconds);
            context.Add(meter.Finish(run, "range scan 100", ops, threads, 1, "scans/s", 0, live,
                note: "from a random existing key"));
        }
    }

    private static void DurableWrites(BenchmarkContext context, PeerEngine engine, int writers)
    {
        long commits = context.Sizes.W5DurableCommits;
        using var run = EngineRun.Open(context, "W5", engine, DurabilityTier.Durable, $"-durable{writers}");
        var store = run.Store;
        var buffers = Enumerable.Range(0, writers).Select(_ => new BatchBuffer(1, KeySize)).ToArray();
        var meter = PhaseMeter.Start(run);
        var ops = OpRunner.Run($"W5 {engine.Name} durable x{writers}", commits, writers, context.Cap, (t, i) =>
        {
            var b = buffers[t];
            Keys.Random16(RandomSeed ^ 0xD, i, b.Key(0));
            b.SetValue(0, i, ValueSize);
            store.WriteBatch(b.Puts(1));
        }, warmUp: true);
        long logical = ops.Done * EntryBytes;
        context.Add(meter.Finish(run, $"durable write x{writers} thr", ops, writers, 1, "commits/s", logical, logical,
            note: "1-put txn, random key"));
    }
}
