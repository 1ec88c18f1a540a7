using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>What every workload needs: the options, the engines that run, and where results go.</summary>
internal sealed class BenchmarkContext
{
    internal BenchmarkContext(RunnerOptions options, IReadOnlyList<PeerEngine> engines, WorkloadSizes? sizes = null, bool warmUp = false)
    {
        Options = options;
        Engines = engines;
        Sizes = sizes ?? options.Sizes;
        WarmUp = warmUp;
    }

    /// <summary>
    /// A warm-up pass at tiny sizes, results discarded: it JIT-compiles the runner's and our engine's code so
    /// that the engine measured first does not pay for it.
    /// </summary>
    internal bool WarmUp { get; }

    internal RunnerOptions Options { get; }
    internal WorkloadSizes Sizes { get; }
    internal IReadOnlyList<PeerEngine> Engines { get; }
    internal List<PhaseResult> Results { get; } = [];
    internal List<string> Failures { get; } = [];

    /// <summary>Phases or tiers an engine does not offer, with why: reported, neither run nor failed.</summary>
    internal List<string> Skipped { get; } = [];
    internal int Threads { get; } = Environment.ProcessorCount;
    internal int Repeat { get; set; }

    internal double Cap => WarmUp ? 10 : Options.MaxPhaseSeconds;

    /// <summary>
    /// The shortest a read phase is timed for: quick sizes read a loaded W4 tree in about 0.15 s per engine, and
    /// over so short a time one pause of this shared machine moved the ratio to LMDB by a tenth or more.
    /// </summary>
    internal double MinReadSeconds => WarmUp ? 0 : 1.0;

    /// <summary>
    /// Runs <paramref name="body"/> for each engine offering the tier (and passing <paramref name="where"/>); a failing
    /// engine is reported, not fatal. Each repeat starts one engine further down the list, so that with
    /// <c>--repeats</c> no engine always runs first (on a cold page cache, a just-started JIT) or always right
    /// after another engine's writes are still being flushed.
    /// </summary>
    internal void ForEachEngine(string workload, DurabilityTier tier, Action<PeerEngine> body, Func<PeerEngine, bool>? where = null)
    {
        for (int i = 0; i < Engines.Count; i++)
        {
            var engine = Engines[(i + Repeat) % Engines.Count];
            if (where is not null && !where(engine)) continue;
            if (!engine.Supports(tier))
            {
                Skip($"{workload} {engine.Name}: the engine offers no {tier} tier");
                continue;
            }
            if (!WarmUp) Console.Error.WriteLine($"[{DateTime.Now:HH:mm:ss}] {workload} {engine.Name} ({tier})");
            try
            {
                body(engine);
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                string message = $"{workload} {engine.Name} ({tier}): {e.GetType().Name}: {e.Message}";
                Failures.Add(message);
                Console.Error.WriteLine("  FAILED " + message);
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="body"/> for the workloads without forced flushes (W4, W5's writes and reads): every engine
    /// in the ProcessCrash tier, then, when engines with nothing between durable and nothing are selected (FASTER keeps
    /// its log in memory until a checkpoint), those in the None tier with StorageEngine's None tier (InMemory) beside
    /// them as the baseline of their ratio.
    /// </summary>
    internal void ForEachEngineUnflushed(string workload, Action<PeerEngine, DurabilityTier> body)
    {
        static bool NoneOnly(PeerEngine e) => !e.Supports(DurabilityTier.ProcessCrash) && e.Supports(DurabilityTier.None);
        bool nonePass = Engines.Any(NoneOnly);
        ForEachEngine(workload, DurabilityTier.ProcessCrash, engine => body(engine, DurabilityTier.ProcessCrash),
            where: engine => !nonePass || !NoneOnly(engine));
        if (nonePass)
            ForEachEngine(workload, DurabilityTier.None, engine => body(engine, DurabilityTier.None),
                where: engine => NoneOnly(engine) || engine == PeerEngines.StorageEngine);
    }

    /// <summary>Records (once) that something was not run because the engine cannot do it.</summary>
    internal void Skip(string what)
    {
        if (WarmUp || Skipped.Contains(what)) return;
        Skipped.Add(what);
        Console.Error.WriteLine("  skipped " + what);
    }

    internal void Add(PhaseResult result)
    {
        Results.Add(result);
        if (!WarmUp) Console.Error.WriteLine($"  {result.Phase,-22} {result.OpsPerSecond,14:N0} {result.Unit}  p50 {result.P50Micros,9:N1} us  p99 {result.P99Micros,9:N1} us {result.Note}");
    }
}
