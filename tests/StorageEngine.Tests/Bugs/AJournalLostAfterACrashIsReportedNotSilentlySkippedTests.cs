using StorageEngine.CrashChild;
using StorageEngine.Tests.Crash;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// After a crash the commits since the last checkpoint live only in the journal. With the journal files deleted or
/// emptied or overwritten with zeros, an open used to log "Opened ... at transaction 0" and go on without them. The data file's header says
/// that the last session did not close cleanly and which journal file its commits start in: the open now refuses
/// with a <see cref="CorruptionException"/> naming that file, unless
/// <see cref="StorageEnvironmentOptions.AcceptJournalLoss"/> says to open as of the last checkpoint.
/// </summary>
public sealed class AJournalLostAfterACrashIsReportedNotSilentlySkippedTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    public enum JournalDamage
    {
        Deleted,
        TruncatedToZero,
        OverwrittenWithZeros,
    }

    [Theory]
    [InlineData(JournalDamage.Deleted)]
    [InlineData(JournalDamage.TruncatedToZero)]
    [InlineData(JournalDamage.OverwrittenWithZeros)]
    public void A_process_killed_after_300_Safe_commits_whose_journal_is_then_lost_is_refused_and_opens_as_of_its_checkpoint_only_when_told_to(JournalDamage damage)
    {
        using var directory = new TempDirectory("lost-journal");
        using (var child = CrashChildProcess.Start([directory.Path]))
        {
            if (!child.WaitForCommits(300, Patience)) throw child.NotReached("commit 300 times", Patience);
            child.Kill();
        }

        var journals = Directory.GetFiles(directory.Path, "journal.*");
        Assert.NotEmpty(journals);
        foreach (string journal in journals)
        {
            if (damage == JournalDamage.Deleted) File.Delete(journal);
            else if (damage == JournalDamage.TruncatedToZero) File.WriteAllBytes(journal, []);
            else File.WriteAllBytes(journal, new byte[new FileInfo(journal).Length]);
        }

        var refused = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(directory.Path));
        // A missing journal file cannot be named as the damaged file: the data file, whose header requires it, is.
        if (damage == JournalDamage.Deleted) Assert.Equal(directory.File("data.sedb"), refused.FilePath);
        else Assert.StartsWith(Path.Combine(directory.Path, "journal."), refused.FilePath);
        Assert.Matches(damage switch
        {
            JournalDamage.Deleted => @"journal file '.*journal\.\d{10}' is missing",
            JournalDamage.TruncatedToZero => @"journal file '.*journal\.\d{10}' is empty",
            _ => @"journal file '.*journal\.\d{10}' holds no record of the last session",
        }, refused.Message);
        Assert.Contains("did not close cleanly", refused.Message);
        Assert.Contains(nameof(StorageEnvironmentOptions.AcceptJournalLoss), refused.Message);
        // Refusing changed nothing: it refuses again, read-only too.
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(directory.Path));
        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, ReadOnly = true }));

        using var accepted = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, AcceptJournalLoss = true });
        long last;
        using (var read = accepted.BeginRead()) last = CrashWorkload.LastTransaction(read);
        Assert.True(last < 300, $"the data file alone cannot hold the commits after its checkpoint, yet transaction {last} is there");
        Assert.Equal(last, accepted.LastCommittedTransactionId);
        Assert.True(accepted.Check().IsHealthy);
        using (var write = accepted.BeginWrite())
        {
            CrashWorkload.Apply(last + 1, write.CreateTree(CrashWorkload.TreeName));
            write.Commit();
        }
        accepted.Dispose();

        using var reopened = StorageEnvironment.Open(directory.Path);
        using (var read = reopened.BeginRead()) Assert.Equal(last + 1, CrashWorkload.LastTransaction(read));
        Assert.True(reopened.Check().IsHealthy);
    }

    [Fact]
    public void An_environment_that_crashed_with_its_journal_intact_still_recovers_every_commit()
    {
        using var directory = new TempDirectory("intact-journal");
        long acknowledged;
        using (var child = CrashChildProcess.Start([directory.Path]))
        {
            if (!child.WaitForCommits(300, Patience)) throw child.NotReached("commit 300 times", Patience);
            child.Kill();
            acknowledged = child.LastCommitted!.Value;
        }

        using var environment = StorageEnvironment.Open(directory.Path);
        using var read = environment.BeginRead();
        Assert.True(CrashWorkload.LastTransaction(read) >= acknowledged);
    }

    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void Crashes_before_the_first_commit_and_right_after_a_recovery_reopen_without_complaint(DurabilityMode durability)
    {
        using var directory = new TempDirectory("crash-before-commit");
        var options = new StorageEnvironmentOptions { Path = directory.Path, Durability = durability };
        StorageEnvironment.Open(options).SimulateCrash();
        StorageEnvironment.Open(options).SimulateCrash();
        using (var first = StorageEnvironment.Open(options))
        {
            using (var write = first.BeginWrite())
            {
                CrashWorkload.Apply(1, write.CreateTree(CrashWorkload.TreeName));
                write.Commit();
            }
            first.SimulateCrash();
        }
        // Recovered (a replay whose session starts in the background), then crashed again at once.
        StorageEnvironment.Open(options).SimulateCrash();
        using var reopened = StorageEnvironment.Open(options);
        using var read = reopened.BeginRead();
        Assert.Equal(1, CrashWorkload.LastTransaction(read));
    }
}
