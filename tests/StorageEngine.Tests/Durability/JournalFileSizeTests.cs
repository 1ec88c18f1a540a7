using StorageEngine.Platform;
using StorageEngine.Tests.Faults;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Journal files are sized to what the environment writes: a new environment starts with a 64 KiB file, each next
/// file is twice the last up to <see cref="StorageEnvironmentOptions.JournalFileSize"/>, and a clean close leaves a
/// single spare (64 KiB for a small environment). A durable commit of a megabyte or more extends its file rather than having zeros written first; a
/// crash or a full disk in such a write loses no acknowledged commit.
/// </summary>
public sealed class JournalFileSizeTests
{
    private const long MiB = 1 << 20;
    private const long First = Journal.JournalWriter.InitialFileSize;

    [Fact]
    public void An_environment_that_commits_little_takes_64_KiB_of_journal_and_keeps_that_after_a_clean_close()
    {
        Assert.Equal(64 * 1024, First);
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, journalFileSize: 64 * MiB, valuesInPlaceFrom: long.MaxValue);
        long last;
        using (var environment = StorageEnvironment.Open(options))
        {
            // Half the file: the checkpointer is asked for a spare.
            last = CommitUntilJournalHolds(environment, 1, First / 2) - 1;
            environment.PrepareJournal();
            var sizes = JournalFileLengths(fileSystem);
            Assert.Equal(First, sizes.Single(f => !f.Name.StartsWith("journal-free.", StringComparison.Ordinal)).Length);
            // With the spare, of the next size.
            Assert.True(sizes.Sum(f => f.Length) <= 3 * First, $"journal files: {Describe(sizes)}");
        }

        var left = JournalFileLengths(fileSystem);
        Assert.Equal([First], left.Select(f => f.Length));
        Assert.StartsWith("journal-free.", left[0].Name, StringComparison.Ordinal);

        // The next session starts in that spare, and everything is there.
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, last);
        // The spare goes into place when the new session starts, in the background after the open: listing the
        // files while it is renamed would open the old name and make an empty file of it.
        reopened.WaitForRecovery();
        Assert.Equal([First], JournalFileLengths(fileSystem).Select(f => f.Length));
    }

    [Fact]
    public void A_spare_file_is_made_only_once_the_current_file_is_half_written()
    {
        // A short session (a tool's, a test's) never writes a spare's zeros, and its close does not wait for them.
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, journalFileSize: 64 * MiB, valuesInPlaceFrom: long.MaxValue);
        using var environment = StorageEnvironment.Open(options);
        long next = CommitUntilJournalHolds(environment, 1, First * 3 / 8);
        // Asked for, the checkpointer thread makes it at once; give it time to.
        Thread.Sleep(300);
        Assert.DoesNotContain(fileSystem.FileNames, name => Path.GetFileName(name).StartsWith("journal-free.", StringComparison.Ordinal));

        next = CommitUntilJournalHolds(environment, next, First * 5 / 8);
        Assert.True(SpinWait.SpinUntil(() => fileSystem.FileNames.Any(name => Path.GetFileName(name).StartsWith("journal-free.", StringComparison.Ordinal)),
            TimeSpan.FromSeconds(10)), "no spare file was made past half of the first journal file");
        AssertExactly(environment, next - 1);
    }

    [Fact]
    public void A_large_environment_keeps_a_spare_of_a_thirty_second_of_its_data_file_and_the_next_open_starts_from_it()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, journalFileSize: 8 * MiB, valuesInPlaceFrom: long.MaxValue);
        using (var environment = StorageEnvironment.Open(options))
        {
            // 80 values of 1 MB: a data file of about 80 MB, whose thirty-second is between 2 and 4 MiB.
            for (int i = 0; i < 80; i++) PutValue(environment, "big", 1_000_000);
        }

        var left = JournalFileLengths(fileSystem);
        Assert.Equal([2 * MiB], left.Select(f => f.Length));

        using var reopened = StorageEnvironment.Open(options);
        PutValue(reopened, "small", 100);
        // The checkpointer thread prepares the next file in the background; on a loaded machine it may not have run
        // before 2 MiB of records are written, and the switch then makes a 1 MiB file of its own (as it should).
        // What is checked here is the size asked for, so the spare is prepared now.
        reopened.PrepareJournal();
        for (long i = 1; i < 600; i++) PutValue(reopened, "small", 100); // 600 records of 4 KiB: past 2 MiB
        reopened.PrepareJournal();
        var inUse = JournalFileLengths(fileSystem).Where(f => !f.Name.StartsWith("journal-free.", StringComparison.Ordinal)).ToList();
        // The session began in the 2 MiB spare and went on with twice that, not with 1 MiB files.
        Assert.Equal([2 * MiB, 4 * MiB], inUse.Select(f => f.Length));
    }

    [Fact]
    public void A_lazy_journal_is_full_size_without_preallocating_and_leaves_nothing_after_a_clean_close()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem, DurabilityMode.Lazy, journalFileSize: 4 * MiB);
        using (var environment = StorageEnvironment.Open(options))
        {
            Commit(environment, 1, 1500); // more than 4 MiB of records: two files at least
            var inUse = JournalFileLengths(fileSystem);
            Assert.True(inUse.Count >= 2, $"journal files: {Describe(inUse)}");
            Assert.All(inUse, f => Assert.Equal(4 * MiB, f.Length));
            Assert.DoesNotContain(inUse, f => f.Name.StartsWith("journal-free.", StringComparison.Ordinal));
            Assert.Equal(0, fileSystem.JournalBytesPreallocated);
        }

        Assert.Empty(JournalFileLengths(fileSystem));
        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 1500);
    }

    [Fact]
    public void Each_journal_file_is_twice_the_last_up_to_the_configured_size()
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, journalFileSize: 4 * MiB, valuesInPlaceFrom: long.MaxValue);
        using var environment = StorageEnvironment.Open(options);
        for (long number = 1; number <= 3000; number++)
        {
            Commit(environment, number);
            // What the checkpointer thread does after a switch, done at once so that every switch finds its spare.
            environment.PrepareJournal();
        }

        // No checkpoint ran (the threshold is infinite), so every file written is still there, in order.
        var inUse = JournalFileLengths(fileSystem).Where(f => !f.Name.StartsWith("journal-free.", StringComparison.Ordinal)).ToList();
        var doubling = new List<long>();
        for (long size = First; size < 4 * MiB; size *= 2) doubling.Add(size);
        doubling.AddRange([4 * MiB, 4 * MiB]);
        Assert.True(inUse.Count > doubling.Count, $"journal files: {Describe(inUse)}");
        Assert.Equal(doubling, inUse.Take(doubling.Count).Select(f => f.Length));
        Assert.All(inUse.Skip(doubling.Count), f => Assert.Equal(4 * MiB, f.Length));
        AssertExactly(environment, 3000);
    }

    [Fact]
    public void A_large_durable_commit_extends_its_file_and_small_commits_after_it_move_to_a_preallocated_one()
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem());
        var options = Options(fileSystem, journalFileSize: 64 * MiB, valuesInPlaceFrom: long.MaxValue);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 3);
        environment.PrepareJournal();
        fileSystem.ResetCounts();
        PutValue(environment, "big", 3_000_000);
        Assert.Equal(0, fileSystem.JournalBytesPreallocated);
        var afterBig = JournalFileLengths(fileSystem).Where(f => !f.Name.StartsWith("journal-free.", StringComparison.Ordinal)).ToList();
        // The record (3 MB of overflow pages plus a few tree pages and its header) ends the file: nothing was
        // preallocated past it, and the file is not the 2 MiB the next switch would have preallocated.
        long bigFile = afterBig[^1].Length;
        Assert.InRange(bigFile, 3_000_000, 3_000_000 + 64 * 1024);
        Assert.Equal(0, bigFile % 4096);

        // Small commits cannot go on writing past that end: they move to a preallocated file.
        for (long i = 0; i < 5; i++) PutValue(environment, "small", 100);
        var afterSmall = JournalFileLengths(fileSystem).Where(f => !f.Name.StartsWith("journal-free.", StringComparison.Ordinal)).ToList();
        Assert.Equal(bigFile, afterSmall[^2].Length);
        Assert.True(afterSmall[^1].Length >= First, $"journal files: {Describe(afterSmall)}");

        environment.SimulateCrash();
        fileSystem.LosePower(new Random(7), reorderWrites: true);
        using var reopened = StorageEnvironment.Open(options);
        Assert.Equal(9, reopened.LastCommittedTransactionId);
        AssertHealthy(reopened);
    }

    [Theory]
    [InlineData(FaultKind.Crash)]
    [InlineData(FaultKind.DiskFull)]
    [InlineData(FaultKind.ShortWrite)]
    public void A_fault_in_a_large_journal_write_loses_no_acknowledged_commit(FaultKind kind)
    {
        var fileSystem = new FaultyFileSystem(new MemoryFileSystem(), seed: (int)kind);
        var options = Options(fileSystem, journalFileSize: 64 * MiB, valuesInPlaceFrom: long.MaxValue);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 10);
        PutValue(environment, "big", 1_500_000);
        // The checkpointer thread's spare, prepared now, cannot take the fault meant for the commit.
        environment.PrepareJournal();
        // The next large record is the one that fails, partly written past the end of its file: at 5 MB it is
        // larger than that spare (4 MiB, the next size), which it takes and extends.
        var operation = kind == FaultKind.ShortWrite ? FileOperation.Write : FileOperation.Growth;
        fileSystem.Arm(new Fault(operation, 1, kind, Files: Fault.JournalFile));
        var failure = Assert.ThrowsAny<Exception>(() => PutValue(environment, "big", 5_000_000));
        Assert.True(fileSystem.HasFired);
        string what = $"{fileSystem.LastFault}; {failure}";
        environment.SimulateCrash();
        fileSystem.Clear();
        fileSystem.LosePower(new Random((int)kind), reorderWrites: true);

        using var reopened = StorageEnvironment.Open(options);
        Assert.True(11 == reopened.LastCommittedTransactionId, what);
        AssertHealthy(reopened);
        using var read = reopened.BeginRead();
        Assert.True(read.OpenTree("big")!.TryGet(1, out var value));
        Assert.Equal(1_500_000, value.Length);
    }

    /// <summary>Commits numbered transactions from <paramref name="first"/> until the journal holds <paramref name="bytes"/>; returns the next number.</summary>
    private static long CommitUntilJournalHolds(StorageEnvironment environment, long first, long bytes)
    {
        long next = first;
        while (environment.GetStatistics().JournalBytesWritten < bytes) Commit(environment, next++);
        return next;
    }

    private static void PutValue(StorageEnvironment environment, string tree, int length)
    {
        using var transaction = environment.BeginWrite();
        var target = transaction.CreateTree(tree, TreeOptions.Int64Keys);
        target.Put(target.Count + 1, new byte[length]);
        transaction.Commit();
    }

    private static List<(string Name, long Length)> JournalFileLengths(IFileSystem fileSystem) =>
        fileSystem.ListFiles("/db")
            .Where(name => name.StartsWith("journal", StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)
            .Select(name =>
            {
                using var file = fileSystem.Open("/db/" + name, StorageFileMode.Buffered);
                return (name, file.Length);
            })
            .ToList();

    private static string Describe(IEnumerable<(string Name, long Length)> files) =>
        string.Join(", ", files.Select(f => $"{f.Name} {f.Length}"));
}
