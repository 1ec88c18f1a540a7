// The document database benchmark: samples/DocumentStore on StorageEngine (Safe mode) against LiteDB 5 (its
// write-ahead log on), the same scenario from the same seed on both (see Scenario.cs).
// Usage: dotnet run -c Release --project benchmarks/DocumentStore.Benchmarks -- [--documents N | --full] [--dir D]
//   --documents N  documents of about 1 KB to insert (default 100,000: about 25 s on 2 vCPUs)
//   --full         1,000,000 documents, 1,000,000 gets, 2,000 queries of each kind
//   --dir D        where the two databases go (default: a new temporary directory, removed at the end)
//   --out O        also write O/documents.png (the ratios as a chart) and O/results.md (the table below)
// Prints each engine's phases, then the ratio of the rates (StorageEngine / LiteDB: above 1 means StorageEngine
// is faster) and of the file sizes. Exits 1 when the engines disagree on what a phase found.

using DocumentStore.Benchmarks;

var options = new ScenarioOptions();
string? root = null;
string? outDirectory = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--documents":
            long documents = long.Parse(args[++i], System.Globalization.CultureInfo.InvariantCulture);
            options = options with { Documents = documents, Gets = (int)Math.Min(documents, 1_000_000) };
            break;
        case "--full":
            options = options with { Documents = 1_000_000, Gets = 1_000_000, QueriesPerKind = 2_000 };
            break;
        case "--dir":
            root = Path.GetFullPath(args[++i]);
            break;
        case "--out":
            outDirectory = Path.GetFullPath(args[++i]);
            break;
        default:
            Console.Error.WriteLine($"Unknown argument '{args[i]}'. Usage: [--documents N | --full] [--dir D] [--out O]");
            return 2;
    }
}
bool removeRoot = root is null;
root ??= Path.Combine(Path.GetTempPath(), $"docbench-{Guid.NewGuid():N}");
if (Directory.Exists(root)) Directory.Delete(root, recursive: true);

Console.WriteLine($"Document database benchmark: {options.Documents:N0} documents of about 1 KB, indexes on city and age, " +
    $"batches of {options.BatchSize}, {options.SingleCommits:N0} single-document commits, {options.Gets:N0} gets, " +
    $"{options.QueriesPerKind:N0} queries of each kind ({options.Pages} pages of {options.PageSize}), seed {options.Seed}");
Console.WriteLine($"{Environment.ProcessorCount} logical CPUs, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}, in {root}");
try
{
    var scenario = new Scenario(options);
    var engines = new (string Directory, Func<string, IDocumentEngine> Create)[]
    {
        ("storageengine", directory => new StorageEngineDocuments(directory)),
        ("litedb", directory => new LiteDbDocuments(directory)),
    };
    var results = new List<List<PhaseResult>>();
    foreach (var (directory, create) in engines)
    {
        using var engine = create(Path.Combine(root, directory));
        Console.WriteLine($"\n{engine.Name}: {engine.Configuration}");
        results.Add(scenario.Run(engine, create, root, Console.WriteLine));
    }

    var ours = results[0];
    var theirs = results[1];
    bool agree = true;
    var table = new List<string> { "| phase | StorageEngine | LiteDB | ratio |", "|---|--:|--:|--:|" };
    var chartRows = new List<(string Phase, double Ratio, double Target)>();
    Console.WriteLine($"\n{"phase",-36} {"StorageEngine",14} {"LiteDB",14} {"ratio",8}");
    for (int i = 0; i < ours.Count; i++)
    {
        var (a, b) = (ours[i], theirs[i]);
        bool size = a.Unit == "bytes";
        string left = size ? $"{a.Operations / 1048576.0:N1} MiB" : $"{a.Rate:N0}/s";
        string right = size ? $"{b.Operations / 1048576.0:N1} MiB" : $"{b.Rate:N0}/s";
        double ratio = size ? (double)a.Operations / b.Operations : a.Rate / b.Rate;
        Console.WriteLine($"{a.Phase,-36} {left,14} {right,14} {ratio,7:0.00}x");
        table.Add($"| {a.Phase} | {left} | {right} | {ratio:0.00}x |");
        // The chart puts better-for-us on the right everywhere: for sizes, theirs over ours.
        chartRows.Add((size ? $"{a.Phase} (size)" : a.Phase, size ? 1 / ratio : ratio, size ? 1 : 2));
        if (a.Check != b.Check)
        {
            agree = false;
            Console.WriteLine($"  the engines disagree: {a.Check:N0} against {b.Check:N0}");
        }
    }
    Console.WriteLine("ratio: StorageEngine's rate / LiteDB's (above 1: StorageEngine faster); for file sizes, StorageEngine's size / LiteDB's (below 1: smaller).");
    if (outDirectory is not null)
    {
        Directory.CreateDirectory(outDirectory);
        string heading = $"commit {GitCommit()}, {options.Documents:N0} documents, {Environment.ProcessorCount} logical CPUs, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}, {DateTime.UtcNow:yyyy-MM-dd}";
        File.WriteAllLines(Path.Combine(outDirectory, "results.md"), [$"Document benchmark: {heading}", "", .. table, "",
            "ratio: StorageEngine's rate / LiteDB's (above 1: StorageEngine faster); for file sizes, StorageEngine's size / LiteDB's (below 1: smaller)."]);
        if (RatioChart.Write(Path.Combine(outDirectory, "documents.png"), $"samples/DocumentStore on StorageEngine (Safe) against LiteDB 5\n{heading}", chartRows) is { } chart)
            Console.WriteLine($"wrote {chart}");
    }
    return agree ? 0 : 1;
}
finally
{
    if (removeRoot && Directory.Exists(root)) Directory.Delete(root, recursive: true);
}

// The commit the benchmark ran at (with "+changes" when the tree differs), or "unknown" outside a git checkout.
static string GitCommit()
{
    try
    {
        static string Git(string arguments)
        {
            var start = new System.Diagnostics.ProcessStartInfo("git", arguments) { RedirectStandardOutput = true, RedirectStandardError = true };
            using var git = System.Diagnostics.Process.Start(start)!;
            string output = git.StandardOutput.ReadToEnd().Trim();
            git.WaitForExit();
            return git.ExitCode == 0 ? output : "";
        }
        string head = Git("rev-parse --short HEAD");
        if (head.Length == 0) return "unknown";
        return Git("status --porcelain --untracked-files=no").Length > 0 ? head + "+changes" : head;
    }
    catch (System.ComponentModel.Win32Exception)
    {
        return "unknown";
    }
}
