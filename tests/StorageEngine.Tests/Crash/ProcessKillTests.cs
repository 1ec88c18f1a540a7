using System.Diagnostics;
using System.Globalization;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Crash;

/// <summary>
/// Promise 1 of the design against a real <c>kill -9</c>: a child process commits a deterministic stream of
/// transactions and is killed at random moments; after each kill the environment must hold every acknowledged
/// commit, exactly the state after one transaction (nothing partial), and pass <see cref="StorageEnvironment.Check"/>.
/// STORAGEENGINE_CRASH_CYCLES sets the number of kill cycles per test (e.g. 5000 for a long run);
/// STORAGEENGINE_CRASH_SEED replays a failing run.
/// </summary>
public sealed class ProcessKillTests
{
    private const int JournalFileSize = 1 << 20;
    private readonly ITestOutputHelper _output;

    public ProcessKillTests(ITestOutputHelper output) => _output = output;

    [Fact]
    public void Every_acknowledged_safe_commit_survives_SIGKILL_and_no_commit_is_partly_recovered() =>
        RunCycles(defaultCycles: 50, maxCommitsBeforeKill: 20, childOptions: [],
            directory => new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Safe });

    [Fact]
    public void Every_acknowledged_commit_survives_SIGKILL_while_background_checkpoints_recycle_the_journal() =>
        // A checkpoint after every few KB of journal and small journal files: most kills land while the checkpointer
        // is flushing the data file, writing its header, or recycling journal files.
        RunCyclesRecyclingTheJournal(DurabilityMode.Safe, defaultCycles: 30);

    [Fact]
    public void Every_acknowledged_lazy_commit_survives_SIGKILL() =>
        // Lazy skips the sync, but the journal write reached the kernel before Commit returned, and a process
        // crash does not lose what the kernel holds.
        RunCycles(defaultCycles: 15, maxCommitsBeforeKill: 20, childOptions: ["--lazy"],
            directory => new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Lazy });

    [Fact]
    public void Every_acknowledged_lazy_commit_survives_SIGKILL_while_checkpoints_recycle_mapped_journal_files() =>
        // A Lazy journal's records are copied into a shared mapping of the file, not written: they are in the page
        // cache all the same. Small files and frequent checkpoints make kills land while files are switched (mapped
        // anew, blocks reserved) and recycled ones are written over.
        RunCyclesRecyclingTheJournal(DurabilityMode.Lazy, defaultCycles: 15);

    /// <summary>Kill cycles with a checkpoint after every 16 KiB of journal, every 5 ms, and small journal files.</summary>
    private void RunCyclesRecyclingTheJournal(DurabilityMode durability, int defaultCycles)
    {
        string[] lazy = durability == DurabilityMode.Lazy ? ["--lazy"] : [];
        RunCycles(defaultCycles, maxCommitsBeforeKill: 60,
            childOptions:
            [
                .. lazy,
                "--checkpoint-threshold", "16384",
                "--checkpoint-interval-ms", "5",
                "--journal-size", JournalFileSize.ToString(CultureInfo.InvariantCulture),
            ],
            directory => new StorageEnvironmentOptions
            {
                Path = directory,
                Durability = durability,
                CheckpointThreshold = 16384,
                JournalFileSize = JournalFileSize,
            });
    }

    [Fact]
    public void Every_acknowledged_async_commit_survives_SIGKILL_while_later_commits_are_in_flight() =>
        // The child begins each transaction before awaiting the last one's CommitAsync, up to four in flight: a kill
        // lands with commits sealed in memory, queued, or in the journal write, none of them acknowledged yet.
        RunCycles(defaultCycles: 30, maxCommitsBeforeKill: 40, childOptions: ["--async-depth", AsyncDepth.ToString(CultureInfo.InvariantCulture)],
            directory => new StorageEnvironmentOptions { Path = directory, Durability = DurabilityMode.Safe }, maxInFlight: AsyncDepth);

    private const int AsyncDepth = 4;

    [Fact]
    public void An_environment_killed_while_being_created_or_recovered_opens_with_nothing_partial()
    {
        // Each fresh directory gets one kill timed around the child's start-up (measured on the first one), so
        // many land while it creates the data file and journal; then a second kill on the same directory lands
        // while it reopens what the first left.
        int environments = Math.Max(4, (EnvironmentInt("STORAGEENGINE_CRASH_CYCLES") ?? 50) / 6);
        int seed = EnvironmentInt("STORAGEENGINE_CRASH_SEED") ?? Random.Shared.Next();
        var random = new Random(seed);
        var watch = Stopwatch.StartNew();
        double readyMs = 0;
        int killedBeforeReady = 0;
        long acknowledged = 0;
        for (int n = 0; n < environments; n++)
        {
            string directory = NewDirectory();
            var runner = new CrashCycleRunner(directory, [], () => new StorageEnvironmentOptions { Path = directory }, random.Next(), 5);
            if (n == 0) runner.RunCycle(KillMoment.AfterReady);
            else runner.RunCycle(KillMoment.AfterLaunchDelay, (int)(readyMs * (0.6 + 0.5 * random.NextDouble())));
            if (runner.LastReadyAfter is { } ready) readyMs = ready.TotalMilliseconds;
            runner.RunCycle(KillMoment.AfterLaunchDelay, (int)(readyMs * (0.6 + 0.5 * random.NextDouble())));
            killedBeforeReady += runner.KilledBeforeReady;
            acknowledged += runner.AcknowledgedCommits;
            DeleteDirectory(directory);
        }
        _output.WriteLine($"seed {seed}: {environments} environments, {2 * environments} cycles, killed before ready {killedBeforeReady}, " +
            $"acknowledged commits {acknowledged}, start-up to ready {readyMs:0} ms, elapsed {watch.Elapsed.TotalSeconds:0.0} s");
    }

    private void RunCycles(int defaultCycles, int maxCommitsBeforeKill, string[] childOptions, Func<string, StorageEnvironmentOptions> verifyOptions,
        int maxInFlight = 1)
    {
        int cycles = EnvironmentInt("STORAGEENGINE_CRASH_CYCLES") ?? defaultCycles;
        int seed = EnvironmentInt("STORAGEENGINE_CRASH_SEED") ?? Random.Shared.Next();
        string directory = NewDirectory();
        var runner = new CrashCycleRunner(directory, childOptions, () => verifyOptions(directory), seed, maxCommitsBeforeKill, maxInFlight);
        var watch = Stopwatch.StartNew();
        bool passed = false;
        try
        {
            for (int cycle = 0; cycle < cycles; cycle++) runner.RunCycle();
            passed = true;
        }
        finally
        {
            _output.WriteLine($"seed {seed}, {(passed ? "passed" : "FAILED")}: {runner.Summary(watch.Elapsed)}");
            // A failing run keeps its directory (named in the failure) for inspection.
            if (passed) DeleteDirectory(directory);
        }

        Assert.Equal(cycles, runner.Cycles);
        Assert.True(runner.AcknowledgedCommits > 0 || cycles < 5, "No kill cycle let the child acknowledge a commit, so nothing was tested.");
    }

    private static string NewDirectory()
    {
        string directory = Path.Combine(Path.GetTempPath(), "se-crash-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(directory);
        return directory;
    }

    private static int? EnvironmentInt(string name) =>
        int.TryParse(Environment.GetEnvironmentVariable(name), NumberStyles.Integer, CultureInfo.InvariantCulture, out int value) ? value : null;

    private static void DeleteDirectory(string directory)
    {
        try
        {
            Directory.Delete(directory, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory must not fail the test.
        }
    }
}
