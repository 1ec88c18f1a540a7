using System.IO.Pipelines;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;
using static StorageEngine.Tests.Replication.PrimaryReplicaPair;
using static StorageEngine.Tests.Replication.ReplicationStreams;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// A replica restored from a primary's backup follows the primary's journal: it ends up equal to the primary,
/// resumes where it stopped, refuses streams that do not continue it without applying any part of them, refuses
/// local writes, keeps its readers' snapshots intact, and recovers after a crash like any environment.
/// </summary>
public sealed class ReplicaTests
{
    [Fact]
    public async Task A_replica_following_a_live_stream_equals_the_primary_once_caught_up()
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 40);
        var (primary, replica) = (pair.Primary, pair.Replica);
        Commit(primary, 41, 80);

        var pipe = new Pipe(new PipeOptions(pauseWriterThreshold: 64 << 10, resumeWriterThreshold: 32 << 10));
        using var stop = new CancellationTokenSource();
        var shipping = primary.ShipJournalAsync(replica.LastCommittedTransactionId, pipe.Writer, cancellationToken: stop.Token);
        var applying = replica.ApplyReplicationStreamAsync(pipe.Reader);
        // Commits keep arriving while the replica catches up, and are shipped as they commit.
        Commit(primary, 81, 200);
        await WaitUntil(() => replica.LastCommittedTransactionId == 200);

        stop.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => shipping.WaitAsync(Patience));
        await pipe.Writer.CompleteAsync();
        Assert.Equal(200, await applying.WaitAsync(Patience));
        AssertExactly(replica, 200);
        AssertSameContents(primary, replica);
        AssertHealthy(replica);
    }

    [Fact]
    public async Task A_replica_cut_off_inside_a_record_keeps_the_whole_records_before_it_and_resumes_from_the_last_one()
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 30);
        var (primary, replica) = (pair.Primary, pair.Replica);
        Commit(primary, 31, 90);

        var stream = await ShipAsync(primary, 30);
        var records = RecordOffsets(stream);
        Assert.Equal(61, records.Count);
        // Most pages travel as diffs, rebuilt on the replica's own copies of their base pages.
        Assert.True(CountDiffs(stream) > 60, $"only {CountDiffs(stream)} diffs in the stream");
        // Cut in the middle of the 25th record (transaction 55).
        int cut = (records[24] + records[25]) / 2;
        var truncated = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, stream.AsMemory(0, cut)));
        Assert.Contains("truncated", truncated.Message);
        AssertExactly(replica, 54);

        // Resuming ships from where the replica stands; a stream that starts earlier is fine too (the overlap is skipped).
        Assert.Equal(90, await ApplyAsync(replica, await ShipAsync(primary, replica.LastCommittedTransactionId)));
        AssertExactly(replica, 90);
        Commit(primary, 91, 95);
        Assert.Equal(95, await ApplyAsync(replica, await ShipAsync(primary, 80)));
        AssertExactly(replica, 95);
        AssertSameContents(primary, replica);
    }

    public static TheoryData<string> BadStreams => new()
    {
        "a bit flipped in the first record's payload",
        "a bit flipped in the first record's header",
        "a bit flipped in the stream header",
        "truncated inside the first record",
        "truncated inside the stream header",
        "from another environment",
        "starting past the replica (a gap)",
    };

    [Theory]
    [MemberData(nameof(BadStreams))]
    public async Task A_stream_that_does_not_continue_the_replica_is_refused_with_nothing_of_it_applied(string bad)
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 25);
        var (primary, replica) = (pair.Primary, pair.Replica);
        Commit(primary, 26, 40);
        var stream = await ShipAsync(primary, 25);
        var records = RecordOffsets(stream);
        int firstRecord = records[0], firstRecordEnd = records[1];

        Exception refused;
        switch (bad)
        {
            case "a bit flipped in the first record's payload":
                refused = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, Flip(stream, firstRecordEnd - 100)));
                break;
            case "a bit flipped in the first record's header":
                refused = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, Flip(stream, firstRecord + 80)));
                break;
            case "a bit flipped in the stream header":
                refused = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, Flip(stream, 20)));
                break;
            case "truncated inside the first record":
                refused = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, stream.AsMemory(0, (firstRecord + firstRecordEnd) / 2)));
                break;
            case "truncated inside the stream header":
                refused = await Assert.ThrowsAsync<CorruptionException>(() => ApplyAsync(replica, stream.AsMemory(0, 30)));
                break;
            case "from another environment":
                using (var stranger = StorageEnvironment.Open(Options(new MemoryFileSystem())))
                {
                    Commit(stranger, 1, 40);
                    var foreign = await ShipAsync(stranger, 25);
                    refused = await Assert.ThrowsAsync<ReplicationException>(() => ApplyAsync(replica, foreign));
                    Assert.True(((ReplicationException)refused).RequiresFullBackup);
                    Assert.Contains("another environment", refused.Message);
                }
                break;
            default:
                refused = await Assert.ThrowsAsync<ReplicationException>(async () => await ApplyAsync(replica, await ShipAsync(primary, 30)));
                Assert.Contains("Ship from transaction 25", refused.Message);
                break;
        }

        Assert.False(string.IsNullOrWhiteSpace(refused.Message));
        AssertExactly(replica, 25);
        AssertHealthy(replica);
        // The refusal left the replica able to take the real stream.
        Assert.Equal(40, await ApplyAsync(replica, stream));
        AssertExactly(replica, 40);
    }

    [Fact]
    public async Task A_replica_refuses_local_writes_until_it_is_promoted()
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 10);
        var (primary, replica) = (pair.Primary, pair.Replica);
        Assert.True(replica.IsReplica);

        var refused = Assert.Throws<InvalidOperationException>(() => replica.BeginWrite());
        Assert.Contains("replica", refused.Message);
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await replica.BeginWriteAsync());
        await Assert.ThrowsAsync<InvalidOperationException>(() => primary.ApplyReplicationStreamAsync(PipeReader.Create(Stream.Null)));
        AssertExactly(replica, 10);
        AssertHealthy(replica);

        Commit(primary, 11, 30);
        await ApplyAsync(replica, await ShipAsync(primary, 10));
        replica.PromoteToPrimary();
        Assert.False(replica.IsReplica);
        Commit(replica, 31, 60);
        AssertExactly(replica, 60);
        AssertHealthy(replica);
        await Assert.ThrowsAsync<InvalidOperationException>(() => ApplyAsync(replica, ReadOnlyMemory<byte>.Empty));
    }

    [Fact]
    public async Task A_replica_reader_keeps_its_snapshot_while_the_stream_would_reuse_its_pages()
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 50);
        var (primary, replica) = (pair.Primary, pair.Replica);
        // The primary has no readers and checkpoints often, so it soon reuses the pages its commits free; the
        // stream is gathered piece by piece before each checkpoint recycles the journal.
        var stream = new List<byte>();
        for (long first = 51; first <= 250; first += 10)
        {
            Commit(primary, first, first + 9);
            var piece = await ShipAsync(primary, first - 1);
            stream.AddRange(stream.Count == 0 ? piece : piece[StreamHeaderSize..]);
            primary.Checkpoint();
        }

        var reader = replica.BeginRead();
        var before = Dump(reader);
        var applying = ApplyAsync(replica, stream.ToArray());
        // The replica applies what reuses no page the reader might see, then waits for the reader.
        await WaitUntil(() => replica.LastCommittedTransactionId > 50);
        await Task.Delay(200);
        Assert.False(applying.IsCompleted, "the stream overwrote pages a replica reader still held");
        AssertSameDump(before, Dump(reader));
        Assert.Equal(50, reader.SnapshotId);

        reader.Dispose();
        Assert.Equal(250, await applying.WaitAsync(Patience));
        AssertExactly(replica, 250);
        AssertHealthy(replica);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_replica_recovers_every_applied_transaction_after_a_crash_and_resumes(bool powerLoss)
    {
        using var pair = await PrimaryReplicaPair.CreateAsync(committedBeforeBackup: 20);
        var (primary, replica, fileSystem, replicaOptions) = (pair.Primary, pair.Replica, pair.FileSystem, pair.ReplicaOptions);
        Commit(primary, 21, 120);
        var stream = await ShipAsync(primary, 20);
        var records = RecordOffsets(stream);
        await ApplyAsync(replica, stream.AsMemory(0, records[60]));
        Assert.Equal(80, replica.LastCommittedTransactionId);

        replica.SimulateCrash();
        if (powerLoss) fileSystem.SimulatePowerLoss(new Random(42), tearWrites: true);
        else fileSystem.SimulateProcessCrash();
        // The primary lives on the same memory file system; it crashed too, and comes back with every commit.
        primary.SimulateCrash();
        using var recoveredPrimary = StorageEnvironment.Open(Options(fileSystem));
        AssertExactly(recoveredPrimary, 120);

        using var reopened = StorageEnvironment.OpenReplica(replicaOptions);
        Assert.True(reopened.IsReplica);
        AssertExactly(reopened, 80);
        AssertHealthy(reopened);
        Assert.Equal(120, await ApplyAsync(reopened, stream));
        AssertExactly(reopened, 120);
        AssertSameContents(recoveredPrimary, reopened);
    }

    [Fact]
    public void Opening_a_replica_where_no_backup_was_restored_is_refused()
    {
        var fileSystem = new MemoryFileSystem();
        var refused = Assert.Throws<StorageException>(() => StorageEnvironment.OpenReplica(ReplicaOptions(fileSystem)));
        Assert.Contains("restore a backup", refused.Message);
        Assert.Empty(fileSystem.ListFiles(ReplicaPath));
    }

    private static byte[] Flip(byte[] bytes, int offset)
    {
        var copy = (byte[])bytes.Clone();
        copy[offset] ^= 0x04;
        return copy;
    }
}
