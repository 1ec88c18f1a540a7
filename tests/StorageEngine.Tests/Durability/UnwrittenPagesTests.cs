using StorageEngine.Platform;
using StorageEngine.Tests.Faults;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A commit writes its journal record only; its pages stay in memory until a checkpoint writes them into the
/// data file. Readers see them meanwhile, pages replaced before the checkpoint are never written, and every
/// commit survives a crash at any point of that.
/// </summary>
public sealed class UnwrittenPagesTests
{
    private const int PageSize = 4096;

    [Fact]
    public void ACommitWritesNothingToTheDataFileAndItsPagesAreReadFromMemory()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 50);
        long before = fileSystem.DataFileBytesWritten;
        Commit(environment, 51, 150);

        Assert.Equal(before, fileSystem.DataFileBytesWritten);
        AssertExactly(environment, 150);
        environment.Checkpoint();
        Assert.True(fileSystem.DataFileBytesWritten > before, "the checkpoint wrote no pages");
        AssertExactly(environment, 150);
    }

    [Fact]
    public void PagesReplacedBeforeTheCheckpointAreNeverWritten()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        var key = "counter"u8.ToArray();
        const int Commits = 500;
        for (int i = 0; i < Commits; i++)
        {
            using var transaction = environment.BeginWrite();
            transaction.CreateTree("t").Put(key, BitConverter.GetBytes(i));
            transaction.Commit();
        }
        long before = fileSystem.DataFileBytesWritten;
        environment.Checkpoint();
        long written = fileSystem.DataFileBytesWritten - before;

        // Each commit copied at least the tree's leaf and the root of names: 1,000 pages. What is live at the
        // checkpoint is a handful of pages, plus the header.
        Assert.InRange(written, 1, 16 * PageSize);
        using var read = environment.BeginRead();
        Assert.Equal(Commits - 1, BitConverter.ToInt32(read.OpenTree("t").Get(key)));
    }

    [Fact]
    public void AReaderKeepsItsPagesWhileCheckpointsWriteAndForgetThemAndLaterCommitsReuseTheirBuffers()
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 40);
        using var reader = environment.BeginRead();
        for (long next = 41; next <= 200; next += 40)
        {
            Commit(environment, next, next + 39);
            environment.Checkpoint();
        }
        AssertExactly(environment, 200);
        AssertSnapshot(reader, 40);
    }

    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void CommitsHeldInMemorySurviveAProcessCrashBeforeAnyCheckpoint(DurabilityMode durability)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, durability);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 120);
        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 120);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task ABackupTakenBeforeAnyCheckpointHoldsEveryCommit()
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 90);
        using var stream = new MemoryStream();
        await environment.BackupAsync(stream);

        var restored = Options(new MemoryFileSystem());
        restored.Path = "/restored";
        await Replication.ReplicationStreams.RestoreAsync(stream.ToArray(), restored);
        using var copy = StorageEnvironment.Open(restored);
        AssertExactly(copy, 90);
    }

    private static void AssertSnapshot(ReadTransaction reader, long last)
    {
        var log = reader.OpenTree(LogTree);
        foreach (long key in ExpectedKeys(last))
        {
            Assert.True(log.TryGet(key, out var value), $"the reader lost key {key}");
            Assert.True(value.SequenceEqual(Value(key)), $"the reader sees a changed value for key {key}");
        }
    }
}
