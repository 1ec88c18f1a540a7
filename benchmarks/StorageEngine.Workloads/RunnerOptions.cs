using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>The command line.</summary>
internal sealed class RunnerOptions
{
    internal static readonly string[] AllWorkloads = ["W1", "W2", "W3", "W4", "W5"];

    internal bool Quick { get; private set; }
    internal IReadOnlyList<string> Workloads { get; private set; } = AllWorkloads;
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

    internal string DataRoot => DataDirectory ?? Path.Combine(OutputDirectory, "data");

    internal WorkloadSizes Sizes => (Quick ? WorkloadSizes.Quick : WorkloadSizes.Full).Scale(Scale);

    internal const string Usage = """
        Usage: dotnet run -c Release --project benchmarks/StorageEngine.Workloads -- [options]
          --quick                 small sizes (minutes on a 2-core VM) instead of the published ones
          --workloads W1,...,W5   which workloads (default all)
          --engines a,b,...       storageengine,lmdb,rocksdb,sqlite,esent,zonetree,faster (default all that load)
          --out DIR               where results.csv/results.json go (default ./benchmark-results)
          --data DIR              where the engines' files go (default OUT/data); the floor is measured there
          --repeats N             run each workload N times, each starting with the next engine, and report
                                  the run with the median ops/s (default 1)
          --scale F               multiply the item counts (e.g. 0.2)
          --max-phase-seconds S   stop a write phase after S seconds and report what it did (default 180 quick, 3600 full)
          --no-floor              skip measuring the machine's floor
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
                case "-h" or "--help": o.Help = true; break;
                default: throw new ArgumentException($"Unknown option {args[i]}.");
            }
        }
        foreach (var w in o.Workloads)
            if (!AllWorkloads.Contains(w)) throw new ArgumentException($"Unknown workload {w}; W1 to W5 exist (W6 is a separate GPU benchmark).");
        if (o.MaxPhaseSeconds <= 0) o.MaxPhaseSeconds = o.Quick ? 180 : 3600;
        return o;
    }

    private static string[] List(string value) =>
        value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
}
