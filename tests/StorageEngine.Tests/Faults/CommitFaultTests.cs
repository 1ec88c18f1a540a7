using StorageEngine.Platform;
using StorageEngine.Tests.Durability;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// A commit whose journal write, journal sync, data-file write or file growth fails: the commit throws a
/// StorageException carrying the I/O error, readers keep the last acknowledged snapshot, the environment either
/// keeps taking writes or refuses them until reopened, and after reopening (also after a power loss) every
/// acknowledged commit is there and the failed one is whole or absent.
/// </summary>
public sealed class CommitFaultTests
{
    public static TheoryData<FaultKind> WriteFaults => new() { FaultKind.IOError, FaultKind.ShortWrite, FaultKind.LandedThenFailed, FaultKind.DiskFull };

    [Theory]
    [MemberData(nameof(WriteFaults))]
    public void A_failed_journal_write_throws_StorageException_and_the_environment_must_be_reopened(FaultKind kind)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 20);
        using var reader = environment.BeginRead();

        fileSystem.Arm(new Fault(FileOperation.Write, 1, kind, Files: Fault.JournalFile));
        var failure = Assert.Throws<StorageException>(() => Commit(environment, 21));
        var io = Assert.IsAssignableFrom<IOException>(failure.InnerException);
        Assert.Equal(kind == FaultKind.DiskFull ? FaultyFileSystem.ENOSPC : FaultyFileSystem.EIO, io.HResult);
        fileSystem.Clear();

        // Readers, old and new, see the last acknowledged commit.
        AssertExactly(environment, 20);
        Assert.Equal(20, BitConverter.ToInt64(reader.OpenTree(MetaTree).Get("last"u8)));
        var refused = Assert.Throws<StorageException>(() => environment.BeginWrite());
        Assert.Contains("reopen", refused.Message, StringComparison.OrdinalIgnoreCase);
        reader.Dispose();
        environment.Dispose();

        // Bytes that landed despite the error make a whole record: replayed, or dropped as a torn tail.
        environment = StorageEnvironment.Open(options);
        long recovered = environment.LastCommittedTransactionId;
        // A short write of a one-block record can land every byte its checksum covers (the rest is padding).
        if (kind == FaultKind.ShortWrite) Assert.InRange(recovered, 20, 21);
        else Assert.Equal(kind == FaultKind.LandedThenFailed ? 21 : 20, recovered);
        AssertExactly(environment, recovered);
        Commit(environment, recovered + 1, recovered + 10);
        environment.SimulateCrash();
        fileSystem.LosePower(new Random((int)kind));
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, recovered + 10);
        AssertHealthy(reopened);
    }

    [Fact]
    public void A_journal_record_that_landed_despite_an_error_is_never_replayed_over_later_acknowledged_commits()
    {
        // O_DSYNC can report EIO for a write whose bytes reached the file. If the writer then put the next
        // record elsewhere (a new journal file), recovery would replay the stale record and stop short of the
        // acknowledged ones after it.
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        long acknowledged = 0;
        for (int round = 0; round < 3; round++)
        {
            var environment = StorageEnvironment.Open(options);
            acknowledged = environment.LastCommittedTransactionId;
            Commit(environment, acknowledged + 1, acknowledged + 5);
            acknowledged += 5;
            fileSystem.Arm(new Fault(FileOperation.Write, 1, FaultKind.LandedThenFailed, Files: Fault.JournalFile));
            Assert.Throws<StorageException>(() => Commit(environment, acknowledged + 1));
            fileSystem.Clear();
            try
            {
                // A big commit that would need the next journal file, if the environment still took writes.
                using var transaction = environment.BeginWrite();
                transaction.CreateTree("big").Put(1, new byte[900_000]);
                transaction.Commit();
                Assert.Fail("the environment took a write after its journal failed");
            }
            catch (StorageException)
            {
            }
            environment.SimulateCrash();
            fileSystem.Memory.SimulateProcessCrash();
            fileSystem.Revive();
            using var reopened = StorageEnvironment.Open(options);
            Assert.Equal(acknowledged + 1, reopened.LastCommittedTransactionId);
            AssertExactly(reopened, acknowledged + 1);
            acknowledged++;
        }
    }

    [Theory]
    [InlineData(FaultKind.IOError)]
    [InlineData(FaultKind.ShortWrite)]
    [InlineData(FaultKind.DiskFull)]
    public void A_failed_data_file_write_of_committed_pages_is_recovered_whole_on_reopen(FaultKind kind)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 12);

        // A commit writes only its journal record; its pages reach the data file with the next checkpoint.
        fileSystem.Arm(new Fault(FileOperation.Write, 1, kind, Files: Fault.DataFile));
        Commit(environment, 13);
        var failure = Assert.ThrowsAny<Exception>(() => environment.Checkpoint());
        Assert.True(failure is IOException or StorageException && failure is not CorruptionException, $"the checkpoint threw {failure}");
        Assert.True(fileSystem.HasFired);
        fileSystem.Clear();
        AssertExactly(environment, 13);
        Assert.Contains("reopen", Assert.Throws<StorageException>(() => environment.BeginWrite()).Message, StringComparison.OrdinalIgnoreCase);

        // The record is durable: recovery completes the commit, even after the power goes.
        environment.SimulateCrash();
        fileSystem.LosePower(new Random(3), reorderWrites: true, scatterTears: true);
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 13);
        AssertHealthy(reopened);
    }

    [Fact]
    public void A_failed_journal_sync_leaves_the_commit_whole_or_absent_after_a_crash_or_power_loss()
    {
        // Where O_DIRECT is refused the journal syncs after each record; a failed sync fails the commit, whose
        // record may still sit whole in the page cache.
        foreach (bool powerLoss in new[] { false, true })
        {
            var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), bufferedJournal: true);
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            Commit(environment, 1, 15);
            fileSystem.Arm(new Fault(FileOperation.Sync, 1, FaultKind.IOError, Files: Fault.JournalFile));
            Assert.Throws<StorageException>(() => Commit(environment, 16));
            fileSystem.Clear();
            AssertExactly(environment, 15);
            environment.SimulateCrash();
            if (powerLoss) fileSystem.LosePower(new Random(16));
            else fileSystem.Memory.SimulateProcessCrash();

            using var reopened = StorageEnvironment.Open(options);
            long recovered = reopened.LastCommittedTransactionId;
            // After a power loss the unsynced record survives or not, but never in part.
            if (powerLoss) Assert.InRange(recovered, 15, 16);
            else Assert.Equal(16, recovered);
            AssertExactly(reopened, recovered);
            AssertHealthy(reopened);
        }
    }

    [Fact]
    public void While_the_disk_is_full_commits_that_grow_the_data_file_fail_and_others_still_work()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 10);

        fileSystem.Arm(new Fault(FileOperation.Growth, 1, FaultKind.DiskFull, Sticky: true, Files: Fault.DataFile));
        for (int attempt = 0; attempt < 3; attempt++)
        {
            var e = Assert.ThrowsAny<Exception>(() => PutBigValue(environment));
            Assert.True(e is StorageException or IOException, $"a full disk surfaced as {e}");
            Assert.Equal(FaultyFileSystem.ENOSPC, (e as IOException ?? e.InnerException as IOException)?.HResult);
        }
        // The refused commits changed nothing: small commits fit in the file and go on.
        Commit(environment, 11, 20);
        AssertExactly(environment, 20);

        fileSystem.Clear();
        PutBigValue(environment);
        environment.Dispose();
        using var reopened = StorageEnvironment.Open(options);
        Assert.Equal(21, reopened.LastCommittedTransactionId);
        using (var reader = reopened.BeginRead()) Assert.Equal(3_000_000, reader.OpenTree("big").TryGet(1L, out var big) ? big.Length : -1);
        AssertHealthy(reopened);
    }

    [Fact]
    public void A_full_disk_while_growing_the_data_file_surfaces_as_StorageException()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 3);
        fileSystem.Arm(new Fault(FileOperation.Growth, 1, FaultKind.DiskFull, Sticky: true, Files: Fault.DataFile));
        var e = Assert.Throws<StorageException>(() => PutBigValue(environment));
        Assert.Equal(FaultyFileSystem.ENOSPC, Assert.IsAssignableFrom<IOException>(e.InnerException).HResult);
    }

    [Fact]
    public void A_full_disk_while_moving_to_the_next_journal_file_fails_the_commit_and_reopening_recovers_everything()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        // The value goes through the journal, not straight into the data file.
        var options = Options(fileSystem, valuesInPlaceFrom: long.MaxValue);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 10);

        // The journal files are 1 MiB: a 3 MB value needs a file of its own, which it grows by writing, on a full disk.
        fileSystem.Arm(new Fault(FileOperation.Growth, 1, FaultKind.DiskFull, Sticky: true, Files: Fault.JournalFile));
        var e = Assert.Throws<StorageException>(() => PutBigValue(environment));
        Assert.Equal(FaultyFileSystem.ENOSPC, Assert.IsAssignableFrom<IOException>(e.InnerException).HResult);
        AssertExactly(environment, 10);
        environment.Dispose();

        // Still full: the open replays the journal, retires it, and the new session takes the retired file for
        // its first journal file, so small commits go on without growing anything.
        using (var full = StorageEnvironment.Open(options))
        {
            AssertExactly(full, 10);
            Commit(full, 11);
            AssertExactly(full, 11);
        }
        fileSystem.Clear();
        using (var freed = StorageEnvironment.Open(options)) AssertExactly(freed, 11);
        environment = StorageEnvironment.Open(options);
        Commit(environment, 12, 15);
        PutBigValue(environment);
        environment.SimulateCrash();
        fileSystem.LosePower(new Random(5), reorderWrites: true);
        using var reopened = StorageEnvironment.Open(options);
        Assert.Equal(16, reopened.LastCommittedTransactionId);
        AssertHealthy(reopened);
    }

    private static void PutBigValue(StorageEnvironment environment)
    {
        using var transaction = environment.BeginWrite();
        transaction.CreateTree("big", TreeOptions.Int64Keys).Put(1, new byte[3_000_000]);
        transaction.Commit();
    }
}
