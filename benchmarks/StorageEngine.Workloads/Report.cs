using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace StorageEngine.Workloads;

/// <summary>Markdown tables on stdout (and report.md), results.csv and results.json in the output folder.</summary>
internal static class Report
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    internal static readonly Dictionary<string, string> Titles = new()
    {
        ["W1"] = "W1 sequential durable inserts (16 B keys ascending, 128 B values, Durable tier)",
        ["W2"] = "W2 random durable inserts (16 B random keys, 128 B values, Durable tier)",
        ["W3"] = "W3 large values (16 B keys ascending, 4 KiB values, Durable tier)",
        ["W4"] = "W4 UCSB subset (8 B integer keys, 1 KiB values, ProcessCrash tier (None for engines without it, beside ours), phases in order on one store)",
        ["W5"] = "W5 benchtool subset (16 B keys, 100 B values; writes ProcessCrash tier (None for engines without it, beside ours) on a fresh store each; durable commits by threads)",
        ["W6"] = "W6 value-size sweep (16 B random keys; 100 B, 1 KiB and 4 KiB values, a fresh store each; random batch inserts, then random batch updates of those keys; ProcessCrash tier (None for engines without it, beside ours), 1 thread)",
        ["W7"] = "W7 larger than memory (8 B integer keys, 1 KiB values, ProcessCrash tier; each engine in a child process in a memory cgroup of --memory-limit, one store grown from 0.5x to 4x the limit; point reads, 100-entry scans and 1-put updates at each step)",
    };

    internal static string Header(MachineInfo machine, MachineFloor? floor)
    {
        var s = new StringBuilder();
        s.AppendLine(CultureInfo.InvariantCulture, $"Date: {machine.DateUtc}  ");
        if (!string.IsNullOrEmpty(machine.Commit)) s.AppendLine(CultureInfo.InvariantCulture, $"Commit: `{machine.Commit}`  ");
        s.AppendLine(CultureInfo.InvariantCulture, $"Command: `{machine.Command}`  ");
        s.AppendLine(CultureInfo.InvariantCulture, $"Machine: {machine.Processors} cores ({machine.Cpu}), kernel {machine.Kernel}, {machine.Runtime}  ");
        if (machine.LoadAverage is not null) s.AppendLine(CultureInfo.InvariantCulture, $"Load average at the start: {machine.LoadAverage}  ");
        s.AppendLine(CultureInfo.InvariantCulture, $"Sizes: {machine.Sizes}");
        s.AppendLine();
        s.AppendLine("```");
        s.AppendLine("$ free -h");
        s.AppendLine(machine.Memory);
        s.AppendLine("$ df -h <data directory>");
        s.AppendLine(machine.Disk);
        s.AppendLine("```");
        s.AppendLine();
        s.AppendLine("Engines:");
        foreach (var (name, version) in machine.Engines) s.AppendLine(CultureInfo.InvariantCulture, $"- {name}: {version}");
        s.AppendLine();
        if (floor is not null)
        {
            s.AppendLine("Floor of this machine (same run, same disk as the data):");
            s.AppendLine();
            s.AppendLine("| measure | value |");
            s.AppendLine("|---|---:|");
            s.AppendLine(CultureInfo.InvariantCulture, $"| one 4 KiB O_DIRECT\\|O_DSYNC overwrite, median of 200 | {floor.SyncedWrite4KMedianMicros:N0} µs (p99 {floor.SyncedWrite4KP99Micros:N0} µs) = at most {1e6 / floor.SyncedWrite4KMedianMicros:N0} synced commits/s per writer |");
            s.AppendLine(CultureInfo.InvariantCulture, $"| 64 MiB O_DIRECT sequential write (1 MiB writes + fsync) | {floor.DirectWriteMBps:N0} MB/s |");
            s.AppendLine(CultureInfo.InvariantCulture, $"| memory copy (Buffer.MemoryCopy 256 MiB, best of 3) | {floor.MemoryCopyGBps:N1} GB/s |");
            if (floor.Problem is not null) s.AppendLine(CultureInfo.InvariantCulture, $"| problem | {floor.Problem} |");
            s.AppendLine();
        }
        return s.ToString();
    }

    /// <summary>One row per (phase, tier, threads, engine): the run with the median ops/s, with its ratio to ours.</summary>
    internal static List<PhaseResult> Summarise(IEnumerable<PhaseResult> results)
    {
        var rows = results
            .GroupBy(r => (r.Workload, r.Phase, r.Tier, r.Threads, r.Engine))
            .Select(g =>
            {
                var sorted = g.OrderBy(r => r.OpsPerSecond).ToList();
                var median = sorted[sorted.Count / 2];
                median.Runs = sorted.Count;
                return median;
            })
            .ToList();
        foreach (var row in rows)
        {
            var ours = rows.FirstOrDefault(o => o.Engine == "storageengine" && o.Workload == row.Workload &&
                o.Phase == row.Phase && o.Tier == row.Tier && o.Threads == row.Threads);
            row.RatioToStorageEngine = ours is null || ours.OpsPerSecond == 0 ? double.NaN : row.OpsPerSecond / ours.OpsPerSecond;
        }
        return rows;
    }

    /// <summary>How to read the tables, printed once before them.</summary>
    internal const string ReadingNote = """
        Reading the tables: ops/s counts the unit shown (items, keys or entries where a call handles many);
        × ours = that engine's ops/s over StorageEngine's in the same phase, tier and thread count (> 1: the peer
        is faster). p50/p99 are per call (per transaction for batched writes). Write amp = bytes the data
        directory's block device wrote during the phase (/sys/dev/block/*/stat, the file system synced at both
        ends, so a lazy tier's dirty pages count in their phase; plus the close for W1-W3, W5's and W6's writes) over key+value bytes
        written; not /proc/self/io write_bytes, which charges a whole large page-cache folio for a small write
        into it. Pages rewritten before they reach the disk count once. Space amp =
        allocated blocks (du -B1, st_blocks) of the engine's directory at the phase end over live key+value
        bytes. Peak RSS = VmHWM during the phase (reset through /proc/self/clear_refs), Δ over the RSS before
        the engine was opened; it includes mapped file pages (LMDB, StorageEngine).


        """;

    /// <summary>The engines' skip lines, printed after the header.</summary>
    internal static string SkippedEngines(IReadOnlyList<string> skipped) =>
        skipped.Count == 0 ? "" : string.Concat(skipped.Select(line => $"- {line}\n")) + "\n";

    /// <summary>What no engine could run, and what failed: printed after the tables.</summary>
    internal static string NotRunAndFailures(IReadOnlyList<string> notRun, IReadOnlyList<string> failures)
    {
        var s = new StringBuilder();
        if (notRun.Count > 0)
        {
            s.Append("Not run (the engine cannot do it):\n\n");
            foreach (var line in notRun) s.Append(CultureInfo.InvariantCulture, $"- {line}\n");
            s.Append('\n');
        }
        if (failures.Count > 0)
        {
            s.Append("Failures:\n\n");
            foreach (var line in failures) s.Append(CultureInfo.InvariantCulture, $"- {line}\n");
            s.Append('\n');
        }
        return s.ToString();
    }

    /// <param name="headingLevel">How many '#' the workload's heading takes (3 in report.md, deeper inside a larger document).</param>
    internal static string Table(string workload, IEnumerable<PhaseResult> rows, int headingLevel = 3)
    {
        var s = new StringBuilder();
        s.AppendLine(CultureInfo.InvariantCulture, $"{new string('#', headingLevel)} {Titles.GetValueOrDefault(workload, workload)}");
        s.AppendLine();
        s.AppendLine("| phase | tier | thr | engine | ops/s | unit | × ours | p50 µs | p99 µs | write amp | space amp | peak RSS MB (Δ) | note |");
        s.AppendLine("|---|---|--:|---|--:|---|--:|--:|--:|--:|--:|--:|---|");
        foreach (var r in rows)
        {
            s.Append(CultureInfo.InvariantCulture,
                $"| {r.Phase} | {r.Tier} | {r.Threads} | {r.Engine} | {r.OpsPerSecond:N0} | {r.Unit} | {Ratio(r.RatioToStorageEngine)} | ");
            s.Append(CultureInfo.InvariantCulture,
                $"{Micros(r.P50Micros)} | {Micros(r.P99Micros)} | {Amp(r.WriteAmplification)} | {Amp(r.SpaceAmplification)} | {r.PeakRssMB:N0} ({r.PeakRssDeltaMB:+#,0;-#,0;0}) | {r.Note}{(r.Runs > 1 ? $" (median of {r.Runs})" : "")} |");
            s.AppendLine();
        }
        s.AppendLine();
        return s.ToString();
    }

    /// <summary>How results.json is written and read back (<see cref="SavedRun"/>).</summary>
    internal static readonly JsonSerializerOptions JsonOptions = new()
    {
        WriteIndented = true,
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
    };

    /// <param name="skippedEngines">Engines that did not load, one line each.</param>
    /// <param name="notRun">Phases an engine cannot run.</param>
    /// <param name="totalMinutes">The whole run's time, once it has ended (null while it runs).</param>
    /// <param name="charts">The chart files written into <paramref name="directory"/>.</param>
    internal static void WriteFiles(string directory, MachineInfo machine, MachineFloor? floor, List<PhaseResult> rows,
        IReadOnlyList<PhaseResult> allRuns, IReadOnlyList<string> skippedEngines, IReadOnlyList<string> notRun,
        IReadOnlyList<string> failures, double? totalMinutes, IReadOnlyList<string> charts, string markdown)
    {
        Directory.CreateDirectory(directory);
        var csv = new StringBuilder();
        csv.AppendLine("workload,phase,engine,tier,threads,operations,planned,unit,seconds,ops_per_s,ratio_to_storageengine,p50_us,p99_us,device_write_bytes,logical_write_bytes,write_amp,disk_bytes,live_logical_bytes,space_amp,peak_rss_mb,peak_rss_delta_mb,runs,note");
        foreach (var r in rows)
        {
            csv.AppendLine(string.Join(',',
                r.Workload, Csv(r.Phase), r.Engine, r.Tier, r.Threads.ToString(Invariant), r.Operations.ToString(Invariant),
                r.PlannedOperations.ToString(Invariant), r.Unit, Num(r.Seconds), Num(r.OpsPerSecond), Num(r.RatioToStorageEngine),
                Num(r.P50Micros), Num(r.P99Micros), r.DeviceWriteBytes.ToString(Invariant), r.LogicalWriteBytes.ToString(Invariant),
                Num(r.WriteAmplification), r.DiskBytes.ToString(Invariant), r.LiveLogicalBytes.ToString(Invariant),
                Num(r.SpaceAmplification), Num(r.PeakRssMB), Num(r.PeakRssDeltaMB), r.Runs.ToString(Invariant), Csv(r.Note)));
        }
        File.WriteAllText(Path.Combine(directory, "results.csv"), csv.ToString());
        var saved = new SavedRun(machine, floor, rows, skippedEngines, notRun, failures, totalMinutes, charts) { Runs = allRuns };
        File.WriteAllText(Path.Combine(directory, "results.json"), JsonSerializer.Serialize(saved, JsonOptions));
        File.WriteAllText(Path.Combine(directory, "report.md"), markdown);
    }

    private static string Ratio(double r) => double.IsNaN(r) ? "–" : r.ToString("0.00", Invariant) + "×";
    private static string Micros(double us) => double.IsNaN(us) ? "–" : us < 100 ? us.ToString("0.0", Invariant) : us.ToString("N0", Invariant);
    private static string Amp(double a) => double.IsNaN(a) ? "–" : a.ToString("0.00", Invariant);
    private static string Num(double d) => double.IsNaN(d) ? "" : d.ToString("0.###", Invariant);
    private static string Csv(string s) => s.Contains(',') || s.Contains('"') ? "\"" + s.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : s;
}
