using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Group commit: a committed transaction frees the write lock before its journal write, the next writer builds
/// on it while readers still see only durable commits, and commits that wait together share one journal write.
/// </summary>
public sealed class GroupCommitTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task The_next_writer_builds_on_a_commit_waiting_for_the_journal_while_readers_see_only_durable_commits()
    {
        using var held = new JournalWriteHold();
        using var environment = StorageEnvironment.Open(Options(held.FileSystem));
        Put(environment, "a");
        var statsBefore = environment.GetStatistics();

        held.HoldNextJournalWrite();
        var first = Task.Run(() => Put(environment, "b"));
        Assert.True(held.Reached.Wait(Patience), "the first commit never reached its journal write");

        using (var reader = environment.BeginRead())
        {
            Assert.False(reader.OpenTree("t").ContainsKey("b"u8), "a reader saw a commit whose journal write has not finished");
            Assert.Equal(statsBefore.LastCommittedTransactionId, environment.LastCommittedTransactionId);
        }

        // Both writers get the lock at once and see the commit in flight; their commits queue behind it.
        var second = CommitOnAnotherThread(environment, expectedKeys: ["a", "b"], put: "c");
        var third = CommitOnAnotherThread(environment, expectedKeys: ["a", "b", "c"], put: "d");
        Assert.False(first.IsCompleted || second.IsCompleted || third.IsCompleted, "a commit returned before its journal write");

        held.Release();
        await Task.WhenAll(first, second, third).WaitAsync(Patience);

        var statsAfter = environment.GetStatistics();
        Assert.Equal(3, statsAfter.JournalRecords - statsBefore.JournalRecords);
        Assert.Equal(2, statsAfter.JournalWrites - statsBefore.JournalWrites);
        AssertKeys(environment, "a", "b", "c", "d");
    }

    [Fact]
    public async Task Every_commit_of_concurrent_writers_survives_a_power_loss()
    {
        const int Writers = 4;
        const int CommitsEach = 60;
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem);
        var environment = StorageEnvironment.Open(options);
        var writers = Enumerable.Range(0, Writers).Select(w => Task.Run(() =>
        {
            for (int i = 0; i < CommitsEach; i++)
            {
                using var transaction = environment.BeginWrite(Patience);
                var tree = transaction.CreateTree("t");
                tree.Put(KeyOf(w, i), ValueOf(w, i));
                // Every writer sees its own earlier commits, durable or not.
                if (i > 0) Assert.True(tree.ContainsKey(KeyOf(w, i - 1)));
                transaction.Commit();
            }
        })).ToArray();
        await Task.WhenAll(writers).WaitAsync(Patience);
        var stats = environment.GetStatistics();
        Assert.True(stats.JournalWrites <= stats.JournalRecords);

        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(new Random(7), tearWrites: true);
        using var reopened = StorageEnvironment.Open(options);
        using var reader = reopened.BeginRead();
        var t = reader.OpenTree("t");
        Assert.Equal(Writers * CommitsEach, t.Count);
        for (int w = 0; w < Writers; w++)
        {
            for (int i = 0; i < CommitsEach; i++)
            {
                Assert.True(t.TryGet(KeyOf(w, i), out var value), $"writer {w}'s commit {i} was lost");
                Assert.Equal(ValueOf(w, i), value.ToArray());
            }
        }
        reader.Dispose();
        Assert.True(reopened.Check().IsHealthy);
    }

    [Fact]
    public async Task A_failed_journal_write_fails_its_group_and_the_commits_queued_behind_it_and_recovery_keeps_only_acknowledged_commits()
    {
        using var held = new JournalWriteHold();
        var options = Options(held.FileSystem);
        var environment = StorageEnvironment.Open(options);
        Put(environment, "a");

        held.HoldNextJournalWrite();
        var first = Task.Run(() => Put(environment, "b"));
        Assert.True(held.Reached.Wait(Patience));
        var second = CommitOnAnotherThread(environment, expectedKeys: ["a", "b"], put: "c");
        held.FileSystem.CrashAfter(0); // the held write, and every change after it, fails
        held.Release();

        await Assert.ThrowsAsync<StorageException>(() => first.WaitAsync(Patience));
        var secondError = await Assert.ThrowsAsync<StorageException>(() => second.WaitAsync(Patience));
        Assert.Contains("Reopen", secondError.Message);

        // Reads go on from the last acknowledged commit; writes are refused until the environment is reopened.
        AssertKeys(environment, "a");
        var refused = Assert.Throws<StorageException>(() => environment.BeginWrite().Dispose());
        Assert.Contains("Reopen", refused.Message);

        environment.SimulateCrash();
        held.FileSystem.Disarm();
        held.FileSystem.Inner.SimulatePowerLoss(new Random(3), tearWrites: true);
        using var reopened = StorageEnvironment.Open(Options(held.FileSystem.Inner));
        AssertKeys(reopened, "a");
        Put(reopened, "e");
        AssertKeys(reopened, "a", "e");
    }

    private static Task CommitOnAnotherThread(StorageEnvironment environment, string[] expectedKeys, string put)
    {
        // The lock is taken here, so that the caller knows this commit queued before it goes on.
        var transaction = environment.BeginWrite(Patience);
        var tree = transaction.CreateTree("t");
        foreach (var key in expectedKeys) Assert.True(tree.ContainsKey(System.Text.Encoding.UTF8.GetBytes(key)), $"the writer does not see {key}");
        tree.Put(System.Text.Encoding.UTF8.GetBytes(put), "v"u8);
        var committing = Task.Run(() =>
        {
            using (transaction) transaction.Commit();
        });
        // Wait for the in-memory commit: the write lock is free again once it is queued.
        using (var probe = environment.BeginWrite(Patience)) { }
        return committing;
    }

    private static void Put(StorageEnvironment environment, string key)
    {
        using var transaction = environment.BeginWrite(Patience);
        transaction.CreateTree("t").Put(System.Text.Encoding.UTF8.GetBytes(key), "v"u8);
        transaction.Commit();
    }

    private static void AssertKeys(StorageEnvironment environment, params string[] keys)
    {
        using var reader = environment.BeginRead();
        var tree = reader.OpenTree("t");
        Assert.Equal(keys.Length, tree.Count);
        foreach (var key in keys) Assert.True(tree.ContainsKey(System.Text.Encoding.UTF8.GetBytes(key)), $"missing {key}");
    }

    private static byte[] KeyOf(int writer, int i) => BitConverter.GetBytes(writer * 1_000_000L + i);

    private static byte[] ValueOf(int writer, int i) => Enumerable.Range(0, 10 + (i * 37 + writer) % 300).Select(b => (byte)(b + writer + i)).ToArray();
}
