using System.Text;
using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// Grouped writes (<see cref="StorageEnvironment.Write"/>, and in some runs <see cref="StorageEnvironment.WriteAsync"/>
/// from half the threads) from four threads, cut short by a crash at a random file
/// change and then power loss: after reopening, every batch whose Write returned is there, and every batch is
/// wholly present or wholly absent, also those whose group's commit the crash cut short.
/// </summary>
public sealed class GroupedWritePowerLossTests
{
    private const int Threads = 4;
    private const int BatchesPerThread = 30;

    private static byte[] Key(int cycle, int thread, int batch, char part) => Encoding.ASCII.GetBytes($"c{cycle:D2}t{thread}b{batch:D3}{part}");

    // Every 7th batch carries a value on overflow pages.
    private static byte[] ValueOf(int cycle, int thread, int batch, char part) =>
        Unit.TestData.Value(cycle * 100_000 + thread * 1_000 + batch + part, batch % 7 == 0 ? 6_000 : 40);

    [Theory]
    [InlineData(PowerLoss.UnsyncedWritesDropped, 31, false)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandom, 32, false)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 33, false)]
    [InlineData(PowerLoss.UnsyncedWritesDropped, 34, true)]
    [InlineData(PowerLoss.UnsyncedWritesSurviveAtRandomAndTear, 35, true)]
    public void Every_acknowledged_grouped_write_survives_and_every_batch_is_whole(PowerLoss loss, int seed, bool halfAsync)
    {
        var random = new Random(seed);
        var memory = new MemoryFileSystem();
        var fileSystem = new CrashingFileSystem(memory);
        var options = Options(fileSystem);
        using (var environment = StorageEnvironment.Open(options))
        {
            using var transaction = environment.BeginWrite();
            transaction.CreateTree("g");
            transaction.Commit();
        }
        var acknowledged = new List<int[]>();
        int cutShort = 0;
        for (int cycle = 0; cycle < 8; cycle++)
        {
            var environment = StorageEnvironment.Open(options);
            environment.WaitForRecovery();
            var last = Enumerable.Repeat(-1, Threads).ToArray();
            var failures = new Exception?[Threads];
            fileSystem.CrashAfter(random.Next(0, 60));
            var threads = Enumerable.Range(0, Threads).Select(t => new Thread(() =>
            {
                var batch = new WriteBatch();
                try
                {
                    for (int b = 0; b < BatchesPerThread; b++)
                    {
                        batch.Clear();
                        batch.Put(Key(cycle, t, b, 'a'), ValueOf(cycle, t, b, 'a'));
                        batch.Put(Key(cycle, t, b, 'b'), ValueOf(cycle, t, b, 'b'));
                        // Half the writers through WriteAsync (awaited here): their groups may be led by a task.
                        if (halfAsync && t % 2 == 1) environment.WriteAsync("g", batch).AsTask().GetAwaiter().GetResult();
                        else environment.Write("g", batch);
                        last[t] = b;
                    }
                }
                catch (Exception e)
                {
                    failures[t] = e;
                }
            })).ToArray();
            foreach (var thread in threads) thread.Start();
            foreach (var thread in threads) Assert.True(thread.Join(TimeSpan.FromSeconds(60)));
            foreach (var failure in failures)
            {
                if (failure is null) continue;
                cutShort++;
                Assert.True(failure is StorageException or IOException, $"unexpected failure: {failure}");
            }
            environment.SimulateCrash();
            fileSystem.Disarm();
            LosePower(memory, loss, random);
            acknowledged.Add(last);

            using var reopened = StorageEnvironment.Open(options);
            using var read = reopened.BeginRead();
            var tree = read.OpenTree("g");
            for (int c = 0; c <= cycle; c++)
            {
                for (int t = 0; t < Threads; t++)
                {
                    for (int b = 0; b < BatchesPerThread; b++)
                    {
                        bool hasA = tree.TryGet(Key(c, t, b, 'a'), out var a);
                        bool hasB = tree.TryGet(Key(c, t, b, 'b'), out var bValue);
                        Assert.True(hasA == hasB, $"cycle {c}, thread {t}, batch {b}: only part of the batch is there");
                        if (b <= acknowledged[c][t]) Assert.True(hasA, $"cycle {c}, thread {t}: acknowledged batch {b} is lost");
                        if (!hasA) continue;
                        Assert.True(a.SequenceEqual(ValueOf(c, t, b, 'a')) && bValue.SequenceEqual(ValueOf(c, t, b, 'b')), $"cycle {c}, thread {t}, batch {b}: wrong value");
                    }
                }
            }
            AssertHealthy(reopened);
        }
        Assert.True(cutShort > 0, "no grouped write was cut short by the crash");
    }
}
