using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// After a clean close, an open starts its session (the header that names it, its first journal file) only when
/// something first needs it: a commit, a checkpoint or a shipping session. An environment only read from writes
/// nothing, at open or at close; one that commits starts the session with its first commit, which stays durable.
/// </summary>
public sealed class ReadOnlyUseTests
{
    [Fact]
    public void An_environment_only_read_from_leaves_its_files_exactly_as_they_were()
    {
        using var directory = new Unit.TempDirectory("readonly-use");
        var options = new StorageEnvironmentOptions { Path = directory.Path };
        using (var environment = StorageEnvironment.Open(options)) Commit(environment, 1, 50);
        var before = Snapshot(directory.Path);

        using (var environment = StorageEnvironment.Open(options))
        {
            AssertExactly(environment, 50);
            // A write transaction that commits nothing needs no session either.
            using (var write = environment.BeginWrite()) write.OpenTree("log");
        }

        Assert.Equal(before, Snapshot(directory.Path));
        using (var environment = StorageEnvironment.Open(options))
        {
            Commit(environment, 51, 60);
        }
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 60);
        AssertHealthy(reopened);
    }

    [Theory]
    [InlineData(PowerLoss.UnsyncedWritesDropped)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandom)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear)]
    public void The_first_commit_after_a_clean_reopen_starts_the_session_and_survives_a_power_loss(PowerLoss loss)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        using (var environment = StorageEnvironment.Open(options)) Commit(environment, 1, 40);

        // Only read from, then a crash and a power loss: nothing of the last session is lost.
        var reader = StorageEnvironment.Open(options);
        AssertExactly(reader, 40);
        reader.SimulateCrash();
        LosePower(fileSystem, loss, new Random(1));

        var writer = StorageEnvironment.Open(options);
        Commit(writer, 41, 55);
        writer.SimulateCrash();
        LosePower(fileSystem, loss, new Random(2));

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 55);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task A_checkpoint_racing_with_the_close_of_an_environment_only_read_from_leaves_it_openable()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        using (var environment = StorageEnvironment.Open(options)) Commit(environment, 1, 10);
        for (int round = 0; round < 200; round++)
        {
            var environment = StorageEnvironment.Open(options);
            using var start = new Barrier(2);
            var checkpoints = Task.Run(() =>
            {
                start.SignalAndWait();
                try
                {
                    environment.Checkpoint();
                }
                catch (ObjectDisposedException)
                {
                }
            });
            start.SignalAndWait();
            environment.Dispose();
            await checkpoints;
        }
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 10);
        AssertHealthy(reopened);
    }

    /// <summary>Every file's name, length, contents and last write time.</summary>
    private static List<string> Snapshot(string directory) =>
        Directory.GetFiles(directory).Order(StringComparer.Ordinal)
            .Select(path => $"{Path.GetFileName(path)} {new FileInfo(path).Length} {Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(path)))} {File.GetLastWriteTimeUtc(path):O}")
            .ToList();
}
