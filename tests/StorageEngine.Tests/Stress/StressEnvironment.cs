using System.Globalization;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Stress;

/// <summary>
/// A Safe environment for a stress test, on the OS file system in a temporary directory (deleted afterwards) or on
/// a memory file system, with small journal files and frequent background checkpoints so that the checkpointer,
/// journal recycling and file growth all run beside the test's threads.
/// </summary>
internal sealed class StressEnvironment : IDisposable
{
    /// <summary>How long each stress test runs: STORAGEENGINE_STRESS_SECONDS, else a second.</summary>
    public static TimeSpan Duration { get; } = TimeSpan.FromSeconds(
        double.TryParse(Environment.GetEnvironmentVariable("STORAGEENGINE_STRESS_SECONDS"), NumberStyles.Float, CultureInfo.InvariantCulture, out double seconds) && seconds > 0 ? seconds : 1.0);

    /// <summary>How long a thread may take beyond <see cref="Duration"/> before the test calls it a deadlock.</summary>
    public static TimeSpan Patience => TimeSpan.FromSeconds(30) + Duration;

    private readonly string? _directory;

    public StressEnvironment(StressTarget target)
    {
        Target = target;
        if (target == StressTarget.OsFiles)
        {
            _directory = Path.Combine(Path.GetTempPath(), "se-stress-" + Guid.NewGuid().ToString("N"));
            Options = new StorageEnvironmentOptions { Path = _directory };
        }
        else
        {
            Memory = new MemoryFileSystem();
            Options = new StorageEnvironmentOptions { Path = "/db", FileSystem = Memory };
        }
        Options.JournalFileSize = 4 << 20;
        Options.CheckpointThreshold = 8 << 20;
        Options.CheckpointInterval = TimeSpan.FromMilliseconds(500);
        Options.WriteTimeout = Patience;
    }

    public StressTarget Target { get; }

    public StorageEnvironmentOptions Options { get; }

    /// <summary>The memory file system, or null on the OS one.</summary>
    public MemoryFileSystem? Memory { get; }

    public StorageEnvironment Open() => StorageEnvironment.Open(Options);

    /// <summary>Waits for the threads; fails the test naming <paramref name="what"/> if they do not finish in time.</summary>
    public static async Task AssertFinish(IEnumerable<Task> threads, string what)
    {
        var all = Task.WhenAll(threads);
        if (await Task.WhenAny(all, Task.Delay(Patience)) != all) Assert.Fail($"{what} did not finish within {Patience.TotalSeconds:0} s: deadlock?");
        await all;
    }

    /// <summary>
    /// Kills the environment without a checkpoint, as a process crash would; on memory files the power goes too,
    /// with unsynced writes dropped, kept, torn and reordered at random.
    /// </summary>
    public void Crash(StorageEnvironment environment, int seed)
    {
        environment.SimulateCrash();
        Memory?.SimulatePowerLoss(new Random(seed), tearWrites: true, reorderWrites: true, scatterTears: true);
    }

    public void Dispose()
    {
        if (_directory is null) return;
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory must not fail the test.
        }
    }
}
