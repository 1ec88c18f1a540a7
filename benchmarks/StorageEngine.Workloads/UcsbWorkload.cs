using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W4, a subset of the UCSB suite: 8-byte integer keys, 1 KiB values, no forced flush (ProcessCrash tier),
/// batches and ranges of 256, every phase but Init on all cores, phases in the published order on one store.
/// Engines without a ProcessCrash tier run it in the None tier against ours (<see cref="BenchmarkContext.ForEachEngineUnflushed"/>).
/// </summary>
internal static class UcsbWorkload
{
    private const int KeySize = 8;
    private const int ValueSize = 1024;
    private const int EntryBytes = KeySize + ValueSize;
    private const long RemoveStride = 1_000_003;

    internal static void Run(BenchmarkContext context)
    {
        context.ForEachEngineUnflushed("W4", (engine, tier) => RunOn(context, engine, tier));
    }

    private static void RunOn(BenchmarkContext context, PeerEngine engine, DurabilityTier tier)
    {
        long n = context.Sizes.W4Entries;
        int batch = context.Sizes.W4Batch;
        int threads = context.Threads;
        using var run = EngineRun.Open(context, "W4", engine, tier);
        var store = run.Store;
        var present = new byte[2 * n];
        var buffers = Enumerable.Range(0, threads).Select(_ => new BatchBuffer(batch, KeySize)).ToArray();
        var values = PerThreadBuffers.Create(threads, ValueSize);
        var scratch = PerThreadBuffers.Create(threads, ValueSize);
        long Live() => present.LongCount(b => b != 0) * EntryBytes;
        string label = $"W4 {engine.Name}";

        void Put1(int t, long key, long valueIndex)
        {
            var b = buffers[t];
            Keys.Int64(key, b.Key(0));
            b.SetValue(0, valueIndex, ValueSize);
            store.WriteBatch(b.Puts(1));
            present[key] = 1;
        }

        // Init: bulk load of keys 0..N-1 in ascending batches.
        var meter = PhaseMeter.Start(run);
        var ops = OpRunner.Run(label + " init", n / batch, 1, context.Cap, (t, call) =>
        {
            var b = buffers[t];
            for (int j = 0; j < batch; j++)
            {
                long key = call * batch + j;
                Keys.Int64(key, b.Key(j));
                b.SetValue(j, key, ValueSize);
                present[key] = 1;
            }
            store.WriteBatch(b.Puts(batch));
        });
        context.Add(meter.Finish(run, "Init", ops, 1, batch, "entries/s", ops.Done * batch * EntryBytes, Live(),
            note: $"latency per batch of {batch}"));

        meter = PhaseMeter.Start(run);
        ops = OpRunner.Run(label + " read", n, threads, double.PositiveInfinity, (t, i) =>
        {
            Span<byte> key = stackalloc byte[KeySize];
            Keys.Int64(Keys.Uniform(11, i, n), key);
            store.Get(key, values[t]);
        }, warmUp: true, minSeconds: context.MinReadSeconds);
        context.Add(meter.Finish(run, "Read", ops, threads, 1, "ops/s", 0, Live()));

        long calls = Math.Max(threads, n / 64);
        meter = PhaseMeter.Start(run);
        ops = OpRunner.Run(label + " batch read", calls, threads, double.PositiveInfinity, (t, call) =>
        {
            var b = buffers[t];
            for (int j = 0; j < batch; j++) Keys.Int64(Keys.Uniform(12, call * batch + j, n), b.Key(j));
            store.GetBatch(b.KeyList(batch), scratch[t]);
        }, warmUp: true, minSeconds: context.MinReadSeconds);
        context.Add(meter.Finish(run, $"BatchRead({batch})", ops, threads, batch, "keys/s", 0, Live(),
            note: "latency per batch"));

        if (!engine.OrderedScans)
        {
            context.Skip($"W4 {engine.Name}: RangeSelect({batch}) and Scan: the engine has no ordered scan");
        }
        else
        {
            meter = PhaseMeter.Start(run);
            ops = OpRunner.Run(label + " range select", calls, threads, double.PositiveInfinity, (t, call) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Int64(Keys.Uniform(13, call, n), key);
                store.Scan(key, batch);
            }, warmUp: true, minSeconds: context.MinReadSeconds);
            context.Add(meter.Finish(run, $"RangeSelect({batch})", ops, threads, batch, "keys/s", 0, Live(),
                note: "latency per range"));

            meter = PhaseMeter.Start(run);
            long visited = 0;
            ops = OpRunner.Run(label + " scan", threads, threads, double.PositiveInfinity, (t, part) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Int64(n * part / threads, key);
                Interlocked.Add(ref visited, store.Scan(key, (int)(n * (part + 1) / threads - n * part / threads)));
            }, recordLatency: false);
            var scan = meter.Finish(run, "Scan", ops, threads, 1, "entries/s", 0, Live(), latencies: false,
                note: $"{threads} threads, each one cursor over 1/{threads} of the keys");
            context.Add(scan with { Operations = visited, OpsPerSecond = visited / ops.Seconds });
        }

        meter = PhaseMeter.Start(run);
        long updates = 0;
        ops = OpRunner.Run(label + " read/update", n / 2, threads, context.Cap, (t, i) =>
        {
            long key = Keys.Uniform(14, i, n);
            if ((Keys.Mix((ulong)i ^ 0xABCDEF) & 1) == 0)
            {
                Span<byte> k = stackalloc byte[KeySize];
                Keys.Int64(key, k);
                store.Get(k, values[t]);
            }
            else
            {
                Put1(t, key, i + n);
                Interlocked.Increment(ref updates);
            }
        });
        context.Add(meter.Finish(run, "ReadUpdate 50:50", ops, threads, 1, "ops/s", updates * EntryBytes, Live(),
            note: "update = 1-put txn"));

        meter = PhaseMeter.Start(run);
        long upserts = 0;
        ops = OpRunner.Run(label + " read/upsert", n / 2, threads, context.Cap, (t, i) =>
        {
            if (Keys.Mix((ulong)i ^ 0x1234567) % 100 < 5)
            {
                Put1(t, n + i, i + 2 * n);
                Interlocked.Increment(ref upserts);
            }
            else
            {
                Span<byte> k = stackalloc byte[KeySize];
                Keys.Int64(Keys.Uniform(15, i, n), k);
                store.Get(k, values[t]);
            }
        });
        context.Add(meter.Finish(run, "ReadUpsert 95:5", ops, threads, 1, "ops/s", upserts * EntryBytes, Live(),
            note: "upsert = new key, 1-put txn"));

        meter = PhaseMeter.Start(run);
        ops = OpRunner.Run(label + " batch upsert", Math.Max(threads, n / batch), threads, context.Cap, (t, call) =>
        {
            var b = buffers[t];
            for (int j = 0; j < batch; j++)
            {
                long key = Keys.Uniform(16, call * batch + j, 2 * n);
                Keys.Int64(key, b.Key(j));
                b.SetValue(j, key + 3 * n, ValueSize);
                present[key] = 1;
            }
            store.WriteBatch(b.Puts(batch));
        });
        context.Add(meter.Finish(run, $"BatchUpsert({batch})", ops, threads, batch, "keys/s", ops.Done * batch * EntryBytes, Live(),
            note: "keys uniform in [0, 2N); latency per batch"));

        meter = PhaseMeter.Start(run);
        ops = OpRunner.Run(label + " remove", n / 4, threads, context.Cap, (t, i) =>
        {
            long key = i * RemoveStride % n;
            var b = buffers[t];
            Keys.Int64(key, b.Key(0));
            store.DeleteBatch(b.KeyList(1));
            present[key] = 0;
        });
        context.Add(meter.Finish(run, "Remove", ops, threads, 1, "ops/s", ops.Done * KeySize, Live(),
            note: "1-delete txn; WA over key bytes"));
    }
}
