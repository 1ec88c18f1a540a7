using System.Runtime.InteropServices;

namespace StorageEngine.Workloads;

/// <summary>The machine and run the results belong to.</summary>
internal sealed record MachineInfo(
    string DateUtc, string Command, int Processors, string Cpu, string Kernel, string Memory, string Disk,
    string Runtime, string Sizes, IReadOnlyDictionary<string, string> Engines)
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
            options.Sizes.Describe(), engines);
    }
}
