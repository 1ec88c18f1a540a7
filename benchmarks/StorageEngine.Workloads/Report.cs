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
    };

    internal static string Header(MachineInfo machine, MachineFloor? floor)
    {
        var s = new StringBuilder();
        s.AppendLine(CultureInfo.InvariantCulture, $"Date: {machine.DateUtc}  ");
        s.AppendLine(CultureInfo.InvariantCulture, $"Command: `{machine.Command}`  ");
        s.AppendLine(CultureInfo.InvariantCulture, $"Machine: {machine.Processors} cores ({machine.Cpu}), kernel {machine.Kernel}, {machine.Runtime}  ");
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

    internal static string Table(string workload, IEnumerable<PhaseResult> rows)
    {
        var s = new StringBuilder();
        s.AppendLine(CultureInfo.InvariantCulture, $"### {Titles.GetValueOrDefault(workload, workload)}");
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

    internal static void WriteFiles(string directory, MachineInfo machine, MachineFloor? floor, List<PhaseResult> rows,
        IReadOnlyList<PhaseResult> allRuns, IReadOnlyList<string> skipped, IReadOnlyList<string> failures, string markdown)
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
        var json = JsonSerializer.Serialize(new { machine, floor, results = rows, runs = allRuns, skipped, failures },
            new JsonSerializerOptions
            {
                WriteIndented = true,
                NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
                PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
            });
        File.WriteAllText(Path.Combine(directory, "results.json"), json);
        File.WriteAllText(Path.Combine(directory, "report.md"), markdown);
    }

    private static string Ratio(double r) => double.IsNaN(r) ? "–" : r.ToString("0.00", Invariant) + "×";
    private static string Micros(double us) => double.IsNaN(us) ? "–" : us < 100 ? us.ToString("0.0", Invariant) : us.ToString("N0", Invariant);
    private static string Amp(double a) => double.IsNaN(a) ? "–" : a.ToString("0.00", Invariant);
    private static string Num(double d) => double.IsNaN(d) ? "" : d.ToString("0.###", Invariant);
    private static string Csv(string s) => s.Contains(',') || s.Contains('"') ? "\"" + s.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : s;
}
