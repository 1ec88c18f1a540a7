using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// An aborted write transaction gives back every page it took: the next transaction finds them free again
/// and does not grow the file, even after the aborted one searched the whole file for space and found none.
/// </summary>
public sealed class AbortedAllocationTests
{
    private const int Keys = 1_500;

    [Fact]
    public void Pages_an_aborted_transaction_took_are_reused_by_the_next_one()
    {
        using var directory = new TempDirectory("aborted-allocation");
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, Durability = DurabilityMode.Lazy });
        var value = new byte[1_000];
        PutKeys(environment, 0, Keys);
        using (var transaction = environment.BeginWrite())
        {
            var tree = transaction.OpenTree("t")!;
            for (long key = 0; key < Keys; key++) tree.Delete(key);
            transaction.Commit();
        }
        // The freed pages become reusable once a checkpoint covers their release, from the next writer on.
        environment.Checkpoint();
        using (var transaction = environment.BeginWrite())
        {
            transaction.CreateTree("other").Put(0, value);
            transaction.Commit();
        }
        long pagesBefore = environment.GetStatistics().PageCount;

        using (var transaction = environment.BeginWrite())
        {
            // The aborted transaction takes every reusable page, gives a few of its own back (the search starts
            // over from them), and then goes on through the pages it holds to the end of the file.
            var tree = transaction.OpenTree("t")!;
            for (long key = 0; key < Keys; key++) tree.Put(key, value);
            for (long key = 0; key < Keys / 10; key++) tree.Delete(key);
            for (long key = Keys; key < 2 * Keys; key++) tree.Put(key, value);
            transaction.Abort();
        }
        PutKeys(environment, 0, Keys);

        long pagesAfter = environment.GetStatistics().PageCount;
        Assert.True(pagesAfter <= pagesBefore + 8,
            $"the file grew from {pagesBefore} to {pagesAfter} pages for keys that fit in the pages the aborted transaction gave back.");
        using var read = environment.BeginRead();
        Assert.Equal(Keys, read.OpenTree("t")!.Count);

        void PutKeys(StorageEnvironment env, long first, long count)
        {
            using var transaction = env.BeginWrite();
            var tree = transaction.CreateTree("t", TreeOptions.Int64Keys);
            for (long key = first; key < first + count; key++) tree.Put(key, value);
            transaction.Commit();
        }
    }
}
