// Runs the tests of StorageEngine.Tests in this process, for a self-contained publish on a machine where
// 'dotnet test' cannot run (win-x64 under Wine, linux-arm64 under qemu).
// Usage: StorageEngine.TestRunner [--list] [--filter TEXT]... [--exclude TEXT]...
// --filter (repeatable) keeps the tests whose display name ("Namespace.Class.Method(arguments)") contains one
// of the texts; --exclude (repeatable) then drops those whose name contains one of its texts; --list prints
// the selected tests' names instead of running them.
// Exit code: 0 when tests ran and none failed; 1 when one failed or none was selected; 2 for a bad argument.

using System.Reflection;
using System.Runtime.InteropServices;
using StorageEngine.TestRunner;
using Xunit.Abstractions;
using Xunit.Sdk;

var filters = new List<string>();
var excludes = new List<string>();
bool listOnly = false;
for (int i = 0; i < args.Length; i++)
{
    if (args[i] == "--list")
    {
        listOnly = true;
    }
    else if (args[i] == "--filter" && i + 1 < args.Length)
    {
        filters.Add(args[++i]);
    }
    else if (args[i] == "--exclude" && i + 1 < args.Length)
    {
        excludes.Add(args[++i]);
    }
    else
    {
        Console.Error.WriteLine($"error: unknown argument '{args[i]}'; the runner takes --list, --filter TEXT and --exclude TEXT.");
        return 2;
    }
}

Assembly assembly = Assembly.Load("StorageEngine.Tests");
var options = new RunnerOptions();
using var diagnostics = new DiscoverySink();
using var framework = new XunitTestFramework(diagnostics);

List<ITestCase> selected;
using (ITestFrameworkDiscoverer discoverer = framework.GetDiscoverer(Reflector.Wrap(assembly)))
using (var discovery = new DiscoverySink())
{
    discoverer.Find(includeSourceInformation: false, discovery, options);
    discovery.WaitForCompletion();
    selected = discovery.TestCases
        .Where(test => filters.Count == 0 || filters.Exists(filter => test.DisplayName.Contains(filter, StringComparison.Ordinal)))
        .Where(test => !excludes.Exists(exclude => test.DisplayName.Contains(exclude, StringComparison.Ordinal)))
        .ToList();
}

if (listOnly)
{
    foreach (string name in selected.Select(test => test.DisplayName).Order(StringComparer.Ordinal))
    {
        Console.WriteLine(name);
    }

    return 0;
}

if (selected.Count == 0)
{
    Console.Error.WriteLine("error: no test matches the filters.");
    return 1;
}

// The console as the runner started: tests that redirect Console.Out for a while must not capture result lines.
TextWriter output = Console.Out;
output.WriteLine($"Running {selected.Count} test cases of {assembly.GetName().Name} on {RuntimeInformation.OSDescription} ({RuntimeInformation.ProcessArchitecture}).");
var started = System.Diagnostics.Stopwatch.StartNew();
using (ITestFrameworkExecutor executor = framework.GetExecutor(assembly.GetName()))
using (var execution = new ExecutionSink(output))
{
    executor.RunTests(selected, execution, options);
    execution.WaitForCompletion();
    output.WriteLine($"tests: {execution.Passed} passed, {execution.Failed} failed, {execution.Skipped} skipped in {started.Elapsed.TotalSeconds:0.0} s");
    return execution.Failed == 0 && execution.Passed > 0 ? 0 : 1;
}
