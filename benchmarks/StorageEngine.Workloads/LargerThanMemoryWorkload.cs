using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using StorageEngine.Peers;

namespace StorageEngine.Workloads;

/// <summary>
/// W7, larger than memory: for each engine (ProcessCrash tier), the runner makes a fresh memory cgroup limited to
/// <c>--memory-limit</c> (<see cref="MemoryCgroup"/>) and starts a child process of itself in it, which grows one
/// store from 0.5 to 4 times the limit and measures reads, scans and updates at each step
/// (<see cref="LargerThanMemorySteps"/>). The child is started through <c>/bin/sh</c>, which writes its own pid
/// into the group's <c>cgroup.procs</c> and then execs the runner, so everything the child does, from the .NET
/// runtime's start on, is charged to the group, its page cache included (the engines' data files, mapped or read),
/// and the runtime sees the limit as it would in a container. The child writes its results to a JSON file
/// (<see cref="ChildResults"/>) after every phase; the runner adds them to the report and removes the group.
/// </summary>
internal static class LargerThanMemoryWorkload
{
    internal static void Run(BenchmarkContext context)
    {
        // Each child warms itself up (LargerThanMemorySteps.WarmUp): there is nothing to compile here.
        if (context.WarmUp) return;
        long limit = context.Options.MemoryLimit ?? throw new InvalidOperationException("W7 needs --memory-limit.");
        context.ForEachEngine("W7", DurabilityTier.ProcessCrash, engine => RunChild(context, engine, limit));
    }

    private static void RunChild(BenchmarkContext context, PeerEngine engine, long limit)
    {
        var options = context.Options;
        using var group = MemoryCgroup.Create($"storageengine-w7-{Environment.ProcessId}-{engine.Name}", limit, options.CgroupParent);
        string resultFile = Path.Combine(options.OutputDirectory, $"W7-{engine.Name}.child.json");
        File.Delete(resultFile);
        Console.Error.WriteLine($"  {group.Describe()}: limit {group.Limit / 1048576.0:N0} MiB");

        var start = new ProcessStartInfo("/bin/sh") { UseShellExecute = false };
        // sh -c SCRIPT PROCS EXE ARGS...: $0 is the cgroup.procs file, "$@" the runner's command line.
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add("echo $$ > \"$0\" && exec \"$@\"");
        start.ArgumentList.Add(Path.Combine(group.Directory, "cgroup.procs"));
        string runner = Environment.ProcessPath ?? throw new InvalidOperationException("The runner's executable is unknown.");
        start.ArgumentList.Add(runner);
        if (Path.GetFileNameWithoutExtension(runner) == "dotnet")
            start.ArgumentList.Add(System.Reflection.Assembly.GetEntryAssembly()!.Location);
        foreach (var arg in ChildArguments(options, engine.Name, group.Directory, resultFile)) start.ArgumentList.Add(arg);

        using var child = Process.Start(start) ?? throw new InvalidOperationException("The W7 child process did not start.");
        double seconds = context.Sizes.W7PhaseSeconds;
        // Generous: each step's load may run to the cap, each measured phase to twice its time, plus the syncs.
        var allowed = TimeSpan.FromSeconds(LargerThanMemorySteps.Steps.Length * (context.Cap + 3 * (2 * seconds + 5)) + 300);
        bool exited = child.WaitForExit(allowed);
        if (!exited)
        {
            child.Kill(entireProcessTree: true);
            child.WaitForExit();
        }
        try
        {
            if (File.Exists(resultFile))
            {
                var results = JsonSerializer.Deserialize<ChildResults>(File.ReadAllText(resultFile), Report.JsonOptions);
                if (results is not null)
                {
                    // Added directly: the child printed each row as it measured it.
                    context.Results.AddRange(results.Results);
                    context.Failures.AddRange(results.Failures);
                    foreach (var line in results.Skipped) context.Skip(line);
                }
            }
            string charged = $"{group.Describe()}: peak {(group.Peak ?? -1) / 1048576.0:N0} MiB of the {limit / 1048576.0:N0} MiB limit";
            Console.Error.WriteLine($"  {charged}, OOM kills {group.OomKills?.ToString(CultureInfo.InvariantCulture) ?? "unknown"}");
            if (!exited) throw new TimeoutException($"the child process ran past {allowed.TotalMinutes:0} min and was killed; {charged}");
            if (child.ExitCode is not (0 or 1))
            {
                string oom = group.OomKills is > 0 ? $"; the kernel's OOM killer killed {group.OomKills} process(es) of the group" : "";
                throw new InvalidOperationException($"the child process ended with exit code {child.ExitCode}{oom}; {charged}");
            }
        }
        finally
        {
            File.Delete(resultFile);
            // A killed child leaves its store behind.
            string data = Path.Combine(options.DataRoot, $"W7-{engine.Name}");
            foreach (var left in new[] { data, data + "-warmup" })
                if (Directory.Exists(left)) Directory.Delete(left, recursive: true);
        }
    }

    /// <summary>
    /// The command line of the child process that measures <paramref name="engine"/> inside the cgroup
    /// <paramref name="cgroupDirectory"/> and writes its results to <paramref name="resultFile"/>: the hidden
    /// <c>--w7-*</c> options, and the options of <paramref name="options"/> that the child's run depends on.
    /// </summary>
    internal static List<string> ChildArguments(RunnerOptions options, string engine, string cgroupDirectory, string resultFile)
    {
        var invariant = CultureInfo.InvariantCulture;
        var args = new List<string>
        {
            "--w7-child", engine,
            "--w7-cgroup", cgroupDirectory,
            "--w7-result", resultFile,
            "--memory-limit", options.MemoryLimit!.Value.ToString(invariant),
            "--out", options.OutputDirectory,
            "--data", options.DataRoot,
            "--scale", options.Scale.ToString("R", invariant),
            "--max-phase-seconds", options.MaxPhaseSeconds.ToString("R", invariant),
        };
        if (options.Quick) args.Add("--quick");
        return args;
    }
}
