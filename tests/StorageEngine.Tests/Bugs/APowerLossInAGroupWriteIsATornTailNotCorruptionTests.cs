using StorageEngine.Platform;
using StorageEngine.Tests.Durability;
using StorageEngine.Tests.Faults;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Commits in flight together are journaled with one write (a group), and none of them is acknowledged before the
/// whole write is on the device. A power loss during that write may leave any of its blocks: a later record of the
/// group intact behind a torn earlier one. Recovery read that as a damaged record followed by a good one and refused
/// to open with a <see cref="CorruptionException"/>, though nothing acknowledged was damaged. Each record now says
/// how many records came before it in its write, and a damaged record followed only by intact records of its own
/// write ends the journal, as a torn single record does. Damage followed by a record of a later write is still
/// corruption.
/// </summary>
public sealed class APowerLossInAGroupWriteIsATornTailNotCorruptionTests
{
    private static readonly int GroupIndexOffset = (int)System.Runtime.InteropServices.Marshal.OffsetOf<Journal.JournalRecordHeader>(nameof(Journal.JournalRecordHeader.GroupIndex));

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task A_group_write_torn_before_its_last_record_ends_the_journal_before_the_group(int seed)
    {
        var random = new Random(seed);
        var (fileSystem, options, journal, bytes, writes) = await CommitGroupsThenLosePower();
        var lastWrite = writes[^1];
        // Any of the group's records but its last, anywhere its checksum covers, header included.
        var damaged = lastWrite[random.Next(lastWrite.Count - 1)];
        JournalFiles.FlipCoveredBits(bytes, damaged, random.Next(1, 4), random);
        JournalFiles.Write(fileSystem, journal, bytes);

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, damaged.TransactionId - 1);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task A_crash_in_a_group_write_that_lands_any_of_its_sectors_keeps_every_acknowledged_commit_and_reports_no_corruption()
    {
        // Each seed lands a different part of the write (none, a prefix, or any scattering of its sectors).
        for (int seed = 1; seed <= 40; seed++)
        {
            var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), seed: seed);
            var options = Options(fileSystem);
            var environment = StorageEnvironment.Open(options);
            Commit(environment, 1, 5);
            // The second journal write from here: in a batch of commits in flight, the first write takes one commit
            // and the second those that queued meanwhile (a batch that went in one write is followed by another).
            fileSystem.Arm(new Fault(FileOperation.Write, 2, FaultKind.Crash, Files: Fault.JournalFile));
            long acknowledged = 5, next = 6;
            bool failed = false;
            for (int batch = 0; batch < 10 && !failed; batch++)
            {
                var inFlight = new List<(long Number, Task Commit)>();
                try
                {
                    for (int i = 0; i < 12; i++, next++) inFlight.Add((next, CommitAsync(environment, next).AsTask()));
                }
                catch (StorageException)
                {
                    failed = true;
                }
                foreach (var (number, commit) in inFlight)
                {
                    try
                    {
                        await commit;
                        if (!failed) acknowledged = number;
                    }
                    catch (StorageException)
                    {
                        failed = true;
                    }
                }
            }
            Assert.True(fileSystem.HasFired, $"seed {seed}: no second journal write in ten batches");
            environment.SimulateCrash();
            fileSystem.LosePower(new Random(seed), reorderWrites: true, scatterTears: true);

            using var reopened = StorageEnvironment.Open(options);
            long recovered = reopened.LastCommittedTransactionId;
            Assert.True(recovered >= acknowledged, $"seed {seed}: acknowledged {acknowledged}, recovered {recovered}");
            AssertExactly(reopened, recovered);
            AssertHealthy(reopened);
        }
    }

    [Fact]
    public async Task Damage_in_an_earlier_write_followed_by_a_later_write_is_still_corruption()
    {
        var (fileSystem, options, journal, bytes, writes) = await CommitGroupsThenLosePower();
        var damaged = writes[^2][0];
        JournalFiles.FlipCoveredBits(bytes, damaged, 2, new Random(7));
        JournalFiles.Write(fileSystem, journal, bytes);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.Equal(Path.GetFileName(journal), Path.GetFileName(error.FilePath));
        Assert.Equal(damaged.Offset, error.Offset);
    }

    /// <summary>
    /// Commits five transactions one at a time, then keeps many in flight until the current journal file holds two
    /// writes or more and ends with one of several records; crashes and loses power. Returns the current file's bytes and its records by write.
    /// </summary>
    private static async Task<(MemoryFileSystem FileSystem, StorageEnvironmentOptions Options, string Journal, byte[] Bytes,
        List<List<(long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment)>> Writes)> CommitGroupsThenLosePower()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 5);
        long next = 6;
        for (int attempt = 0; attempt < 20; attempt++)
        {
            var inFlight = new List<Task>();
            for (int i = 0; i < 12; i++) inFlight.Add(CommitAsync(environment, next++).AsTask());
            await Task.WhenAll(inFlight);
            var (journal, bytes, writes) = ReadWrites(fileSystem);
            if (writes.Count < 2 || writes[^1].Count < 2) continue;
            environment.SimulateCrash();
            fileSystem.SimulatePowerLoss();
            (journal, bytes, writes) = ReadWrites(fileSystem);
            Assert.Equal(next - 1, writes[^1][^1].TransactionId);
            return (fileSystem, options, journal, bytes, writes);
        }
        throw new InvalidOperationException("No journal file of two writes or more, the last of several records, ended the journal in 20 tries of 12 commits in flight.");
    }

    private static (string Journal, byte[] Bytes, List<List<(long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment)>> Writes) ReadWrites(
        MemoryFileSystem fileSystem)
    {
        string journal = JournalFiles.Current(fileSystem, "/db");
        var bytes = JournalFiles.Read(fileSystem, journal);
        var writes = new List<List<(long Offset, long TransactionId, long TotalLength, int HeaderLength, int Alignment)>>();
        foreach (var record in JournalFiles.Records(bytes))
        {
            if (BitConverter.ToInt32(bytes, (int)record.Offset + GroupIndexOffset) == 0 || writes.Count == 0) writes.Add([]);
            writes[^1].Add(record);
        }
        return (journal, bytes, writes);
    }
}
