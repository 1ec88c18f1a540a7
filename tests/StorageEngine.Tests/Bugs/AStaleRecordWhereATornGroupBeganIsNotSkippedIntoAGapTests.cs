using StorageEngine.Platform;
using StorageEngine.Tests.Durability;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Recovery starts in the journal file that holds the checkpointed transaction, past the records the checkpoint
/// already holds. It skipped every older record it met there before the first it applied, so where a reused file
/// still held an older record of the session at the place of a torn group write's first record (the write did not
/// land it), recovery skipped that stale record too and met the group's next member, intact: "journal record of
/// transaction 177 where transaction 176 was expected (a gap in the journal)", a false corruption report for a torn
/// tail (found by <see cref="Faults.GroupCommitCrashSweepTests"/> with background checkpoints, in one CI run). Only
/// the checkpoint's own records, consecutive from the file's first, are skipped now; the stale one ends the file's
/// data, and the group's intact members behind it are the torn tail they are.
/// </summary>
public sealed class AStaleRecordWhereATornGroupBeganIsNotSkippedIntoAGapTests
{
    [Fact]
    public void A_group_whose_first_record_left_an_older_record_in_place_ends_the_journal_at_the_checkpoint()
    {
        // 9, 10 and 11 made one group, as commits in flight together are written: 10 and 11 say one and two
        // records came before them in their write.
        var options = CommitThenPutAnOlderRecordWhereNineWas(regroup: true);

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 8);
        AssertHealthy(reopened);
    }

    [Fact]
    public void The_same_older_record_before_a_record_of_a_later_write_is_still_corruption()
    {
        // 9, 10 and 11 each came in a write of their own: 9 acknowledged before 10 was written, so its loss is not a tear.
        var options = CommitThenPutAnOlderRecordWhereNineWas(regroup: false);

        var error = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(options));
        Assert.StartsWith("journal.", Path.GetFileName(error.FilePath));
    }

    /// <summary>
    /// Commits 1 to 8, checkpoints, commits 9 to 11 one write each, crashes; then, where 9's record was, copies an
    /// older record of the session as long as it, as a reused file holds one. Returns the options to reopen with.
    /// </summary>
    private static StorageEnvironmentOptions CommitThenPutAnOlderRecordWhereNineWas(bool regroup)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 8);
        environment.Checkpoint();
        Commit(environment, 9, 11);
        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss();

        string journal = JournalFiles.Current(fileSystem, "/db");
        var bytes = JournalFiles.Read(fileSystem, journal);
        var records = JournalFiles.Records(bytes);
        var latest = records.Where(r => r.TransactionId >= 9).ToList();
        Assert.Equal([9L, 10L, 11L], latest.Select(r => r.TransactionId));
        Assert.Contains(records, r => r.TransactionId == 8);
        if (regroup)
        {
            for (int i = 1; i < latest.Count; i++) JournalFiles.Regroup(bytes, latest[i], i);
        }
        var stale = records.FirstOrDefault(r => r.TransactionId < 8 && r.TotalLength == latest[0].TotalLength);
        Assert.True(stale.TotalLength > 0, "no older record as long as transaction 9's: the test checks nothing");
        Array.Copy(bytes, stale.Offset, bytes, latest[0].Offset, stale.TotalLength);
        JournalFiles.Write(fileSystem, journal, bytes);
        return options;
    }
}
