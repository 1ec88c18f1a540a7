using System.Text;
using StorageEngine.Peers;
using StorageEngine.Workloads;

// --help, or a command line with errors: the help or the errors are printed, and the runner stops.
if (RunnerCommandLine.Read(args, Console.Out, Console.Error, out int exitCode) is not { } options) return exitCode;
if (options.ChildEngine is not null)
{
    // A W7 child process, started by this runner inside a memory cgroup: it measures one engine and writes its
    // results to a file for the runner that started it.
    return LargerThanMemorySteps.RunChild(options);
}
if (options.FromResults is { } savedResults)
{
    // Regenerates the figures from a finished run: nothing is measured.
    if (options.WriteMarkdown is { } target)
    {
        BenchmarksMarkdown.Write(target, savedResults);
        Console.Error.WriteLine($"Wrote the figures of {savedResults} into {target}.");
    }
    else Console.Write(BenchmarksMarkdown.Render(SavedRun.Load(savedResults), savedResults));
    return 0;
}

var selected = new List<PeerEngine>();
var skipped = new List<string>();
foreach (var name in options.Engines ?? PeerEngines.All.Select(e => e.Name))
{
    var engine = PeerEngines.Find(name);
    if (engine is null)
    {
        Console.Error.WriteLine($"Unknown engine '{name}'; known: {string.Join(", ", PeerEngines.All.Select(e => e.Name))}.");
        return 2;
    }
    if (engine.SkipReason is { } reason) skipped.Add($"{engine.Name}: skipped: {reason}. To install: {engine.InstallHint}");
    else selected.Add(engine);
}

Directory.CreateDirectory(options.OutputDirectory);
Directory.CreateDirectory(options.DataRoot);
var machine = MachineInfo.Collect(options, args, selected.ToDictionary(e => e.Name, e => e.Version));
Console.Error.WriteLine("Measuring the machine's floor...");
var floor = options.SkipFloor ? null : MachineFloor.Measure(options.DataRoot);

var markdown = new StringBuilder();
void Emit(string text)
{
    Console.Write(text);
    markdown.Append(text);
}

Emit(Report.Header(machine, floor));
Emit(Report.SkippedEngines(skipped));
Emit(Report.ReadingNote);

var context = new BenchmarkContext(options, selected);
var workloads = new Dictionary<string, Action<BenchmarkContext>>
{
    ["W1"] = InsertWorkloads.W1,
    ["W2"] = InsertWorkloads.W2,
    ["W3"] = InsertWorkloads.W3,
    ["W4"] = UcsbWorkload.Run,
    ["W5"] = BenchtoolWorkload.Run,
    ["W6"] = ValueSizeSweepWorkload.Run,
    ["W7"] = LargerThanMemoryWorkload.Run,
};
var started = DateTime.UtcNow;
List<PhaseResult> rows = [];
var charts = new List<string>();
foreach (var workload in options.Workloads)
{
    // W7's child processes warm themselves up: the runner's own code runs none of W7's operations.
    if (workload != "W7") WarmUp(workload);
    for (int repeat = 0; repeat < options.Repeats; repeat++)
    {
        context.Repeat = repeat;
        workloads[workload](context);
    }
    rows = Report.Summarise(context.Results);
    Emit(Report.Table(workload, rows.Where(r => r.Workload == workload)));
    charts.AddRange(Charts.Write(options.OutputDirectory, workload, rows));
    // Saved after every workload, so that a run cut short leaves what it measured.
    Report.WriteFiles(options.OutputDirectory, machine, floor, rows, context.Results, skipped, context.Skipped, context.Failures,
        totalMinutes: null, charts, markdown.ToString());
}

// Runs the workload at tiny sizes, results discarded, until .NET's tiered compilation has had time to optimize
// the code it runs: each method is compiled quickly first, its calls are counted only once no new method has been
// compiled for 100 ms, and the optimized version is compiled in the background after 30 counted calls. One pass
// at tiny sizes lasts less than that, so the first engine measured would run part of its phase unoptimized and
// share this 2-core machine with the compiler (a 10,000-commit W1 run: 160-260 µs of CPU per commit in its first
// tenth of a second, 120 µs once warm).
void WarmUp(string workload)
{
    const int WarmUpPasses = 2;
    var warmUpTime = TimeSpan.FromSeconds(1);
    Console.Error.WriteLine($"[{DateTime.Now:HH:mm:ss}] {workload} warm-up at tiny sizes");
    var warmUp = new BenchmarkContext(options, selected, options.Sizes.Scale(0.002), warmUp: true);
    var clock = System.Diagnostics.Stopwatch.StartNew();
    int passes = 0;
    do
    {
        workloads[workload](warmUp);
        passes++;
    }
    while (warmUp.Failures.Count == 0 && (passes < WarmUpPasses || clock.Elapsed < warmUpTime));
    // Lets the background compiler finish what the last pass queued.
    Thread.Sleep(250);
    foreach (var f in warmUp.Failures) Console.Error.WriteLine("  warm-up failure: " + f);
}

Emit(Report.NotRunAndFailures(context.Skipped, context.Failures));
double totalMinutes = (DateTime.UtcNow - started).TotalMinutes;
Emit($"Total time {totalMinutes:0.0} min. Results: {Path.Combine(options.OutputDirectory, "results.csv")}, results.json, report.md{string.Concat(charts.Select(c => ", " + c))}\n");
Report.WriteFiles(options.OutputDirectory, machine, floor, rows, context.Results, skipped, context.Skipped, context.Failures,
    totalMinutes, charts, markdown.ToString());
if (options.WriteMarkdown is { } markdownFile)
{
    BenchmarksMarkdown.Write(markdownFile, Path.Combine(options.OutputDirectory, "results.json"));
    Console.Error.WriteLine($"Wrote the figures into {markdownFile}.");
}
try
{
    if (options.DataDirectory is null) Directory.Delete(options.DataRoot, recursive: true);
}
catch (IOException) { }
return context.Failures.Count == 0 ? 0 : 1;
