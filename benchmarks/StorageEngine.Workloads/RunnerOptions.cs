using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>The command line.</summary>
internal sealed class RunnerOptions
{
    internal static readonly string[] AllWorkloads = ["W1", "W2", "W3", "W4", "W5", "W6", "W7"];

    /// <summary>What runs without <c>--workloads</c>: all but W7, which needs <c>--memory-limit</c>.</summary>
    internal static readonly string[] DefaultWorkloads = ["W1", "W2", "W3", "W4", "W5", "W6"];

    internal bool Quick { get; private set; }
    internal IReadOnlyList<string> Workloads { get; private set; } = DefaultWorkloads;
    internal IReadOnlyList<string>? Engines { get; private set; }
    internal string OutputDirectory { get; private set; } = Path.GetFullPath("benchmark-results");
    internal string? DataDirectory { get; private set; }
    internal int Repeats { get; private set; } = 1;
    internal double Scale { get; private set; } = 1;
    internal double MaxPhaseSeconds { get; private set; }
    internal bool SkipFloor { get; private set; }
    internal bool Help { get; private set; }
    internal string? WriteMarkdown { get; private set; }
    internal string? FromResults { get; private set; }

    /// <summary>W7's memory limit in bytes (<c>--memory-limit</c>); null when not given.</summary>
    internal long? MemoryLimit { get; private set; }

    /// <summary>
    /// Where W7 creates its cgroups (<c>--cgroup-parent</c>): a cgroup directory the runner may write; null to
    /// find one (<see cref="MemoryCgroup"/>).
    /// </summary>
    internal string? CgroupParent { get; private set; }

    /// <summary>
    /// Set in a W7 child process only (the hidden <c>--w7-child</c>): the engine it runs. The parent starts the
    /// child inside the cgroup <see cref="ChildCgroup"/> and reads its results from <see cref="ChildResultFile"/>.
    /// </summary>
    internal string? ChildEngine { get; private set; }

    /// <summary>The W7 child's cgroup directory (hidden <c>--w7-cgroup</c>).</summary>
    internal string? ChildCgroup { get; private set; }

    /// <summary>Where the W7 child writes its results (hidden <c>--w7-result</c>).</summary>
    internal string? ChildResultFile { get; private set; }

    internal string DataRoot => DataDirectory ?? Path.Combine(OutputDirectory, "data");

    internal WorkloadSizes Sizes => (Quick ? WorkloadSizes.Quick : WorkloadSizes.Full).Scale(Scale);

    internal const string Usage = """
        Usage: dotnet run -c Release --project benchmarks/StorageEngine.Workloads -- [options]
          --quick                 small sizes (minutes on a 2-core VM) instead of the published ones
          --workloads W1,...,W7   which workloads (default W1-W6; W7 needs --memory-limit)
                                  W6: random-key batch inserts, then updates, at 100 B, 1 KiB and 4 KiB values
                                  W7: reads, 1-put updates and 100-entry scans as the data grows from 0.5x to 4x
                                  the memory limit, each engine in a child process in a cgroup of that limit
          --engines a,b,...       storageengine,lmdb,rocksdb,sqlite,esent,zonetree,faster (default all that load)
          --out DIR               where results.csv/results.json go (default ./benchmark-results)
          --data DIR              where the engines' files go (default OUT/data); the floor is measured there
          --repeats N             run each workload N times, each starting with the next engine, and report
                                  the run with the median ops/s (default 1)
          --scale F               multiply the item counts (e.g. 0.2)
          --max-phase-seconds S   stop a write phase after S seconds and report what it did (default 180 quick, 3600 full)
          --no-floor              skip measuring the machine's floor
          --memory-limit SIZE     W7's memory limit (e.g. 256M, 1G): cgroup v2 memory.max or v1
                                  memory.limit_in_bytes of each engine's child process (needs root or a
                                  delegated cgroup)
          --cgroup-parent DIR     where W7 creates its cgroups (default: beside the runner's own cgroup (v2),
                                  under it (v1), or at the memory hierarchy's root)
          --write-markdown FILE   after the run, replace FILE's block between <!-- generated:workloads:begin -->
                                  and <!-- generated:workloads:end --> with the figures (e.g. BENCHMARKS.md)
          --from-results JSON     run nothing: take the figures from a results.json an earlier run saved
                                  (with --write-markdown, write them there; else print them)
        """;

    internal static RunnerOptions Parse(string[] args)
    {
        var o = new RunnerOptions();
        for (int i = 0; i < args.Length; i++)
        {
            string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value.");
            switch (args[i])
            {
                case "--quick": o.Quick = true; break;
                case "--workloads": o.Workloads = List(Next()).Select(w => w.ToUpperInvariant()).ToArray(); break;
                case "--engines": o.Engines = List(Next()).Select(e => e.ToLowerInvariant()).ToArray(); break;
                case "--out": o.OutputDirectory = Path.GetFullPath(Next()); break;
                case "--data": o.DataDirectory = Path.GetFullPath(Next()); break;
                case "--repeats": o.Repeats = Math.Max(1, int.Parse(Next(), CultureInfo.InvariantCulture)); break;
                case "--scale": o.Scale = double.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--max-phase-seconds": o.MaxPhaseSeconds = double.Parse(Next(), CultureInfo.InvariantCulture); break;
                case "--no-floor": o.SkipFloor = true; break;
                case "--write-markdown": o.WriteMarkdown = Next(); break;
                case "--from-results": o.FromResults = Next(); break;
                case "--memory-limit": o.MemoryLimit = ParseSize(Next()); break;
                case "--cgroup-parent": o.CgroupParent = Path.GetFullPath(Next()); break;
                // Hidden: how the W7 parent starts a child process of itself (LargerThanMemoryWorkload).
                case "--w7-child": o.ChildEngine = Next().ToLowerInvariant(); break;
                case "--w7-cgroup": o.ChildCgroup = Next(); break;
                case "--w7-result": o.ChildResultFile = Next(); break;
                case "-h" or "--help": o.Help = true; break;
                default: throw new ArgumentException($"Unknown option {args[i]}.");
            }
        }
        foreach (var w in o.Workloads)
            if (!AllWorkloads.Contains(w)) throw new ArgumentException($"Unknown workload {w}; W1 to W7 exist.");
        if (o.Workloads.Contains("W7") && o.MemoryLimit is null && o.FromResults is null)
            throw new ArgumentException("W7 needs --memory-limit SIZE (e.g. --memory-limit 256M): the limit the data grows to 4x of.");
        if (o.ChildEngine is not null && (o.ChildCgroup is null || o.ChildResultFile is null || o.MemoryLimit is null))
            throw new ArgumentException("--w7-child is started by the runner itself, with --w7-cgroup, --w7-result and --memory-limit.");
        if (o.MaxPhaseSeconds <= 0) o.MaxPhaseSeconds = o.Quick ? 180 : 3600;
        return o;
    }

    /// <summary>
    /// Bytes from a size such as <c>268435456</c>, <c>512K</c>, <c>256M</c>, <c>256MiB</c>, <c>1G</c> or <c>1.5g</c>
    /// (binary multiples).
    /// </summary>
    internal static long ParseSize(string text)
    {
        var match = System.Text.RegularExpressions.Regex.Match(text, @"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:i?B)?\s*$",
            System.Text.RegularExpressions.RegexOptions.IgnoreCase);
        if (!match.Success) throw new FormatException($"'{text}' is not a size (e.g. 256M, 1G, 268435456).");
        double number = double.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
        int shift = match.Groups[2].Value.ToUpperInvariant() switch { "K" => 10, "M" => 20, "G" => 30, "T" => 40, _ => 0 };
        long bytes = checked((long)Math.Round(number * (1L << shift)));
        return bytes > 0 ? bytes : throw new FormatException($"'{text}' is not a positive size.");
    }

    private static string[] List(string value) =>
        value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
}
