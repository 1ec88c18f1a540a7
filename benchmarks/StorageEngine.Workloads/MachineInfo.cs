using System.Runtime.InteropServices;

namespace StorageEngine.Workloads;

/// <summary>The machine and run the results belong to.</summary>
/// <param name="Commit">
/// The engine's commit (<c>git rev-parse --short HEAD</c> where the runner was started), with " (modified)" when
/// the working tree differed from it; empty outside a git checkout.
/// </param>
/// <param name="LoadAverage">/proc/loadavg's 1, 5 and 15-minute averages when the run started: other work on the machine.</param>
internal sealed record MachineInfo(
    string DateUtc, string Command, int Processors, string Cpu, string Kernel, string Memory, string Disk,
    string Runtime, string Sizes, IReadOnlyDictionary<string, string> Engines, string? Commit = null, string? LoadAverage = null)
{
    internal static MachineInfo Collect(RunnerOptions options, string[] args, IReadOnlyDictionary<string, string> engines)
    {
        string cpu = "";
        try
        {
            cpu = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal))
                ?.Split(':', 2)[1].Trim() ?? "";
        }
        catch (IOException) { }
        string command = "dotnet run -c Release --project benchmarks/StorageEngine.Workloads --" +
            (args.Length == 0 ? "" : " " + string.Join(' ', args));
        return new MachineInfo(
            DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm 'UTC'", System.Globalization.CultureInfo.InvariantCulture),
            command, Environment.ProcessorCount, cpu,
            ProcessStats.Command("uname", "-r"),
            ProcessStats.Command("free", "-h"),
            ProcessStats.Command("df", "-h", options.DataRoot),
            $"{RuntimeInformation.FrameworkDescription} {RuntimeInformation.RuntimeIdentifier}",
            options.Sizes.Describe(), engines, GitCommit(), LoadAverageNow());
    }

    private static string GitCommit()
    {
        string head = ProcessStats.Command("git", "rev-parse", "--short", "HEAD");
        if (head.Length == 0 || head.StartsWith('(')) return "";
        bool modified = ProcessStats.Command("git", "status", "--porcelain", "--untracked-files=no").Length > 0;
        return modified ? head + " (modified)" : head;
    }

    private static string? LoadAverageNow()
    {
        try
        {
            return string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3));
        }
        catch (IOException)
        {
            return null;
        }
    }
}
