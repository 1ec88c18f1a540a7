using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// <see cref="WriteTransaction.CommitAsync"/>: the transaction ends (the write lock is free) when the call returns,
/// the next writer builds on it, readers see it only once its task has completed, the task completes only once the
/// commit is durable, commits complete in order, and a failed journal write faults every task it leaves unsure.
/// </summary>
public sealed class AsyncCommitTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task An_awaited_commit_is_visible_to_readers_and_survives_a_power_loss()
    {
        var fileSystem = new MemoryFileSystem();
        var environment = StorageEnvironment.Open(Options(fileSystem));
        await CommitAsync(environment, 1).AsTask().WaitAsync(Patience);
        AssertExactly(environment, 1);

        environment.SimulateCrash();
        fileSystem.SimulatePowerLoss(new Random(5), tearWrites: true);
        using var reopened = StorageEnvironment.Open(Options(fileSystem));
        AssertExactly(reopened, 1);
    }

    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    [InlineData(DurabilityMode.InMemory)]
    public async Task A_writer_that_begins_its_next_transaction_before_awaiting_commits_every_one_in_order(DurabilityMode durability)
    {
        const int Transactions = 300;
        const int InFlight = 8;
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem, durability));
        var waiting = new Queue<(long Number, Task Durable)>();
        long acknowledged = 0;
        for (long number = 1; number <= Transactions; number++)
        {
            // Apply asserts that each transaction gets the next id and finds the key its predecessor put.
            waiting.Enqueue((number, CommitAsync(environment, number).AsTask()));
            while (waiting.Count >= InFlight || (number == Transactions && waiting.Count > 0))
            {
                var (done, durable) = waiting.Dequeue();
                await durable.WaitAsync(Patience);
                Assert.True(environment.LastCommittedTransactionId >= done, $"commit {done} completed before it was published");
                acknowledged = done;
            }
        }

        Assert.Equal(Transactions, acknowledged);
        AssertExactly(environment, Transactions);
        AssertHealthy(environment);
    }

    [Fact]
    public async Task Readers_see_an_async_commit_only_once_its_journal_write_has_ended_while_the_next_writer_builds_on_it_at_once()
    {
        using var held = new JournalWriteHold();
        using var environment = StorageEnvironment.Open(Options(held.FileSystem));
        Commit(environment, 1);
        var statsBefore = environment.GetStatistics();

        held.HoldNextJournalWrite();
        var second = CommitAsync(environment, 2).AsTask();
        Assert.True(held.Reached.Wait(Patience), "the asynchronous commit never reached its journal write");
        Assert.False(second.IsCompleted, "the task completed before the journal write ended");
        Assert.Equal(1, environment.LastCommittedTransactionId);
        AssertExactly(environment, 1);

        // The write lock is already free: the next transactions start from commit 2 (Apply checks their ids and keys).
        var later = new[] { CommitAsync(environment, 3).AsTask(), CommitAsync(environment, 4).AsTask(), CommitAsync(environment, 5).AsTask() };
        Assert.DoesNotContain(later, task => task.IsCompleted);

        held.Release();
        await Task.WhenAll(later.Prepend(second)).WaitAsync(Patience);
        AssertExactly(environment, 5);
        // Commits 3 to 5 queued while 2 was being written, and went out together in the next journal write.
        var stats = environment.GetStatistics();
        Assert.Equal(4, stats.JournalRecords - statsBefore.JournalRecords);
        Assert.Equal(2, stats.JournalWrites - statsBefore.JournalWrites);
    }

    [Fact]
    public async Task A_failed_journal_write_faults_the_task_of_every_commit_it_leaves_unsure_and_recovery_keeps_the_acknowledged_ones()
    {
        using var held = new JournalWriteHold();
        var environment = StorageEnvironment.Open(Options(held.FileSystem));
        await CommitAsync(environment, 1).AsTask().WaitAsync(Patience);

        held.HoldNextJournalWrite();
        var second = CommitAsync(environment, 2).AsTask();
        Assert.True(held.Reached.Wait(Patience));
        var third = CommitAsync(environment, 3).AsTask();
        held.FileSystem.CrashAfter(0); // the held write, and every change after it, fails
        held.Release();

        var error = await Assert.ThrowsAsync<StorageException>(() => second.WaitAsync(Patience));
        Assert.Contains("Reopen", error.Message);
        await Assert.ThrowsAsync<StorageException>(() => third.WaitAsync(Patience));
        AssertExactly(environment, 1);
        Assert.Contains("Reopen", Assert.Throws<StorageException>(() => environment.BeginWrite().Dispose()).Message);

        environment.SimulateCrash();
        held.FileSystem.Disarm();
        held.FileSystem.Inner.SimulatePowerLoss(new Random(3), tearWrites: true);
        using var reopened = StorageEnvironment.Open(Options(held.FileSystem.Inner));
        AssertExactly(reopened, 1);
        Commit(reopened, 2);
        AssertExactly(reopened, 2);
    }

    [Theory]
    [InlineData(11)]
    [InlineData(23)]
    [InlineData(37)]
    public async Task A_power_loss_amid_pipelined_commits_keeps_every_acknowledged_commit_and_nothing_partial(int seed)
    {
        var random = new Random(seed);
        var fileSystem = new CrashingFileSystem(new MemoryFileSystem());
        var environment = StorageEnvironment.Open(Options(fileSystem));
        // From here on the file system stops taking changes after a random number of them: writes fail, commits fault.
        fileSystem.CrashAfter(random.Next(3, 100));
        var waiting = new Queue<(long Number, Task Durable)>();
        long acknowledged = 0;
        long committed = 0;
        for (long number = 1; number <= 300; number++)
        {
            try
            {
                waiting.Enqueue((number, CommitAsync(environment, number).AsTask()));
                committed = number;
            }
            catch (StorageException)
            {
                break; // the environment refuses writes once a commit has failed
            }
            while (waiting.Count >= 1 + random.Next(8)) acknowledged = await Acknowledge(waiting.Dequeue(), acknowledged);
        }
        while (waiting.Count > 0) acknowledged = await Acknowledge(waiting.Dequeue(), acknowledged);
        Assert.True(fileSystem.HasCrashed, "the file system never crashed, so nothing was tested");

        environment.SimulateCrash();
        fileSystem.Disarm();
        fileSystem.Inner.SimulatePowerLoss(random, tearWrites: true);
        using var reopened = StorageEnvironment.Open(Options(fileSystem.Inner));
        long recovered = reopened.LastCommittedTransactionId;
        Assert.InRange(recovered, acknowledged, committed);
        AssertExactly(reopened, recovered);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task Disposing_the_environment_with_a_commit_in_flight_closes_it_once_the_commit_is_durable()
    {
        using var held = new JournalWriteHold();
        var environment = StorageEnvironment.Open(Options(held.FileSystem));
        held.HoldNextJournalWrite();
        var first = CommitAsync(environment, 1).AsTask();
        Assert.True(held.Reached.Wait(Patience));
        environment.Dispose();
        Assert.Throws<ObjectDisposedException>(() => environment.BeginWrite());

        held.Release();
        await first.WaitAsync(Patience);
        // Closed before the task completed, so the files are free to open again at once.
        using var reopened = StorageEnvironment.Open(Options(held.FileSystem));
        AssertExactly(reopened, 1);
    }

    [Fact]
    public async Task A_transaction_with_nothing_to_commit_completes_at_once_and_a_transaction_commits_only_once()
    {
        using var environment = StorageEnvironment.Open(Options(new MemoryFileSystem()));
        var empty = environment.BeginWrite();
        Assert.True(empty.CommitAsync().IsCompletedSuccessfully);
        Assert.Throws<ObjectDisposedException>(() => { empty.CommitAsync(); });

        var transaction = environment.BeginWrite();
        transaction.CreateTree("t").Put("k"u8, "v"u8);
        var durable = transaction.CommitAsync();
        Assert.Throws<ObjectDisposedException>(() => transaction.CreateTree("t"));
        Assert.Throws<ObjectDisposedException>(() => { transaction.CommitAsync(); });
        await durable.AsTask().WaitAsync(Patience);
        using var reader = environment.BeginRead();
        Assert.True(reader.OpenTree("t").ContainsKey("k"u8));
    }

    private static async Task<long> Acknowledge((long Number, Task Durable) commit, long acknowledged)
    {
        try
        {
            await commit.Durable.WaitAsync(Patience);
            Assert.Equal(acknowledged + 1, commit.Number); // tasks complete in commit order, none skipped
            return commit.Number;
        }
        catch (StorageException)
        {
            return acknowledged;
        }
    }
}
