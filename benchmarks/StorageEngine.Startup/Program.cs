using System.Diagnostics;
using System.Globalization;
using StorageEngine.Startup;

// Startup cost of the engine: runs this program again as N fresh processes (each measures FirstUse once) and prints
// the median of each step. Build it as the application to compare: a plain build (the engine's IL, compiled as it
// runs), `dotnet publish -r linux-x64 -p:PublishReadyToRun=true` (precompiled, as the package's runtimes/<rid> image
// is), or `-p:PublishAot=true`.
// Usage: StorageEngine.Startup [--processes N] [--dir DIRECTORY]      (child: --child DIRECTORY)
var invariant = CultureInfo.InvariantCulture;
if (args.Length == 2 && args[0] == "--child")
{
    Console.WriteLine(string.Join(' ', FirstUse.Measure(args[1]).Select(t => t.ToString("F3", invariant))));
    return 0;
}

int processes = 11;
string root = Path.Combine(Path.GetTempPath(), "storageengine-startup-" + Guid.NewGuid().ToString("N"));
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--processes" when i + 1 < args.Length: processes = int.Parse(args[++i], invariant); break;
        case "--dir" when i + 1 < args.Length: root = args[++i]; break;
        default:
            Console.Error.WriteLine("Usage: StorageEngine.Startup [--processes N] [--dir DIRECTORY]");
            return 2;
    }
}

string self = Environment.ProcessPath ?? throw new InvalidOperationException("No process path to start the children from.");
// `dotnet StorageEngine.Startup.dll` runs the children the same way (the first command-line argument is the
// assembly's path); an apphost or a native executable runs itself.
string entry = Environment.GetCommandLineArgs()[0];
bool viaHost = Path.GetFileNameWithoutExtension(self) == "dotnet";
var steps = new List<double>[4] { new(), new(), new(), new() };
Directory.CreateDirectory(root);
try
{
    for (int p = 0; p < processes; p++)
    {
        var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, UseShellExecute = false };
        if (viaHost) start.ArgumentList.Add(entry);
        start.ArgumentList.Add("--child");
        start.ArgumentList.Add(Path.Combine(root, p.ToString(invariant)));
        using var child = Process.Start(start)!;
        string output = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        if (child.ExitCode != 0) throw new InvalidOperationException($"A child process exited with {child.ExitCode}: {output}");
        var values = output.Trim().Split(' ').Select(v => double.Parse(v, invariant)).ToArray();
        for (int s = 0; s < 4; s++) steps[s].Add(values[s]);
    }
}
finally
{
    Directory.Delete(root, recursive: true);
}

static double Median(List<double> values)
{
    var sorted = values.Order().ToArray();
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
}

string[] names = ["open (create)", "first commit", "close", "reopen + read"];
Console.WriteLine($"First use of the engine in a fresh process, medians of {processes} processes ({System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier}, .NET {Environment.Version}):");
for (int s = 0; s < 4; s++) Console.WriteLine($"  {names[s],-14} {Median(steps[s]),8:F2} ms");
Console.WriteLine($"  {"total",-14} {steps[0].Select((_, i) => steps.Sum(step => step[i])).Order().ElementAt(processes / 2),8:F2} ms (median of the sums)");
return 0;
