using System.Globalization;
using StorageEngine.Workloads;

namespace StorageEngine.Peers.Tests;

/// <summary>
/// The workload runner's command line (System.CommandLine): each option's value and default, the errors of a bad
/// command line (exit code 2, a message naming the argument), the generated help, and the hidden options of a W7
/// child process, which must read back as the options of the runner that started it.
/// </summary>
public sealed class RunnerCommandLineTests
{
    [Fact]
    public void No_arguments_give_the_defaults()
    {
        var options = Parse();
        Assert.False(options.Quick);
        Assert.Equal(["W1", "W2", "W3", "W4", "W5", "W6"], options.Workloads);
        Assert.Null(options.Engines);
        Assert.Equal(Path.GetFullPath("benchmark-results"), options.OutputDirectory);
        Assert.Null(options.DataDirectory);
        Assert.Equal(Path.Combine(Path.GetFullPath("benchmark-results"), "data"), options.DataRoot);
        Assert.Equal(1, options.Repeats);
        Assert.Equal(1, options.Scale);
        Assert.Equal(3600, options.MaxPhaseSeconds);
        Assert.False(options.SkipFloor);
        Assert.Null(options.WriteMarkdown);
        Assert.Null(options.FromResults);
        Assert.Null(options.MemoryLimit);
        Assert.Null(options.CgroupParent);
        Assert.Null(options.ChildEngine);
        Assert.Null(options.ChildCgroup);
        Assert.Null(options.ChildResultFile);
        Assert.Equal(WorkloadSizes.Full, options.Sizes);
    }

    [Fact]
    public void Quick_gives_the_quick_sizes_and_phase_cap()
    {
        var options = Parse("--quick");
        Assert.True(options.Quick);
        Assert.Equal(180, options.MaxPhaseSeconds);
        Assert.Equal(WorkloadSizes.Quick, options.Sizes);
    }

    [Fact]
    public void Every_option_sets_its_value()
    {
        using var directory = new TempDirectory();
        string results = Path.Combine(directory.Path, "results.json");
        File.WriteAllText(results, "{}");
        var options = Parse(
            "--quick", "--workloads", "w1, W3,,w7", "--engines", "StorageEngine,LMDB", "--out", "relative-out",
            "--data", Path.Combine(directory.Path, "data"), "--repeats", "3", "--scale", "0.2", "--max-phase-seconds", "12.5",
            "--no-floor", "--write-markdown", "BENCHMARKS.md", "--from-results", results, "--memory-limit", "1.5G",
            "--cgroup-parent", "cgroups");
        Assert.True(options.Quick);
        Assert.Equal(["W1", "W3", "W7"], options.Workloads);
        Assert.Equal(["storageengine", "lmdb"], options.Engines);
        Assert.Equal(Path.GetFullPath("relative-out"), options.OutputDirectory);
        Assert.Equal(Path.Combine(directory.Path, "data"), options.DataDirectory);
        Assert.Equal(options.DataDirectory, options.DataRoot);
        Assert.Equal(3, options.Repeats);
        Assert.Equal(0.2, options.Scale);
        Assert.Equal(12.5, options.MaxPhaseSeconds);
        Assert.True(options.SkipFloor);
        Assert.Equal("BENCHMARKS.md", options.WriteMarkdown);
        Assert.Equal(results, options.FromResults);
        Assert.Equal(3L << 29, options.MemoryLimit);
        Assert.Equal(Path.GetFullPath("cgroups"), options.CgroupParent);
        Assert.Null(options.ChildEngine);
    }

    [Theory]
    [InlineData("0", 1)]
    [InlineData("-3", 1)]
    [InlineData("1", 1)]
    [InlineData("7", 7)]
    public void Repeats_below_one_count_as_one(string text, int repeats) =>
        Assert.Equal(repeats, Parse("--repeats", text).Repeats);

    [Theory]
    [InlineData("0", false, 3600)]
    [InlineData("-1", true, 180)]
    [InlineData("0.5", false, 0.5)]
    public void A_phase_cap_of_zero_or_less_is_the_default(string text, bool quick, double seconds)
    {
        string[] args = quick ? ["--quick", "--max-phase-seconds", text] : ["--max-phase-seconds", text];
        Assert.Equal(seconds, Parse(args).MaxPhaseSeconds);
    }

    [Fact]
    public void Numbers_read_the_same_in_every_culture()
    {
        var culture = CultureInfo.CurrentCulture;
        try
        {
            // A decimal comma: "0.25" would be a different number, or none, in this culture.
            CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo("de-DE");
            var options = Parse("--scale", "0.25", "--max-phase-seconds", "1.5");
            Assert.Equal(0.25, options.Scale);
            Assert.Equal(1.5, options.MaxPhaseSeconds);
        }
        finally
        {
            CultureInfo.CurrentCulture = culture;
        }
    }

    [Fact]
    public void W7_runs_with_a_memory_limit_or_from_saved_results()
    {
        var options = Parse("--workloads", "w6,w7", "--memory-limit", "256M");
        Assert.Equal(["W6", "W7"], options.Workloads);
        Assert.Equal(256L << 20, options.MemoryLimit);
        using var directory = new TempDirectory();
        string results = Path.Combine(directory.Path, "results.json");
        File.WriteAllText(results, "{}");
        Assert.Null(Parse("--workloads", "W7", "--from-results", results).MemoryLimit);
    }

    [Theory]
    [InlineData("--repeats x", "--repeats takes a whole number; 'x' is not one.")]
    [InlineData("--repeats 1.5", "--repeats takes a whole number; '1.5' is not one.")]
    [InlineData("--scale x", "--scale takes a finite number; 'x' is not one.")]
    [InlineData("--scale 1e999", "--scale takes a finite number; '1e999' is not one.")]
    [InlineData("--max-phase-seconds soon", "--max-phase-seconds takes a number of seconds; 'soon' is not one.")]
    [InlineData("--memory-limit 12Q", "--memory-limit: '12Q' is not a size (e.g. 256M, 1G, 268435456).")]
    [InlineData("--memory-limit 0", "--memory-limit: '0' is not a positive size.")]
    [InlineData("--memory-limit 99999999999T", "--memory-limit: '99999999999T' is too large.")]
    [InlineData("--workloads W8", "Unknown workload W8 in --workloads; W1 to W7 exist.")]
    [InlineData("--workloads W1,W7", "W7 needs --memory-limit SIZE")]
    [InlineData("--w7-child lmdb --memory-limit 1G", "--w7-child is started by the runner itself")]
    [InlineData("--from-results /nonexistent/results.json", "--from-results: there is no file '/nonexistent/results.json'.")]
    [InlineData("--bogus", "'--bogus'")]
    [InlineData("--quick W1", "'W1'")]
    [InlineData("--out", "'--out'")]
    [InlineData("--workloads W1 --workloads W2", "'--workloads'")]
    public void A_bad_argument_is_named_in_an_error_and_exits_with_code_2(string commandLine, string message)
    {
        var (options, exitCode, output, error) = Read(commandLine.Split(' '));
        Assert.Null(options);
        Assert.Equal(2, exitCode);
        Assert.Equal("", output);
        Assert.Contains(message, error, StringComparison.Ordinal);
        // The help follows the errors.
        Assert.Contains("--memory-limit <SIZE>", error, StringComparison.Ordinal);
    }

    [Fact]
    public void Every_bad_argument_is_reported_at_once()
    {
        var (_, exitCode, _, error) = Read(["--repeats", "x", "--workloads", "W8,W7", "--memory-limit", "12Q"]);
        Assert.Equal(2, exitCode);
        Assert.Contains("'x'", error, StringComparison.Ordinal);
        Assert.Contains("W8", error, StringComparison.Ordinal);
        Assert.Contains("'12Q'", error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    public void Help_lists_the_options_with_their_descriptions_but_not_the_hidden_ones(string help)
    {
        var (options, exitCode, output, error) = Read([help]);
        Assert.Null(options);
        Assert.Equal(0, exitCode);
        Assert.Equal("", error);
        foreach (var option in new[]
        {
            "--quick", "--workloads <W1,...,W7>", "--engines <a,b,...>", "--out <DIR>", "--data <DIR>", "--repeats <N>",
            "--scale <F>", "--max-phase-seconds <S>", "--no-floor", "--memory-limit <SIZE>", "--cgroup-parent <DIR>",
            "--write-markdown <FILE>", "--from-results <JSON>", "--help",
        })
            Assert.Contains(option, output, StringComparison.Ordinal);
        Assert.Contains("W7's memory limit (e.g. 256M, 1G", output, StringComparison.Ordinal);
        Assert.Contains("Skip measuring the machine's floor.", output, StringComparison.Ordinal);
        Assert.DoesNotContain("--w7-", output, StringComparison.Ordinal);
        Assert.DoesNotContain("--version", output, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--quick --workloads W7 --memory-limit 256M --scale 0.3333333333333333 --max-phase-seconds 12.5 --out w7-out")]
    [InlineData("--workloads W7 --memory-limit 1.5G --data w7-data")]
    [InlineData("--quick --workloads W1,W7 --memory-limit 268435457 --scale 1e-3")]
    public void A_W7_child_reads_its_arguments_back_as_the_runner_s_options(string commandLine)
    {
        var parent = Parse(commandLine.Split(' '));
        var childArgs = LargerThanMemoryWorkload.ChildArguments(parent, "lmdb", "/sys/fs/cgroup/storageengine-w7-1-lmdb",
            Path.Combine(parent.OutputDirectory, "W7-lmdb.child.json"));
        var child = Parse([.. childArgs]);
        Assert.Equal("lmdb", child.ChildEngine);
        Assert.Equal("/sys/fs/cgroup/storageengine-w7-1-lmdb", child.ChildCgroup);
        Assert.Equal(Path.Combine(parent.OutputDirectory, "W7-lmdb.child.json"), child.ChildResultFile);
        Assert.Equal(parent.MemoryLimit, child.MemoryLimit);
        Assert.Equal(parent.Quick, child.Quick);
        Assert.Equal(parent.Scale, child.Scale);
        Assert.Equal(parent.MaxPhaseSeconds, child.MaxPhaseSeconds);
        Assert.Equal(parent.OutputDirectory, child.OutputDirectory);
        Assert.Equal(parent.DataRoot, child.DataRoot);
        Assert.Equal(parent.Sizes, child.Sizes);
    }

    private static RunnerOptions Parse(params string[] args)
    {
        var (options, exitCode, _, error) = Read(args);
        Assert.True(options is not null, $"The command line was refused (exit code {exitCode}): {error}");
        return options;
    }

    private static (RunnerOptions? Options, int ExitCode, string Output, string Error) Read(string[] args)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        var options = RunnerCommandLine.Read(args, output, error, out int exitCode);
        return (options, exitCode, output.ToString(), error.ToString());
    }
}
