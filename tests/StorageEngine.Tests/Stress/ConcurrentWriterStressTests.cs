using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace StorageEngine.Tests.Stress;

/// <summary>
/// Several threads commit at once (their commits may share journal writes), each into its own tree and each
/// checking that it sees its own earlier commits; after a crash (and, on memory files, a power loss that drops,
/// tears and reorders unsynced writes) every commit each thread saw acknowledged is there, and nothing else.
/// </summary>
/// <remarks>STORAGEENGINE_STRESS_SECONDS sets how long the writers run (default one second per case).</remarks>
[Collection(StressCollection.Name)]
public sealed class ConcurrentWriterStressTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(StressTarget.OsFiles, 2)]
    [InlineData(StressTarget.MemoryFiles, 4)]
    public async Task Every_writer_finds_all_its_acknowledged_commits_after_a_crash(StressTarget target, int writers)
    {
        using var stress = new StressEnvironment(target);
        var environment = stress.Open();
        var acknowledged = Enumerable.Range(0, writers).Select(_ => new List<long>()).ToArray();
        var failures = new ConcurrentQueue<string>();
        using var stop = new CancellationTokenSource(StressEnvironment.Duration);
        var threads = Enumerable.Range(0, writers).Select(w => Task.Factory.StartNew(() =>
        {
            var random = new Random(w);
            for (long sequence = 1; !stop.IsCancellationRequested; sequence++)
            {
                using var transaction = environment.BeginWrite(StressEnvironment.Patience);
                var tree = transaction.CreateTree(TreeName(w), TreeOptions.Int64Keys);
                if (tree.Count != acknowledged[w].Count)
                    failures.Enqueue($"writer {w} sees {tree.Count} of its entries, but {acknowledged[w].Count} commits of it were acknowledged");
                tree.Put(sequence, Value(w, sequence, random.Next(1, 3000)));
                if (random.Next(10) == 0)
                {
                    transaction.Abort();
                    continue;
                }
                transaction.Commit();
                acknowledged[w].Add(sequence);
            }
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();
        await StressEnvironment.AssertFinish(threads, "the writers");
        var statistics = environment.GetStatistics();
        output.WriteLine($"{target}, {writers} writers: {string.Join(" + ", acknowledged.Select(a => a.Count))} commits in " +
            $"{statistics.JournalWrites} journal writes ({statistics.JournalRecords} records)");
        Assert.Empty(failures);

        stress.Crash(environment, seed: writers);
        using var reopened = stress.Open();
        using (var reader = reopened.BeginRead())
        {
            for (int w = 0; w < writers; w++)
            {
                Assert.True(acknowledged[w].Count > 0, $"writer {w} never committed");
                var tree = reader.OpenTree(TreeName(w));
                Assert.Equal(acknowledged[w].Count, tree.Count);
                using var cursor = tree.CreateCursor();
                bool on = cursor.First();
                foreach (long sequence in acknowledged[w])
                {
                    Assert.True(on, $"writer {w}'s commit {sequence} was lost");
                    Assert.Equal(sequence, cursor.Int64Key);
                    Assert.True(cursor.Value.SequenceEqual(Value(w, sequence, cursor.Value.Length)), $"writer {w}'s commit {sequence} came back wrong");
                    on = cursor.Next();
                }
            }
        }
        var report = reopened.Check();
        Assert.True(report.IsHealthy, string.Join("; ", report.Problems));
    }

    private static string TreeName(int writer) => $"writer-{writer}";

    private static byte[] Value(int writer, long sequence, int length)
    {
        var value = new byte[length];
        for (int i = 0; i < length; i++) value[i] = (byte)(writer * 61 + sequence * 13 + i);
        return value;
    }
}
