using System.CommandLine;
using System.CommandLine.Parsing;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>
/// The runner's command line on System.CommandLine: its options and their help, the checks that span several
/// options, and the <see cref="RunnerOptions"/> a valid command line gives. <c>--help</c> (<c>-h</c>) prints the
/// generated help. The hidden <c>--w7-child</c>, <c>--w7-cgroup</c> and <c>--w7-result</c> are how W7 starts a
/// child process of the runner (<see cref="LargerThanMemoryWorkload.ChildArguments"/>).
/// </summary>
internal sealed class RunnerCommandLine
{
    /// <summary>The exit code of a command line with errors.</summary>
    internal const int UsageError = 2;

    private readonly Option<bool> quick = new("--quick")
    {
        Description = "Small sizes (minutes on a 2-core VM) instead of the published ones.",
    };

    private readonly Option<string[]> workloads = new("--workloads")
    {
        Description = "Which workloads (default W1-W6; W7 needs --memory-limit).\n" +
            "W6: random-key batch inserts, then updates, at 100 B, 1 KiB and 4 KiB values.\n" +
            "W7: reads, 1-put updates and 100-entry scans as the data grows from 0.5x to 4x the memory limit, " +
            "each engine in a child process in a cgroup of that limit.",
        HelpName = "W1,...,W7",
        Arity = ArgumentArity.ExactlyOne,
        CustomParser = result => List(result).Select(w => w.ToUpperInvariant()).ToArray(),
    };

    private readonly Option<string[]> engines = new("--engines")
    {
        Description = "storageengine,lmdb,rocksdb,sqlite,esent,zonetree,faster (default all that load).",
        HelpName = "a,b,...",
        Arity = ArgumentArity.ExactlyOne,
        CustomParser = result => List(result).Select(e => e.ToLowerInvariant()).ToArray(),
    };

    private readonly Option<string> output = FullPath("--out", "DIR",
        $"Where results.csv, results.json, report.md and the charts go (default ./{RunnerOptions.DefaultOutputDirectory}).");

    private readonly Option<string> data = FullPath("--data", "DIR",
        "Where the engines' files go (default OUT/data); the floor is measured there.");

    private readonly Option<int> repeats = new("--repeats")
    {
        Description = "Run each workload N times, each starting with the next engine, and report the run with the " +
            "median ops/s (less than 1 counts as 1).",
        HelpName = "N",
        DefaultValueFactory = _ => 1,
        CustomParser = result => Number<int>(result, "--repeats", "a whole number",
            text => int.TryParse(text, NumberStyles.Integer, CultureInfo.InvariantCulture, out int n) ? Math.Max(1, n) : null),
    };

    private readonly Option<double> scale = new("--scale")
    {
        Description = "Multiply the item counts (e.g. 0.2).",
        HelpName = "F",
        DefaultValueFactory = _ => 1,
        CustomParser = result => Number<double>(result, "--scale", "a finite number",
            text => ParseDouble(text) is { } factor && double.IsFinite(factor) ? factor : null),
    };

    private readonly Option<double> maxPhaseSeconds = new("--max-phase-seconds")
    {
        Description = $"Stop a write phase after S seconds and report what it did (default {RunnerOptions.QuickMaxPhaseSeconds:0} " +
            $"quick, {RunnerOptions.FullMaxPhaseSeconds:0} full; 0 or less for the default).",
        HelpName = "S",
        CustomParser = result => Number<double>(result, "--max-phase-seconds", "a number of seconds", ParseDouble),
    };

    private readonly Option<bool> noFloor = new("--no-floor") { Description = "Skip measuring the machine's floor." };

    private readonly Option<long?> memoryLimit = new("--memory-limit")
    {
        Description = "W7's memory limit (e.g. 256M, 1G, or bytes; binary multiples): cgroup v2 memory.max or v1 " +
            "memory.limit_in_bytes of each engine's child process (needs root or a delegated cgroup).",
        HelpName = "SIZE",
        CustomParser = ParseMemoryLimit,
    };

    private readonly Option<string> cgroupParent = FullPath("--cgroup-parent", "DIR",
        "Where W7 creates its cgroups (default: beside the runner's own cgroup (v2), under it (v1), or at the memory " +
        "hierarchy's root).");

    private readonly Option<string> writeMarkdown = new("--write-markdown")
    {
        Description = "After the run, replace FILE's block between <!-- generated:workloads:begin --> and " +
            "<!-- generated:workloads:end --> with the figures (e.g. BENCHMARKS.md).",
        HelpName = "FILE",
    };

    private readonly Option<string> fromResults = new("--from-results")
    {
        Description = "Run nothing: take the figures from a results.json an earlier run saved (with --write-markdown, " +
            "write them there; else print them).",
        HelpName = "JSON",
    };

    // The W7 parent starts each child process with these (LargerThanMemoryWorkload.ChildArguments); not for people.
    private readonly Option<string> childEngine = new("--w7-child")
    {
        Hidden = true,
        CustomParser = result => result.Tokens[0].Value.ToLowerInvariant(),
    };

    private readonly Option<string> childCgroup = new("--w7-cgroup") { Hidden = true };
    private readonly Option<string> childResultFile = new("--w7-result") { Hidden = true };

    private readonly RootCommand root;

    /// <summary>Builds the command and its options.</summary>
    internal RunnerCommandLine()
    {
        root = new RootCommand(
            "Runs the workloads W1-W7 against StorageEngine and its peer engines and writes the results and charts.\n" +
            "Run: dotnet run -c Release --project benchmarks/StorageEngine.Workloads -- [options]")
        {
            quick, workloads, engines, output, data, repeats, scale, maxPhaseSeconds, noFloor, memoryLimit, cgroupParent,
            writeMarkdown, fromResults, childEngine, childCgroup, childResultFile,
        };
        // The runner has no version of its own to print.
        foreach (var version in root.Options.OfType<VersionOption>().ToList()) root.Options.Remove(version);
        AddChecks();
    }

    /// <summary>
    /// Reads the command line. Returns the options to run with; or, for <c>--help</c> or a command line with
    /// errors, prints the help (to <paramref name="output"/>) or the errors and the help (to
    /// <paramref name="error"/>), and returns null with the process's exit code in <paramref name="exitCode"/>:
    /// 0 after the help, <see cref="UsageError"/> after errors.
    /// </summary>
    internal static RunnerOptions? Read(IReadOnlyList<string> args, TextWriter output, TextWriter error, out int exitCode)
    {
        var commandLine = new RunnerCommandLine();
        var result = commandLine.Parse(args);
        if (commandLine.TryGetOptions(result, out var options))
        {
            exitCode = 0;
            return options;
        }
        bool failed = result.Errors.Count > 0;
        // The help action clears the errors: --help with a bad option prints the help.
        int code = result.Invoke(new InvocationConfiguration { Output = failed ? error : output, Error = error });
        exitCode = failed ? UsageError : code;
        return null;
    }

    /// <summary>Parses <paramref name="args"/> without printing anything.</summary>
    internal ParseResult Parse(IReadOnlyList<string> args) => root.Parse(args);

    /// <summary>
    /// The options of a parse result that asks for a run: false when it has errors or asks for something else
    /// (<c>--help</c>).
    /// </summary>
    internal bool TryGetOptions(ParseResult result, [NotNullWhen(true)] out RunnerOptions? options)
    {
        if (result.Errors.Count > 0 || result.Action is not null)
        {
            options = null;
            return false;
        }
        options = new RunnerOptions
        {
            Quick = result.GetValue(quick),
            // An array option that is not given reads as empty: these two mean "the default" when absent.
            Workloads = result.GetResult(workloads) is null ? RunnerOptions.DefaultWorkloads : result.GetValue(workloads)!,
            Engines = result.GetResult(engines) is null ? null : result.GetValue(engines),
            OutputDirectory = result.GetValue(output) ?? Path.GetFullPath(RunnerOptions.DefaultOutputDirectory),
            DataDirectory = result.GetValue(data),
            Repeats = result.GetValue(repeats),
            Scale = result.GetValue(scale),
            MaxPhaseSeconds = result.GetValue(maxPhaseSeconds),
            SkipFloor = result.GetValue(noFloor),
            WriteMarkdown = result.GetValue(writeMarkdown),
            FromResults = result.GetValue(fromResults),
            MemoryLimit = result.GetValue(memoryLimit),
            CgroupParent = result.GetValue(cgroupParent),
            ChildEngine = result.GetValue(childEngine),
            ChildCgroup = result.GetValue(childCgroup),
            ChildResultFile = result.GetValue(childResultFile),
        };
        return true;
    }

    /// <summary>
    /// The checks of <c>--workloads</c>, <c>--from-results</c> and <c>--w7-child</c>, some of which involve other
    /// options. Each is a validator of the option it is about, so that the errors of the other options are reported
    /// too; they look at which options were given and at the text of <c>--workloads</c>, not at converted values.
    /// </summary>
    private void AddChecks()
    {
        fromResults.Validators.Add(result =>
        {
            string file = result.Tokens[0].Value;
            if (!File.Exists(file)) result.AddError($"--from-results: there is no file '{file}'.");
        });
        workloads.Validators.Add(result =>
        {
            var names = result.Tokens.SelectMany(token => Split(token.Value)).Select(w => w.ToUpperInvariant()).ToList();
            foreach (var name in names)
                if (!RunnerOptions.AllWorkloads.Contains(name))
                    result.AddError($"Unknown workload {name} in --workloads; W1 to W7 exist.");
            if (names.Contains("W7") && result.GetResult(memoryLimit) is null && result.GetResult(fromResults) is null)
                result.AddError("W7 needs --memory-limit SIZE (e.g. --memory-limit 256M): the limit the data grows to 4x of.");
        });
        childEngine.Validators.Add(result =>
        {
            if (result.GetResult(childCgroup) is null || result.GetResult(childResultFile) is null || result.GetResult(memoryLimit) is null)
                result.AddError("--w7-child is started by the runner itself, with --w7-cgroup, --w7-result and --memory-limit.");
        });
    }

    /// <summary>The bytes of a <c>--memory-limit</c> value (<see cref="RunnerOptions.ParseSize"/>), or an error.</summary>
    private static long? ParseMemoryLimit(ArgumentResult result)
    {
        try
        {
            return RunnerOptions.ParseSize(result.Tokens[0].Value);
        }
        catch (Exception e) when (e is FormatException or OverflowException)
        {
            result.AddError($"--memory-limit: {(e is OverflowException ? $"'{result.Tokens[0].Value}' is too large." : e.Message)}");
            return null;
        }
    }

    /// <summary>A path option whose value becomes a full path (relative ones against the working directory).</summary>
    private static Option<string> FullPath(string name, string helpName, string description) => new(name)
    {
        Description = description,
        HelpName = helpName,
        CustomParser = result =>
        {
            string text = result.Tokens[0].Value;
            try
            {
                return Path.GetFullPath(text);
            }
            catch (Exception e) when (e is ArgumentException or NotSupportedException or PathTooLongException)
            {
                result.AddError($"{name}: '{text}' is not a path ({e.Message}).");
                return null;
            }
        },
    };

    /// <summary>A number from an option's value, in the invariant culture, or an error naming the option.</summary>
    private static T Number<T>(ArgumentResult result, string name, string what, Func<string, T?> parse) where T : struct
    {
        string text = result.Tokens[0].Value;
        if (parse(text) is { } value) return value;
        result.AddError($"{name} takes {what}; '{text}' is not one.");
        return default;
    }

    private static double? ParseDouble(string text) =>
        double.TryParse(text, NumberStyles.Float | NumberStyles.AllowThousands, CultureInfo.InvariantCulture, out double value)
            ? value : null;

    /// <summary>The entries of a comma-separated option value, trimmed, empty ones left out.</summary>
    private static string[] List(ArgumentResult result) => Split(result.Tokens[0].Value);

    private static string[] Split(string value) =>
        value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
}
