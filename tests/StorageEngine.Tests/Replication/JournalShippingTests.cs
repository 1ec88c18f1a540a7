using System.IO.Pipelines;
using StorageEngine.Journal;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;
using static StorageEngine.Tests.Replication.PrimaryReplicaPair;
using static StorageEngine.Tests.Replication.ReplicationStreams;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// Journal shipping reads the primary's journal files: it keeps the files a slow replica still needs from being
/// recycled by checkpoints, and asks for a full backup when the journal no longer holds what was asked for.
/// </summary>
public sealed class JournalShippingTests
{
    [Fact]
    public async Task Checkpoints_keep_the_journal_files_a_slow_replica_has_not_read_yet()
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 10);
        var (primary, replica, fileSystem) = (pair.Primary, pair.Replica, pair.FileSystem);

        // A small pipe that nobody reads yet: the shipper stalls on its first flushes.
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 16 << 10, resumeWriterThreshold: 8 << 10));
        using var stop = new CancellationTokenSource();
        long fileAtStart = JournalFileNumbers(fileSystem).Max();
        var shipping = primary.ShipJournalAsync(10, pipe.Writer, cancellationToken: stop.Token);
        // Commit by commit until the shipper, which flushes whenever it has caught up, fills the pipe and stalls:
        // on a loaded machine it may otherwise start late and read a whole journal file ahead before its first flush.
        long number = 11;
        for (long shipped = 0; shipped < 16 << 10; number++)
        {
            Commit(primary, number);
            shipped = await ShippedBytesGrowAsync(pipe.Reader, shipped);
        }
        for (; number <= 600; number++)
        {
            Commit(primary, number);
            if (number % 50 == 0) primary.Checkpoint();
        }
        // The session stalled a few records after transaction 11, in the file current when it started or the
        // next: the checkpoints since (every 50 commits) would have retired those and every file but the last.
        var numbers = JournalFileNumbers(fileSystem);
        int journalFiles = numbers.Count;
        Assert.True(journalFiles >= 3 && numbers.Min() <= fileAtStart + 1,
            $"the stalled session should have kept the journal files from {fileAtStart} on; files {string.Join(", ", numbers)} are left");

        var applying = replica.ApplyReplicationStreamAsync(pipe.Reader);
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (replica.LastCommittedTransactionId < 600 && waited.Elapsed < Patience) await Task.Delay(5);
        stop.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => shipping.WaitAsync(Patience));
        await pipe.Writer.CompleteAsync();
        await applying.WaitAsync(Patience);
        AssertExactly(replica, 600);

        // With the session gone, the next checkpoint recycles what it held.
        Commit(primary, 601);
        primary.Checkpoint();
        Assert.True(fileSystem.ListFiles(PrimaryPath).Count(name => JournalFileNames.TryParse(name, out _)) < journalFiles);
    }

    /// <summary>Waits until the pipe holds more than <paramref name="before"/> bytes, consuming none; returns how many.</summary>
    private static async Task<long> ShippedBytesGrowAsync(PipeReader reader, long before)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (waited.Elapsed < Patience)
        {
            if (reader.TryRead(out var result))
            {
                long length = result.Buffer.Length;
                reader.AdvanceTo(result.Buffer.Start);
                if (length > before) return length;
            }
            await Task.Delay(1);
        }
        throw new TimeoutException($"the shipper flushed nothing past {before} bytes within {Patience}");
    }

    private static List<long> JournalFileNumbers(MemoryFileSystem fileSystem) =>
        fileSystem.ListFiles(PrimaryPath).Select(name => JournalFileNames.TryParse(name, out long n) ? n : -1).Where(n => n >= 0).Order().ToList();

    [Fact]
    public async Task Shipping_from_a_transaction_the_journal_no_longer_holds_asks_for_a_full_backup()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        for (long number = 1; number <= 400; number++)
        {
            Commit(primary, number);
            if (number % 50 == 0) primary.Checkpoint();
        }

        var refused = await Assert.ThrowsAsync<ReplicationException>(() => primary.ShipJournalAsync(5, PipeWriter.Create(Stream.Null), follow: false));
        Assert.True(refused.RequiresFullBackup);
        Assert.Contains("full backup", refused.Message);
        var ahead = await Assert.ThrowsAsync<ReplicationException>(() => primary.ShipJournalAsync(401, PipeWriter.Create(Stream.Null), follow: false));
        Assert.True(ahead.RequiresFullBackup);

        // What the journal still holds ships, and a replica restored from a new backup follows on from it.
        var replicaOptions = ReplicaOptions(fileSystem);
        using var replica = await CreateReplicaAsync(primary, replicaOptions);
        Commit(primary, 401, 420);
        Assert.Equal(420, await ApplyAsync(replica, await ShipAsync(primary, 400)));
        AssertExactly(replica, 420);
    }

    [Fact]
    public async Task A_replica_that_was_caught_up_follows_the_primary_across_its_restart()
    {
        var fileSystem = new MemoryFileSystem();
        var primaryOptions = Options(fileSystem);
        StorageEnvironment? replica = null;
        try
        {
            using (var primary = StorageEnvironment.Open(primaryOptions))
            {
                Commit(primary, 1, 30);
                replica = await CreateReplicaAsync(primary, ReplicaOptions(fileSystem));
                Commit(primary, 31, 60);
                await ApplyAsync(replica, await ShipAsync(primary, 30));
            }
            using (var reopened = StorageEnvironment.Open(primaryOptions))
            {
                Commit(reopened, 61, 90);
                Assert.Equal(90, await ApplyAsync(replica, await ShipAsync(reopened, replica.LastCommittedTransactionId)));
                AssertSameContents(reopened, replica);
            }
        }
        finally
        {
            replica?.Dispose();
        }
    }

    [Fact]
    public async Task An_incremental_stream_of_nothing_new_is_just_a_header()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem));
        Commit(primary, 1, 5);
        var stream = await ShipAsync(primary, 5);
        Assert.Equal(StreamHeaderSize, stream.Length);
        using var inMemory = StorageEnvironment.CreateInMemory();
        await Assert.ThrowsAsync<InvalidOperationException>(() => inMemory.ShipJournalAsync(0, PipeWriter.Create(Stream.Null)));
    }
}
