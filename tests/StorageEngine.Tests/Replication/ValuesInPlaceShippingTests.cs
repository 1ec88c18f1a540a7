using System.IO.Pipelines;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;
using static StorageEngine.Tests.Replication.PrimaryReplicaPair;
using static StorageEngine.Tests.Replication.ReplicationStreams;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// Large values a Safe commit wrote straight into the data file are not in its journal record, so shipping reads
/// them back from the data file: a replica gets them whole, a running session keeps their pages from being
/// reused before it has read them, and a session that starts too late to find them is told to take a full backup.
/// </summary>
public sealed class ValuesInPlaceShippingTests
{
    private const int ValueSize = 64 << 10;
    private const int SmallValueSize = 16 << 10;

    [Fact]
    public async Task A_replica_receives_the_values_its_primary_wrote_in_place()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem, valuesInPlaceFrom: 1));
        Commit(primary, 1, 10);
        using var replica = await CreateReplicaAsync(primary, ReplicaOptions(fileSystem));
        // Transactions 13, 26, 39, ... put values of 2 to 20 KB; with the threshold at one byte, those on new pages go in place.
        Commit(primary, 11, 80);
        PutValue(primary, 81, 1);
        Assert.Equal(81, await ApplyAsync(replica, await ShipAsync(primary, 10)));
        AssertSameContents(primary, replica);
    }

    [Fact]
    public async Task A_stalled_session_keeps_the_pages_of_values_it_has_not_shipped_from_reuse()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem, valuesInPlaceFrom: 1));
        Commit(primary, 1, 10);
        using var replica = await CreateReplicaAsync(primary, ReplicaOptions(fileSystem));

        // A pipe nobody reads yet: the session stalls once it holds 16 KiB, before the value below.
        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 16 << 10, resumeWriterThreshold: 8 << 10));
        using var stop = new CancellationTokenSource();
        var shipping = primary.ShipJournalAsync(10, pipe.Writer, cancellationToken: stop.Token);
        PutValue(primary, 11, 1);
        // The value is freed, a checkpoint covers that, and new values of the same size are committed: without the
        // session, they would take its pages (through the journal, then the checkpoint into the data file).
        DeleteValues(primary, 12);
        primary.Checkpoint();
        PutValue(primary, 13, 2);
        PutValue(primary, 14, 3);
        primary.Checkpoint();

        var applying = replica.ApplyReplicationStreamAsync(pipe.Reader);
        await WaitUntil(() => replica.LastCommittedTransactionId == 14 || shipping.IsCompleted);
        stop.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => shipping.WaitAsync(Patience));
        await pipe.Writer.CompleteAsync();
        await applying.WaitAsync(Patience);
        AssertSameContents(primary, replica);
    }

    [Fact]
    public async Task A_session_that_starts_after_the_values_were_written_over_asks_for_a_full_backup()
    {
        var fileSystem = new MemoryFileSystem();
        using var primary = StorageEnvironment.Open(Options(fileSystem, valuesInPlaceFrom: 1));
        // Few and small enough transactions that the first journal file (64 KiB) holds them all: the checkpoints
        // retire none of them.
        Commit(primary, 1, 3);
        PutValue(primary, 4, 1, SmallValueSize);
        DeleteValues(primary, 5);
        primary.Checkpoint();
        // Same size: they take the freed pages, and the checkpoint writes them there.
        PutValue(primary, 6, 2, SmallValueSize);
        primary.Checkpoint();

        var refused = await Assert.ThrowsAsync<ReplicationException>(() => ShipAsync(primary, 3));
        Assert.True(refused.RequiresFullBackup);
        Assert.Contains("large values", refused.Message);
        // After those transactions shipping works again.
        Commit(primary, 7);
        Assert.True((await ShipAsync(primary, 6)).Length > 0);
    }

    private static void PutValue(StorageEnvironment environment, long transaction, int seed, int size = ValueSize)
    {
        using var write = environment.BeginWrite();
        Assert.Equal(transaction, write.TransactionId);
        var tree = write.CreateTree("values", TreeOptions.Int64Keys);
        var value = new byte[size];
        new Random(seed).NextBytes(value);
        tree.Put(seed, value);
        write.Commit();
    }

    private static void DeleteValues(StorageEnvironment environment, long transaction)
    {
        using var write = environment.BeginWrite();
        Assert.Equal(transaction, write.TransactionId);
        write.DeleteTree("values");
        write.Commit();
    }
}
