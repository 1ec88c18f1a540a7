namespace StorageEngine.Tests.Bugs;

/// <summary>
/// A read transaction may be shared by threads. Opening trees records them in the transaction's table of open
/// trees, a <see cref="Dictionary{TKey,TValue}"/> that was written without a lock: threads opening many trees at
/// once could resize it under one another's reads, which can loop forever or lose an entry. The table is locked now.
/// </summary>
public sealed class ThreadsSharingAReadTransactionOpenTreesWithoutHangingTests
{
    private const int Trees = 24;

    [Fact]
    public void Four_threads_opening_twenty_four_trees_of_one_read_transaction_each_get_the_tree_they_named()
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var write = environment.BeginWrite())
        {
            for (int t = 0; t < Trees; t++) write.CreateTree(Name(t)).Put(BitConverter.GetBytes(t), BitConverter.GetBytes(t));
            write.Commit();
        }

        for (int round = 0; round < 400; round++)
        {
            using var shared = environment.BeginRead();
            var wrong = new System.Collections.Concurrent.ConcurrentQueue<string>();
            using var start = new Barrier(4);
            var threads = Enumerable.Range(0, 4).Select(thread => new Thread(() =>
            {
                start.SignalAndWait();
                for (int i = 0; i < Trees; i++)
                {
                    int t = (i + thread * 7) % Trees;
                    var tree = shared.OpenTree(Name(t));
                    if (tree.Name != Name(t)) wrong.Enqueue($"asked for {Name(t)}, got {tree.Name}");
                    if (!tree.TryGet(BitConverter.GetBytes(t), out var value) || BitConverter.ToInt32(value) != t) wrong.Enqueue($"{Name(t)} lost its entry");
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            foreach (var thread in threads)
                Assert.True(thread.Join(TimeSpan.FromMinutes(1)), "a thread opening trees of a shared read transaction never finished");
            Assert.Empty(wrong);
        }
    }

    private static string Name(int t) => $"tree-{t:D2}";
}
