using System.IO.Pipelines;

namespace StorageEngine.Tests.Api;

/// <summary>The examples of docs/replication.md, verbatim.</summary>
public sealed partial class DocumentationExamplesTests
{
    /// <summary>A primary with a few committed transactions, on disk under the test's directory.</summary>
    private StorageEnvironment SeededPrimary()
    {
        var primary = StorageEnvironment.Open(_dir.File("primary"));
        for (int i = 0; i < 20; i++)
        {
            using var tx = primary.BeginWrite();
            tx.CreateTree("orders").Put(BitConverter.GetBytes(i), new byte[200]);
            tx.Commit();
        }
        return primary;
    }

    /// <summary>A replica of <paramref name="primary"/> as of now, restored from a full backup.</summary>
    private async Task<StorageEnvironment> ReplicaOf(StorageEnvironment primary)
    {
        string replicaPath = _dir.File("replica");
        using (var stream = new MemoryStream())
        {
            await primary.BackupAsync(stream);
            stream.Position = 0;
            await StorageEnvironment.RestoreAsync(stream, replicaPath);
        }
        return StorageEnvironment.OpenReplica(new StorageEnvironmentOptions { Path = replicaPath });
    }

    [Fact]
    public async Task Replication_backup_and_restore()
    {
        using var primary = SeededPrimary();
        string backupFile = _dir.File("backup.sebak"), restoredPath = _dir.File("restored");

        // A hot backup to a file, then a new environment made of it.
        await using (var file = File.Create(backupFile))
        {
            BackupSummary backup = await primary.BackupAsync(file, new Progress<BackupProgress>(p =>
                Console.WriteLine($"{p.Fraction:P0} of {p.TotalPages} pages")));
            Console.WriteLine($"transaction {backup.TransactionId}: {backup.PagesCopied} pages, {backup.StreamBytes:N0} bytes");
        }
        await using (var file = File.OpenRead(backupFile))
            await StorageEnvironment.RestoreAsync(file, restoredPath);
        using var restored = StorageEnvironment.Open(restoredPath);

        Assert.Equal(primary.LastCommittedTransactionId, restored.LastCommittedTransactionId);
        Assert.Equal(EnvironmentContents.Of(primary), EnvironmentContents.Of(restored));
    }

    [Fact]
    public async Task Replication_catching_up_from_a_file()
    {
        using var primary = SeededPrimary();
        using var replica = await ReplicaOf(primary);
        for (int i = 20; i < 30; i++)
        {
            using var tx = primary.BeginWrite();
            tx.CreateTree("orders").Put(BitConverter.GetBytes(i), new byte[200]);
            tx.Commit();
        }
        string shippedFile = _dir.File("shipped.serepl");

        // On the primary: everything the replica lacks, as a file.
        await using (var file = File.Create(shippedFile))
        {
            var writer = PipeWriter.Create(file);
            long last = await primary.ShipJournalAsync(replica.LastCommittedTransactionId, writer, follow: false);
            await writer.CompleteAsync();
            Console.WriteLine($"shipped up to transaction {last}");
        }
        // On the replica: apply it.
        await using (var file = File.OpenRead(shippedFile))
            await replica.ApplyReplicationStreamAsync(PipeReader.Create(file));
        Console.WriteLine($"replica at transaction {replica.LastCommittedTransactionId}");

        Assert.Equal(primary.LastCommittedTransactionId, replica.LastCommittedTransactionId);
        Assert.Equal(EnvironmentContents.Of(primary), EnvironmentContents.Of(replica));
    }

    [Fact]
    public async Task Replication_following_live_and_promoting()
    {
        using var primary = SeededPrimary();
        using var replica = await ReplicaOf(primary);

        var pipe = new Pipe();
        using var stop = new CancellationTokenSource();
        Task<long> shipping = primary.ShipJournalAsync(replica.LastCommittedTransactionId, pipe.Writer, follow: true, stop.Token);
        Task<long> applying = replica.ApplyReplicationStreamAsync(pipe.Reader);

        using (var tx = primary.BeginWrite())
        {
            tx.CreateTree("orders").Put("order-1"u8, "2 x item-0042"u8);
            tx.Commit();                 // shipped as it commits
        }
        while (replica.LastCommittedTransactionId < primary.LastCommittedTransactionId) await Task.Delay(10);

        // Retire the primary: stop shipping, end the stream, let the replica finish and take over.
        stop.Cancel();
        try { await shipping; } catch (OperationCanceledException) { }
        await pipe.Writer.CompleteAsync();
        await applying;
        replica.PromoteToPrimary();      // accepts write transactions from now on

        Assert.False(replica.IsReplica);
        Assert.Equal(EnvironmentContents.Of(primary), EnvironmentContents.Of(replica));
        using (var tx = replica.BeginWrite())
        {
            tx.CreateTree("orders").Put("order-2"u8, "1 x item-0007"u8);
            tx.Commit();
        }
    }
}
