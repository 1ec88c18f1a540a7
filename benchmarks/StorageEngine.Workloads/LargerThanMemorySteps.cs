using System.Text.Json;
using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W7's measured part, run by a child process inside a memory cgroup (<see cref="LargerThanMemoryWorkload"/> starts
/// it): one store of 8-byte big-endian integer keys and 1 KiB values, ProcessCrash tier, grown in steps to 0.5, 1, 2
/// and 4 times the memory limit (keys and values counted). At each step it loads the keys from the last step's
/// count up, ascending, in batches of <see cref="LoadBatch"/>, then times, on all cores, point reads, 100-entry
/// forward scans and 1-put updates, each from keys uniform over everything loaded. Nothing is dropped by hand:
/// what stays cached is what the engine and the kernel keep under the limit. Each measured phase first runs its
/// operations untimed for <see cref="OpRunner.WarmUpSeconds"/> (other keys), and that rate sizes the timed run to
/// about <see cref="WorkloadSizes.W7PhaseSeconds"/> (bounded at twice that). No per-operation latencies are kept:
/// at the smaller steps the reads run at millions a second, and an array of their latencies would take a large part
/// of the limit the engines are measured under.
/// </summary>
internal static class LargerThanMemorySteps
{
    private const int KeySize = 8;
    private const int ValueSize = 1024;
    private const int EntryBytes = KeySize + ValueSize;
    private const int LoadBatch = 256;
    private const int ScanLength = 100;

    /// <summary>The data sizes measured, as multiples of the memory limit.</summary>
    internal static readonly double[] Steps = [0.5, 1, 2, 4];

    /// <summary>The phase name of <paramref name="operation"/> at a step: "point read, data 2x limit".</summary>
    internal static string Phase(string operation, double step) => $"{operation}, data {step:0.##}x limit";

    /// <summary>The operation of a phase named by <see cref="Phase"/> ("point read"), for the curve chart's lines.</summary>
    internal static string Operation(string phase)
    {
        int cut = phase.IndexOf(", data ", StringComparison.Ordinal);
        return cut < 0 ? phase : phase[..cut];
    }

    /// <summary>
    /// The child process's whole run (<c>--w7-child ENGINE</c>): checks that it is inside its cgroup, runs the steps,
    /// and writes its results to <c>--w7-result</c>. Returns the process's exit code.
    /// </summary>
    internal static int RunChild(RunnerOptions options)
    {
        var engine = PeerEngines.Find(options.ChildEngine!);
        if (engine is null)
        {
            Console.Error.WriteLine($"W7 child: unknown engine '{options.ChildEngine}'.");
            return 2;
        }
        var group = MemoryCgroup.Existing(options.ChildCgroup!);
        if (!group.ContainsThisProcess())
        {
            Console.Error.WriteLine($"W7 child: this process is not in {group.Describe()}: the limit would not apply, so nothing is measured.");
            return 3;
        }
        // The adapters size their engines' caches to the limit and LMDB turns its readahead off (MemoryLimit).
        MemoryLimit.Bytes = options.MemoryLimit;
        var context = new BenchmarkContext(options, [engine]);
        void Save() => File.WriteAllText(options.ChildResultFile!,
            JsonSerializer.Serialize(new ChildResults(context.Results, context.Failures, context.Skipped), Report.JsonOptions));
        context.ForEachEngine("W7", DurabilityTier.ProcessCrash, e => Run(context, e, group, options.MemoryLimit!.Value, Save));
        Save();
        return context.Failures.Count == 0 ? 0 : 1;
    }

    private static void Run(BenchmarkContext context, PeerEngine engine, MemoryCgroup group, long limit, Action save)
    {
        int threads = context.Threads;
        WarmUp(context, engine, threads);
        using var run = EngineRun.Open(context, "W7", engine, DurabilityTier.ProcessCrash);
        var store = run.Store;
        var loadBuffer = new BatchBuffer(LoadBatch, KeySize);
        var putBuffers = Enumerable.Range(0, threads).Select(_ => new BatchBuffer(1, KeySize)).ToArray();
        var values = PerThreadBuffers.Create(threads, ValueSize);
        string label = $"W7 {engine.Name}";
        string readAhead = DeviceWrites.For(run.Directory)?.ReadAheadKilobytes() is { } kb ? $"; device readahead {kb:N0} KiB" : "";
        long loaded = 0;
        for (int s = 0; s < Steps.Length; s++)
        {
            double step = Steps[s];
            long target = Math.Max(LoadBatch, (long)(step * limit / EntryBytes) / LoadBatch * LoadBatch);
            long from = loaded;

            var meter = PhaseMeter.Start(run);
            var ops = OpRunner.Run($"{label} load to {step}x", (target - from) / LoadBatch, 1, context.Cap, (_, call) =>
            {
                long first = from + call * LoadBatch;
                for (int j = 0; j < LoadBatch; j++)
                {
                    Keys.Int64(first + j, loadBuffer.Key(j));
                    loadBuffer.SetValue(j, first + j, ValueSize);
                }
                store.WriteBatch(loadBuffer.Puts(LoadBatch));
            });
            loaded = from + ops.Done * LoadBatch;
            long n = loaded;
            Add(context, meter.Finish(run, Phase("load", step), ops, 1, LoadBatch, "items/s", ops.Done * LoadBatch * EntryBytes,
                n * EntryBytes, note: Note(group, limit, n, 1, $"keys {from:N0} to {n - 1:N0} ascending, txns of {LoadBatch}; the store stays open{readAhead}")), step);
            save();

            ulong seed = 0x7000 + (ulong)s * 0x100;
            meter = PhaseMeter.Start(run);
            ops = Timed(context, $"{label} point read at {step}x", threads, stream => (t, i) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Int64(Keys.Uniform(seed + stream, i, n), key);
                if (store.Get(key, values[t]) < 0)
                    throw new InvalidOperationException($"key {Keys.Uniform(seed + stream, i, n):N0}, loaded, was not found ({n:N0} loaded)");
            });
            Add(context, meter.Finish(run, Phase("point read", step), ops, threads, 1, "ops/s", 0, n * EntryBytes, latencies: false,
                note: Note(group, limit, n, threads, "keys uniform over those loaded")), step);
            save();

            meter = PhaseMeter.Start(run);
            ops = Timed(context, $"{label} scan at {step}x", threads, stream => (_, i) =>
            {
                Span<byte> key = stackalloc byte[KeySize];
                Keys.Int64(Keys.Uniform(seed + 0x10 + stream, i, n), key);
                store.Scan(key, ScanLength);
            });
            Add(context, meter.Finish(run, Phase($"scan {ScanLength}", step), ops, threads, 1, "scans/s", 0, n * EntryBytes, latencies: false,
                note: Note(group, limit, n, threads, $"forward, up to {ScanLength} entries from a uniform key")), step);
            save();

            meter = PhaseMeter.Start(run);
            ops = Timed(context, $"{label} update at {step}x", threads, stream => (t, i) =>
            {
                var b = putBuffers[t];
                Keys.Int64(Keys.Uniform(seed + 0x20 + stream, i, n), b.Key(0));
                b.SetValue(0, ((long)(s + 1) << 40) + ((long)stream << 36) + i, ValueSize);
                store.WriteBatch(b.Puts(1));
            });
            Add(context, meter.Finish(run, Phase("1-put update", step), ops, threads, 1, "ops/s", ops.Done * EntryBytes, n * EntryBytes,
                latencies: false, note: Note(group, limit, n, threads, "1-put txn, key uniform over those loaded")), step);
            save();
        }
    }

    /// <summary>
    /// Runs <paramref name="operation"/>'s stream 1 untimed for <see cref="OpRunner.WarmUpSeconds"/>, then times
    /// stream 0 for about <see cref="WorkloadSizes.W7PhaseSeconds"/>, sized by the untimed rate and stopped at twice
    /// that. Different streams draw different keys, so the timed run does not replay what the warm-up just read.
    /// </summary>
    private static OpRun Timed(BenchmarkContext context, string label, int threads, Func<ulong, Action<int, long>> operation)
    {
        const long Unbounded = 1L << 40;
        var warm = OpRunner.Run(label + " (untimed)", Unbounded, threads, OpRunner.WarmUpSeconds, operation(1), recordLatency: false);
        double seconds = context.Sizes.W7PhaseSeconds;
        long planned = Math.Max(threads * 16L, (long)(warm.Done / warm.Seconds * seconds));
        return OpRunner.Run(label, planned, threads, 2 * seconds, operation(0), recordLatency: false);
    }

    /// <summary>
    /// Every operation's shape on a tiny scratch store, untimed, so that the JIT has compiled them before the first
    /// load. Tiny because what an engine's allocator keeps after the scratch store closes stays charged to the limit:
    /// a scratch store of 20,000 entries left RocksDB's child process 50 MB of anonymous memory and ours 80 MB (the first
    /// version of W7, 2026-11-27, the 2-vCPU machine).
    /// </summary>
    private static void WarmUp(BenchmarkContext context, PeerEngine engine, int threads)
    {
        const long Entries = 2_048;
        const double Seconds = 0.2;
        using var run = EngineRun.Open(context, "W7", engine, DurabilityTier.ProcessCrash, "-warmup");
        var store = run.Store;
        var buffers = Enumerable.Range(0, threads).Select(_ => new BatchBuffer(LoadBatch, KeySize)).ToArray();
        var values = PerThreadBuffers.Create(threads, ValueSize);
        OpRunner.Run($"W7 {engine.Name} warm-up load", Entries / LoadBatch, 1, double.PositiveInfinity, (_, call) =>
        {
            for (int j = 0; j < LoadBatch; j++)
            {
                Keys.Int64(call * LoadBatch + j, buffers[0].Key(j));
                buffers[0].SetValue(j, call * LoadBatch + j, ValueSize);
            }
            store.WriteBatch(buffers[0].Puts(LoadBatch));
        }, recordLatency: false);
        long n = Entries / LoadBatch * LoadBatch;
        OpRunner.Run($"W7 {engine.Name} warm-up reads", 1L << 40, threads, Seconds, (t, i) =>
        {
            Span<byte> key = stackalloc byte[KeySize];
            Keys.Int64(Keys.Uniform(0x77, i, n), key);
            store.Get(key, values[t]);
        }, recordLatency: false);
        OpRunner.Run($"W7 {engine.Name} warm-up scans", 1L << 40, threads, Seconds, (_, i) =>
        {
            Span<byte> key = stackalloc byte[KeySize];
            Keys.Int64(Keys.Uniform(0x78, i, n), key);
            store.Scan(key, ScanLength);
        }, recordLatency: false);
        OpRunner.Run($"W7 {engine.Name} warm-up updates", 1L << 40, threads, Seconds, (t, i) =>
        {
            Keys.Int64(Keys.Uniform(0x79, i, n), buffers[t].Key(0));
            buffers[t].SetValue(0, i, ValueSize);
            store.WriteBatch(buffers[t].Puts(1));
        }, recordLatency: false);
    }

    private static void Add(BenchmarkContext context, PhaseResult result, double step)
    {
        result.DataOverMemoryLimit = step;
        context.Add(result);
    }

    /// <summary>The step's data size against the limit and what the cgroup has charged, measured at the phase's end.</summary>
    private static string Note(MemoryCgroup group, long limit, long entries, int threads, string what)
    {
        double data = entries * (double)EntryBytes;
        string now = $"now {(group.Usage ?? 0) / 1048576.0:N0} MiB" +
            (group.Anonymous is { } anonymous ? $" ({anonymous / 1048576.0:N0} MiB anonymous)" : "");
        string charged = group.Peak is { } peak ? $"cgroup v{group.Version} peak {peak / 1048576.0:N0} MiB, {now}" : $"cgroup v{group.Version} {now}";
        return $"{(threads > 1 ? $"{threads} threads; " : "")}{what}; data {data / 1048576:N0} MiB = {data / limit:0.00}x the {limit / 1048576.0:N0} MiB limit; {charged}";
    }
}
