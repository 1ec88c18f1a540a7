using System.Buffers.Binary;
using System.Runtime.ExceptionServices;
using StorageEngine.BTrees;

namespace StorageEngine;

/// <summary>
/// Runs a batch lookup whose keys are sorted in <see cref="BatchLookupResults"/>: one <see cref="SortedWalk"/>
/// per slice of the sorted keys, slices on all cores in a read transaction (its pages are shared read-only and
/// safe to read from many threads; a write transaction's are not, and its lookups stay on the calling thread).
/// </summary>
internal static class BatchLookup
{
    /// <summary>Fewest keys worth a thread of their own: below it, starting the thread costs more than it saves.</summary>
    internal const int MinKeysPerWorker = 16 * 1024;

    public static void Run(BTree tree, BatchLookupResults results, bool variableKeys, bool parallel)
    {
        int count = results.Count;
        int workers = parallel ? Math.Min(results.MaxParallelism, count / MinKeysPerWorker) : 1;
        if (workers <= 1)
        {
            results.FoundCount = Slice(tree, results, variableKeys, 0, count);
            return;
        }
        int found = 0;
        try
        {
            Parallel.For(0, workers, worker =>
            {
                int start = (int)((long)count * worker / workers);
                int end = (int)((long)count * (worker + 1) / workers);
                Interlocked.Add(ref found, Slice(tree, results, variableKeys, start, end));
            });
        }
        catch (AggregateException e) when (e.InnerExceptions.Count > 0)
        {
            ExceptionDispatchInfo.Capture(e.InnerExceptions[0]).Throw();
        }
        results.FoundCount = found;
    }

    /// <summary>Looks up sorted keys <paramref name="start"/> to <paramref name="end"/>; returns how many were found.</summary>
    private static int Slice(BTree tree, BatchLookupResults results, bool variableKeys, int start, int end)
    {
        Span<nint> pages = stackalloc nint[BTree.MaxDepth];
        Span<nint> upper = stackalloc nint[BTree.MaxDepth];
        Span<int> upperLength = stackalloc int[BTree.MaxDepth];
        var walk = new SortedWalk(tree, pages, upper, upperLength);
        Span<byte> integerKey = stackalloc byte[Int64Key.Size];
        var prefixes = results.Prefixes;
        var order = results.Order;
        var keys = results.Keys;
        int found = 0;
        for (int i = start; i < end; i++)
        {
            int position = order[i];
            scoped ReadOnlySpan<byte> key;
            if (variableKeys)
            {
                key = keys[position].Span;
            }
            else
            {
                BinaryPrimitives.WriteUInt64BigEndian(integerKey, prefixes[i]);
                key = integerKey;
            }
            bool hit = walk.TryGet(key, out var value);
            results.Set(position, hit, value);
            if (hit) found++;
        }
        return found;
    }
}
