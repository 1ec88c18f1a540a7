using System.Buffers.Binary;
using System.Runtime.ExceptionServices;

namespace StorageEngine;

// Batch lookups whose leaves were found elsewhere (a GPU searching a LeafDirectory's prefixes).
public sealed partial class Tree
{
    internal Transaction Transaction => _transaction;

    /// <summary>
    /// The bounds and pages of every leaf of the tree as this transaction sees it, for a device that finds the
    /// leaf of each key of a batch (see <see cref="GetMany(ReadOnlySpan{long}, LeafDirectory, ReadOnlySpan{int}, BatchLookupResults)"/>).
    /// Reads only branch pages.
    /// </summary>
    public LeafDirectory GetLeafDirectory()
    {
        var transaction = Enter(Operations.GetLeafDirectory, out bool asOwner);
        try
        {
            var prefixes = new List<ulong>();
            var pages = new List<long>();
            var bounds = BTree.IsFixedInt64 ? null : new List<byte[]>();
            BTree.VisitLeafBounds((bound, page) =>
            {
                prefixes.Add(bound.IsEmpty ? 0 : BatchKeySort.Prefix(bound));
                pages.Add(page);
                bounds?.Add(bound.ToArray());
            });
            return new LeafDirectory(transaction, this, [.. prefixes], [.. pages], bounds?.ToArray());
        }
        catch (Exception e) when (transaction.Fail(Operations.GetLeafDirectory, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>
    /// Looks up many integer keys whose leaves were found from <paramref name="directory"/>:
    /// <paramref name="leafHints"/>[i] is the leaf of <paramref name="keys"/>[i] (the last leaf whose prefix is at most
    /// the key's). Each hint is checked against the directory's bounds and a wrong one is searched again here, so
    /// the results equal <see cref="GetMany(ReadOnlySpan{long}, BatchLookupResults)"/>'s whatever the hints say.
    /// </summary>
    /// <exception cref="ArgumentException">
    /// The directory describes another tree, another snapshot, or this tree before a change; or the spans differ in length.
    /// </exception>
    public void GetMany(ReadOnlySpan<long> keys, LeafDirectory directory, ReadOnlySpan<int> leafHints, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(results);
        var transaction = Enter(Operations.GetMany, out bool asOwner);
        try
        {
            CheckDirectory(transaction, directory, keys.Length, leafHints.Length);
            try
            {
                results.Begin(transaction, BTree, keys.Length, variableKeys: false);
                var prefixes = results.Prefixes;
                var hints = results.Order;
                for (int i = 0; i < keys.Length; i++)
                {
                    prefixes[i] = BatchKeySort.Int64Prefix(keys[i]);
                    hints[i] = leafHints[i];
                }
                LookUpInLeaves(transaction, directory, results, keys.Length, variableKeys: false);
            }
            catch (Exception e) when (transaction.Fail(Operations.GetMany, e))
            {
                throw;
            }
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    private void CheckDirectory(Transaction transaction, LeafDirectory directory, int keys, int hints)
    {
        if (hints != keys)
            throw new ArgumentException($"There are {hints} leaf hints for {keys} keys.", "leafHints");
        if (!directory.Describes(transaction, this))
            throw new ArgumentException($"The leaf directory describes tree '{directory.TreeName}' at snapshot {directory.SnapshotId}, not tree '{Name}' as this transaction (snapshot {transaction.SnapshotId}) sees it now; build it again.", nameof(directory));
    }

    /// <summary>The lookups of either overload, on all cores in a read transaction.</summary>
    private void LookUpInLeaves(Transaction transaction, LeafDirectory directory, BatchLookupResults results, int count, bool variableKeys)
    {
        int workers = transaction.IsWritable ? 1 : Math.Min(results.MaxParallelism, count / BatchLookup.MinKeysPerWorker);
        if (workers <= 1)
        {
            results.FoundCount = variableKeys ? LookUpBytesInLeaves(directory, results, 0, count) : LookUpInLeaves(directory, results, 0, count);
            return;
        }
        int found = 0;
        try
        {
            Parallel.For(0, workers, worker =>
            {
                int start = (int)((long)count * worker / workers);
                int end = (int)((long)count * (worker + 1) / workers);
                Interlocked.Add(ref found, variableKeys ? LookUpBytesInLeaves(directory, results, start, end) : LookUpInLeaves(directory, results, start, end));
            });
        }
        catch (AggregateException e) when (e.InnerExceptions.Count > 0)
        {
            ExceptionDispatchInfo.Capture(e.InnerExceptions[0]).Throw();
        }
        results.FoundCount = found;
    }

    /// <summary>
    /// Looks up many byte-string keys whose leaves were found by searching <paramref name="directory"/>'s prefixes
    /// (the last leaf whose prefix is at most the key's prefix, see <see cref="BatchKeyPrefix"/>): a key sharing its
    /// prefix with a bound, or with a wrong hint, has its leaf settled here from the whole bounds. On all cores in a
    /// read transaction, as the integer overload.
    /// </summary>
    /// <exception cref="ArgumentException">As for the integer overload, or a key is out of bounds.</exception>
    public void GetMany(ReadOnlySpan<ReadOnlyMemory<byte>> keys, LeafDirectory directory, ReadOnlySpan<int> leafHints, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(results);
        var transaction = Enter(Operations.GetMany, out bool asOwner);
        try
        {
            CheckDirectory(transaction, directory, keys.Length, leafHints.Length);
            for (int i = 0; i < keys.Length; i++) CheckBatchKey(keys[i].Span, i, nameof(keys));
            try
            {
                // Into the results' arrays: the workers of a large batch read them (a span cannot cross threads).
                results.Begin(transaction, BTree, keys.Length, variableKeys: true);
                try
                {
                    var stored = results.Keys;
                    var hints = results.Order;
                    for (int i = 0; i < keys.Length; i++)
                    {
                        stored[i] = keys[i];
                        hints[i] = leafHints[i];
                    }
                    LookUpInLeaves(transaction, directory, results, keys.Length, variableKeys: true);
                }
                finally
                {
                    results.ReleaseKeys(keys.Length);
                }
            }
            catch (Exception e) when (transaction.Fail(Operations.GetMany, e))
            {
                throw;
            }
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>The sort key of a byte-string key in a <see cref="LeafDirectory"/>: its first 8 bytes as a big-endian integer, zero-padded.</summary>
    public static ulong BatchKeyPrefix(ReadOnlySpan<byte> key) => BatchKeySort.Prefix(key);

    private int LookUpInLeaves(LeafDirectory directory, BatchLookupResults results, int start, int end)
    {
        Span<byte> key = stackalloc byte[Int64Key.Size];
        var prefixes = results.Prefixes;
        var hints = results.Order;
        int found = 0;
        for (int i = start; i < end; i++)
        {
            ulong prefix = prefixes[i];
            BinaryPrimitives.WriteUInt64BigEndian(key, prefix);
            int leaf = hints[i];
            if (!directory.Holds(leaf, key, prefix)) leaf = directory.FindLeaf(key, prefix);
            bool hit = BTree.TryGetInLeaf(directory.Page(leaf), key, out var value);
            results.Set(i, hit, value);
            if (hit) found++;
        }
        return found;
    }

    /// <summary>Keys [<paramref name="start"/>, <paramref name="end"/>) of a byte-string batch, stored in the results with their hints.</summary>
    private int LookUpBytesInLeaves(LeafDirectory directory, BatchLookupResults results, int start, int end)
    {
        var keys = results.Keys;
        var hints = results.Order;
        int found = 0;
        for (int i = start; i < end; i++)
        {
            var key = keys[i].Span;
            ulong prefix = BatchKeySort.Prefix(key);
            int leaf = hints[i];
            if (!directory.Holds(leaf, key, prefix)) leaf = directory.FindLeaf(key, prefix);
            bool hit = BTree.TryGetInLeaf(directory.Page(leaf), key, out var value);
            results.Set(i, hit, value);
            if (hit) found++;
        }
        return found;
    }
}
