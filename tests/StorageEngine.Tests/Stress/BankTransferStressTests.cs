using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Diagnostics;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Stress;

/// <summary>
/// One writer moves money between random accounts (plus churn: short-lived entries and a rewritten overflow value)
/// while readers sum every balance of their snapshot, some holding it open across many commits and summing it
/// again: every snapshot keeps the total, and a held snapshot never changes. Nothing deadlocks; once the
/// long-held readers are gone the pages in use stop growing and process memory stays bounded, and once every
/// reader is gone the data file stops growing.
/// </summary>
/// <remarks>STORAGEENGINE_STRESS_SECONDS sets how long it runs (default one second per target).</remarks>
[Collection(StressCollection.Name)]
public sealed class BankTransferStressTests(ITestOutputHelper output)
{
    private const int Accounts = 300;
    private const long InitialBalance = 1_000;
    private const long Total = Accounts * InitialBalance;
    private const int ValueSize = 64;
    private const int CheckpointEvery = 32;

    [Theory]
    [InlineData(StressTarget.OsFiles)]
    [InlineData(StressTarget.MemoryFiles)]
    public async Task Every_snapshot_keeps_the_total_and_the_file_stops_growing_once_long_readers_leave(StressTarget target)
    {
        using var stress = new StressEnvironment(target);
        var environment = stress.Open();
        Seed(environment);

        var failures = new ConcurrentQueue<string>();
        var stop = new CancellationTokenSource();
        var readersStop = new CancellationTokenSource();
        var holdersStop = new CancellationTokenSource();
        long commits = 0, snapshotsChecked = 0, longHolds = 0;
        var writer = Start(() =>
        {
            var random = new Random(1);
            for (long number = 1; !stop.IsCancellationRequested; number++)
            {
                if (Transfer(environment, random, number)) Interlocked.Increment(ref commits);
                // Freed pages are reused only once a checkpoint covers them, so how far the file grows under churn
                // follows how many commits one checkpoint spans; the background checkpointer's span depends on
                // the machine's load (a fast in-memory file system commits 25,000 transfers a second), this does not.
                if (number % CheckpointEvery == 0) environment.Checkpoint();
            }
        });
        var readers = Enumerable.Range(0, 3).Select(r => Start(() =>
        {
            while (!readersStop.IsCancellationRequested)
            {
                using var transaction = environment.BeginRead();
                if (Sum(transaction, out _) is { } problem) failures.Enqueue($"reader {r}: {problem}");
                Interlocked.Increment(ref snapshotsChecked);
            }
        })).ToList();
        var holders = Enumerable.Range(0, 2).Select(h => Start(() =>
        {
            // Holds a snapshot across many commits, checks it now and then, and finds it unchanged.
            while (!holdersStop.IsCancellationRequested)
            {
                using var transaction = environment.BeginRead();
                if (Sum(transaction, out long[] first) is { } problem) failures.Enqueue($"holder {h}: {problem}");
                var held = Stopwatch.StartNew();
                while (held.ElapsedMilliseconds < 150 && !holdersStop.IsCancellationRequested)
                {
                    Thread.Sleep(10);
                    if (Sum(transaction, out long[] again) is { } later) failures.Enqueue($"holder {h}, later: {later}");
                    else if (!again.SequenceEqual(first)) failures.Enqueue($"holder {h}: the snapshot of transaction {transaction.SnapshotId} changed while held");
                }
                Interlocked.Increment(ref longHolds);
            }
        })).ToArray();

        var samples = new ConcurrentQueue<string>();
        var sampler = Start(() =>
        {
            var clock = Stopwatch.StartNew();
            while (!readersStop.Token.WaitHandle.WaitOne(StressEnvironment.Duration / 10))
            {
                var now = environment.GetStatistics();
                using var transaction = environment.BeginRead();
                TreeStatistics? churn = transaction.TryOpenTree("churn", out var tree) ? tree.GetStatistics() : null;
                samples.Enqueue($"{clock.Elapsed.TotalSeconds:0.0}s: {Interlocked.Read(ref commits)} commits, {now.PageCount} pages ({now.FreePages} free), " +
                    $"{now.OpenReaders} readers, checkpoint at {now.LastCheckpointTransactionId} of {now.LastCommittedTransactionId}; churn tree {churn?.EntryCount} entries in {churn?.LeafPages} leaves, {churn?.OverflowPages} overflow pages");
            }
        });

        // Waits until the writer has committed `target` transfers in all (or stopped).
        async Task CommitsPast(long target)
        {
            while (Interlocked.Read(ref commits) < target && !writer.IsCompleted) await Task.Delay(10);
        }

        // Half the time with long-held readers, then a quarter with short readers only: the pages the long ones
        // pinned are reused and the pages in use settle. Then the writer alone: with no reader to pin anything,
        // pages freed are reused once a checkpoint covers them and the file stops growing. (While short readers
        // run, a reader thread descheduled mid-snapshot on a busy machine pins every page freed meanwhile, and a
        // writer that speeds up just then grows the file by hundreds of pages: that growth says nothing of a leak.)
        await Task.Delay(StressEnvironment.Duration / 2);
        holdersStop.Cancel();
        await StressEnvironment.AssertFinish(holders, "the long-held readers");
        long holdersGoneAt = Interlocked.Read(ref commits);
        await Task.Delay(StressEnvironment.Duration / 4);
        await CommitsPast(holdersGoneAt + 100);
        var settled = environment.GetStatistics();
        long settledCommits = Interlocked.Read(ref commits);
        long settledPrivate = PrivateBytes();

        readersStop.Cancel();
        await StressEnvironment.AssertFinish(readers.Append(sampler), "the readers");
        await CommitsPast(Interlocked.Read(ref commits) + 2 * CheckpointEvery);
        var alone = environment.GetStatistics();
        long aloneCommits = Interlocked.Read(ref commits);
        await Task.Delay(StressEnvironment.Duration / 4);
        await CommitsPast(aloneCommits + 10 * CheckpointEvery);
        stop.Cancel();
        await StressEnvironment.AssertFinish([writer], "the writer");
        var end = environment.GetStatistics();
        long endPrivate = PrivateBytes();

        output.WriteLine($"{target}: {commits} commits, {snapshotsChecked} snapshots summed, {longHolds} long holds; " +
            $"data file {settled.DataFileBytes >> 10} KiB at {settledCommits} commits, {alone.PageCount} pages at {aloneCommits} commits " +
            $"(the writer alone from then on), {end.PageCount} pages ({end.DataFileBytes >> 10} KiB) at the end; " +
            $"private bytes {settledPrivate >> 20} MiB then {endPrivate >> 20} MiB");
        foreach (var sample in samples) output.WriteLine(sample);
        Assert.Empty(failures);
        Assert.True(commits > 10, $"only {commits} commits ran");
        Assert.Equal(0, end.OpenReaders);
        // A leak shows as pages in use that keep growing. The page count may still drift: pages freed since the
        // last checkpoint wait for the next one before reuse (the writer checkpoints every CheckpointEvery commits).
        long settledUsed = settled.PageCount - settled.FreePages;
        long endUsed = end.PageCount - end.FreePages;
        Assert.True(endUsed <= settledUsed + Math.Max(256, settledUsed / 2),
            $"pages in use grew from {settledUsed} to {endUsed} after the long readers left");
        long allowed = alone.PageCount + Math.Max(256, alone.PageCount / 4);
        Assert.True(end.PageCount <= allowed,
            $"the environment grew from {alone.PageCount} to {end.PageCount} pages in {commits - aloneCommits} commits with no reader open");
        Assert.True(endPrivate - settledPrivate < 256L << 20, $"private bytes grew from {settledPrivate >> 20} MiB to {endPrivate >> 20} MiB");

        var report = environment.Check();
        Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
        stress.Crash(environment, seed: 5);
        using var reopened = stress.Open();
        using (var transaction = reopened.BeginRead()) Assert.Null(Sum(transaction, out _));
        Assert.Equal(end.LastCommittedTransactionId, reopened.LastCommittedTransactionId);
    }

    private static Task Start(Action body) => Task.Factory.StartNew(body, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);

    private static long PrivateBytes()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        using var process = Process.GetCurrentProcess();
        return process.PrivateMemorySize64;
    }

    private static void Seed(StorageEnvironment environment)
    {
        using var transaction = environment.BeginWrite();
        var accounts = transaction.CreateTree("accounts", TreeOptions.Int64Keys);
        for (long account = 0; account < Accounts; account++) accounts.Put(account, Encode(account, InitialBalance));
        transaction.Commit();
    }

    /// <summary>One transfer; false when it was aborted instead (one in twenty).</summary>
    private static bool Transfer(StorageEnvironment environment, Random random, long number)
    {
        using var transaction = environment.BeginWrite(StressEnvironment.Patience);
        var accounts = transaction.OpenTree("accounts");
        long from = random.Next(Accounts), to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
        long fromBalance = Decode(accounts, from), toBalance = Decode(accounts, to);
        long amount = random.NextInt64(fromBalance + 1);
        accounts.Put(from, Encode(from, fromBalance - amount));
        accounts.Put(to, Encode(to, toBalance + amount));

        // Churn: entries that live for 400 commits, and an overflow value rewritten now and then.
        var churn = transaction.CreateTree("churn", TreeOptions.Int64Keys);
        churn.Put(number, new byte[100 + (int)(number % 200)]);
        using (var oldest = churn.CreateCursor())
        {
            // Aborted transfers skip their delete, so every entry 400 behind goes, not just one.
            while (oldest.First() && oldest.Int64Key <= number - 400) churn.Delete(oldest.Int64Key);
        }
        if (number % 50 == 0) churn.Put(long.MaxValue, new byte[10_000 + (int)(number % 5000)]);
        if (random.Next(20) == 0)
        {
            transaction.Abort();
            return false;
        }
        transaction.Commit();
        return true;
    }

    /// <summary>Null when the snapshot's accounts are all there, well formed, and add up to the total.</summary>
    private static string? Sum(Transaction transaction, out long[] balances)
    {
        balances = new long[Accounts];
        var accounts = transaction.OpenTree("accounts");
        long sum = 0, count = 0;
        using var cursor = accounts.CreateCursor();
        for (bool on = cursor.First(); on; on = cursor.Next())
        {
            long account = cursor.Int64Key;
            var value = cursor.Value;
            if (account < 0 || account >= Accounts || value.Length != ValueSize || BinaryPrimitives.ReadInt64LittleEndian(value[8..]) != account)
                return $"snapshot {transaction.SnapshotId}: a malformed entry for account {account} ({value.Length} bytes)";
            balances[account] = BinaryPrimitives.ReadInt64LittleEndian(value);
            sum += balances[account];
            count++;
        }
        if (count != Accounts || sum != Total) return $"snapshot {transaction.SnapshotId}: {count} accounts holding {sum}, expected {Accounts} holding {Total}";
        return null;
    }

    private static byte[] Encode(long account, long balance)
    {
        var value = new byte[ValueSize];
        BinaryPrimitives.WriteInt64LittleEndian(value, balance);
        for (int i = 8; i + 8 <= ValueSize; i += 8) BinaryPrimitives.WriteInt64LittleEndian(value.AsSpan(i), account);
        return value;
    }

    private static long Decode(Tree accounts, long account) =>
        accounts.TryGet(account, out var value) ? BinaryPrimitives.ReadInt64LittleEndian(value) : throw new InvalidOperationException($"account {account} is missing");
}
