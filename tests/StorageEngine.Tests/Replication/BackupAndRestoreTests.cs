using System.IO.Pipelines;
using StorageEngine.Platform;
using StorageEngine.Tests.Unit;
using static StorageEngine.Tests.Durability.NumberedTransactions;
using static StorageEngine.Tests.Replication.ReplicationStreams;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// A hot backup is one committed snapshot, whatever the writer does meanwhile, and a restore turns it into an
/// environment holding exactly that snapshot, or into nothing at all.
/// </summary>
public sealed class BackupAndRestoreTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    /// <summary>Reports synchronously, on the backup's own thread (Progress&lt;T&gt; would post them elsewhere).</summary>
    private sealed class InlineProgress(Action<BackupProgress> report) : IProgress<BackupProgress>
    {
        public void Report(BackupProgress value) => report(value);
    }

    [Fact]
    public async Task A_backup_taken_while_a_writer_commits_restores_exactly_the_snapshot_it_started_from()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        Commit(primary, 1, 400);
        using var stop = new CancellationTokenSource();
        var writer = Task.Run(() =>
        {
            for (long number = 401; !stop.IsCancellationRequested; number++) Commit(primary, number);
        });

        var reports = new List<BackupProgress>();
        var (backup, summary) = await BackupAsync(primary, new InlineProgress(report =>
        {
            // Hold the backup until the writer has committed well past its snapshot, so pages are freed and
            // reused all around the pages still to be copied.
            if (reports.Count == 0)
            {
                var waited = System.Diagnostics.Stopwatch.StartNew();
                while (primary.LastCommittedTransactionId < report.TransactionId + 50 && waited.Elapsed < Patience) Thread.Sleep(1);
            }
            reports.Add(report);
        }));
        stop.Cancel();
        await writer.WaitAsync(Patience);

        Assert.True(primary.LastCommittedTransactionId >= summary.TransactionId + 50, "the writer did not commit while the backup ran");
        Assert.True(summary.TransactionId >= 400);
        Assert.Equal(backup.Length, summary.StreamBytes);
        Assert.NotEmpty(reports);
        Assert.Equal(summary.PagesCopied, reports[^1].PagesCopied);
        Assert.Equal(summary.PagesCopied, reports[^1].TotalPages);
        Assert.True(reports.Zip(reports.Skip(1)).All(pair => pair.First.PagesCopied < pair.Second.PagesCopied), "progress went backwards");

        var target = Options(fileSystem);
        target.Path = "/restored";
        var restored = await RestoreAsync(backup, target);
        Assert.Equal(summary.TransactionId, restored.TransactionId);
        using var copy = StorageEnvironment.Open(target);
        AssertExactly(copy, summary.TransactionId);
        AssertHealthy(copy);
        // The copy is an environment of its own: it takes the next transaction.
        Commit(copy, summary.TransactionId + 1);
        AssertExactly(copy, summary.TransactionId + 1);
    }

    [Fact]
    public async Task A_backup_restores_through_files_on_disk_with_the_sources_identity_and_page_numbers()
    {
        using var directory = new TempDirectory("backup");
        string source = directory.File("source"), backupFile = directory.File("backup.sebak"), target = directory.File("target");
        BackupSummary summary;
        using (var primary = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = source, JournalFileSize = 1 << 20 }))
        {
            Commit(primary, 1, 150);
            await using (var file = File.Create(backupFile)) summary = await primary.BackupAsync(file);
            Assert.Equal(150, summary.TransactionId);
        }
        await using (var file = File.OpenRead(backupFile))
        {
            var restored = await StorageEnvironment.RestoreAsync(file, target);
            Assert.Equal(summary.EnvironmentId, restored.EnvironmentId);
            Assert.Equal(summary.PageCount, restored.PageCount);
        }
        using var copy = StorageEnvironment.Open(target);
        AssertExactly(copy, 150);
        AssertHealthy(copy);
        Assert.Equal(summary.PageCount, copy.GetStatistics().PageCount);
    }

    [Fact]
    public async Task Restore_refuses_a_directory_that_is_not_empty_and_leaves_it_as_it_was()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        Commit(primary, 1, 20);
        var (backup, _) = await BackupAsync(primary);
        var target = Options(fileSystem);
        target.Path = "/occupied";
        fileSystem.CreateDirectory("/occupied");
        using (var file = fileSystem.Open("/occupied/notes.txt", StorageFileMode.Buffered)) file.Write(0, "keep me"u8);

        var refused = await Assert.ThrowsAsync<IOException>(() => RestoreAsync(backup, target));
        Assert.Contains("not empty", refused.Message);
        Assert.Equal(["notes.txt"], fileSystem.ListFiles("/occupied"));

        // An existing primary's directory is refused just the same.
        var onPrimary = Options(fileSystem);
        await Assert.ThrowsAsync<IOException>(() => RestoreAsync(backup, onPrimary));
        AssertExactly(primary, 20);
    }

    public static TheoryData<string> Damage => new() { "truncated inside the header", "truncated inside a chunk", "truncated before the trailer", "bit flipped in a page", "bit flipped in the header", "trailer replaced by a chunk's end" };

    [Theory]
    [MemberData(nameof(Damage))]
    public async Task Restore_refuses_a_damaged_or_truncated_backup_and_leaves_no_environment(string damage)
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        Commit(primary, 1, 60);
        var (backup, _) = await BackupAsync(primary);
        byte[] bad = damage switch
        {
            "truncated inside the header" => backup[..100],
            "truncated inside a chunk" => backup[..(256 + 32 + 5000)],
            "truncated before the trailer" => backup[..^32],
            "bit flipped in a page" => Flip(backup, 256 + 32 + 4096 + 77),
            "bit flipped in the header" => Flip(backup, 70),
            _ => backup[..^32].Concat(backup[^64..^32]).ToArray(),
        };
        var target = Options(fileSystem);
        target.Path = "/restored";

        await Assert.ThrowsAsync<CorruptionException>(() => RestoreAsync(bad, target));
        Assert.DoesNotContain(fileSystem.ListFiles("/restored"), name => name.StartsWith("data", StringComparison.Ordinal));
        // A refused restore may be retried in the same place.
        await RestoreAsync(backup, target);
        using var copy = StorageEnvironment.Open(target);
        AssertExactly(copy, 60);
    }

    [Fact]
    public async Task An_empty_environment_and_an_in_memory_one_back_up_and_restore()
    {
        var fileSystem = new MemoryFileSystem();
        using (var empty = StorageEnvironment.Open(Options(fileSystem)))
        {
            var (backup, summary) = await BackupAsync(empty);
            Assert.Equal(0, summary.TransactionId);
            Assert.Equal(0, summary.PagesCopied);
            var target = Options(fileSystem);
            target.Path = "/empty-copy";
            await RestoreAsync(backup, target);
            using var copy = StorageEnvironment.Open(target);
            AssertExactly(copy, 0);
            AssertHealthy(copy);
        }
        using (var inMemory = StorageEnvironment.CreateInMemory())
        {
            Commit(inMemory, 1, 30);
            var (backup, _) = await BackupAsync(inMemory);
            var target = Options(fileSystem);
            target.Path = "/from-memory";
            await RestoreAsync(backup, target);
            using var copy = StorageEnvironment.Open(target);
            AssertExactly(copy, 30);
            AssertHealthy(copy);
        }
    }

    [Fact]
    public async Task A_cancelled_backup_stops_and_releases_its_snapshot()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        Commit(primary, 1, 10);
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => primary.BackupAsync(PipeWriter.Create(Stream.Null), cancellationToken: cancelled.Token));
        Assert.Equal(0, primary.GetStatistics().OpenReaders);
    }

    private static byte[] Flip(byte[] bytes, int offset)
    {
        var copy = (byte[])bytes.Clone();
        copy[offset] ^= 0x10;
        return copy;
    }
}
