using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>
/// What the runner was asked to do: the values of its command line (<see cref="RunnerCommandLine"/> parses and
/// checks them), or their defaults.
/// </summary>
internal sealed class RunnerOptions
{
    internal static readonly string[] AllWorkloads = ["W1", "W2", "W3", "W4", "W5", "W6", "W7"];

    /// <summary>What runs without <c>--workloads</c>: all but W7, which needs <c>--memory-limit</c>.</summary>
    internal static readonly string[] DefaultWorkloads = ["W1", "W2", "W3", "W4", "W5", "W6"];

    /// <summary>Where results go without <c>--out</c>, relative to the working directory.</summary>
    internal const string DefaultOutputDirectory = "benchmark-results";

    /// <summary>The phase cap, in seconds, without <c>--max-phase-seconds</c> and with <c>--quick</c>.</summary>
    internal const double QuickMaxPhaseSeconds = 180;

    /// <summary>The phase cap, in seconds, without <c>--max-phase-seconds</c> at the published sizes.</summary>
    internal const double FullMaxPhaseSeconds = 3600;

    internal bool Quick { get; init; }
    internal IReadOnlyList<string> Workloads { get; init; } = DefaultWorkloads;

    /// <summary>The engines named by <c>--engines</c>, lower case; null for all that load.</summary>
    internal IReadOnlyList<string>? Engines { get; init; }

    /// <summary>Where results go (<c>--out</c>), a full path.</summary>
    internal string OutputDirectory { get; init; } = Path.GetFullPath(DefaultOutputDirectory);

    /// <summary>Where the engines' files go (<c>--data</c>), a full path; null for <see cref="DataRoot"/>'s default.</summary>
    internal string? DataDirectory { get; init; }

    /// <summary>How many times each workload runs (<c>--repeats</c>), at least 1.</summary>
    internal int Repeats { get; init; } = 1;

    /// <summary>The factor on the item counts (<c>--scale</c>).</summary>
    internal double Scale { get; init; } = 1;

    /// <summary>
    /// After how many seconds a write phase stops (<c>--max-phase-seconds</c>). Set to 0 or less, it reads as
    /// <see cref="QuickMaxPhaseSeconds"/> with <see cref="Quick"/>, else <see cref="FullMaxPhaseSeconds"/>.
    /// </summary>
    internal double MaxPhaseSeconds
    {
        get => field > 0 ? field : Quick ? QuickMaxPhaseSeconds : FullMaxPhaseSeconds;
        init;
    }

    /// <summary>Whether the machine's floor is not measured (<c>--no-floor</c>).</summary>
    internal bool SkipFloor { get; init; }

    /// <summary>The file whose generated block receives the figures (<c>--write-markdown</c>); null for none.</summary>
    internal string? WriteMarkdown { get; init; }

    /// <summary>The results.json to take the figures from instead of running (<c>--from-results</c>); null to run.</summary>
    internal string? FromResults { get; init; }

    /// <summary>W7's memory limit in bytes (<c>--memory-limit</c>); null when not given.</summary>
    internal long? MemoryLimit { get; init; }

    /// <summary>
    /// Where W7 creates its cgroups (<c>--cgroup-parent</c>): a cgroup directory the runner may write; null to
    /// find one (<see cref="MemoryCgroup"/>).
    /// </summary>
    internal string? CgroupParent { get; init; }

    /// <summary>
    /// Set in a W7 child process only (the hidden <c>--w7-child</c>): the engine it runs. The parent starts the
    /// child inside the cgroup <see cref="ChildCgroup"/> and reads its results from <see cref="ChildResultFile"/>.
    /// </summary>
    internal string? ChildEngine { get; init; }

    /// <summary>The W7 child's cgroup directory (hidden <c>--w7-cgroup</c>).</summary>
    internal string? ChildCgroup { get; init; }

    /// <summary>Where the W7 child writes its results (hidden <c>--w7-result</c>).</summary>
    internal string? ChildResultFile { get; init; }

    internal string DataRoot => DataDirectory ?? Path.Combine(OutputDirectory, "data");

    internal WorkloadSizes Sizes => (Quick ? WorkloadSizes.Quick : WorkloadSizes.Full).Scale(Scale);

    /// <summary>
    /// Bytes from a size such as <c>268435456</c>, <c>512K</c>, <c>256M</c>, <c>256MiB</c>, <c>1G</c> or <c>1.5g</c>
    /// (binary multiples).
    /// </summary>
    /// <exception cref="FormatException">The text is not a size, or not a positive one.</exception>
    /// <exception cref="OverflowException">The size does not fit in a <see cref="long"/>.</exception>
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
}
