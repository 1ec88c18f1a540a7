namespace StorageEngine;

// Batch lookups and batch writes. Each is one guarded operation of the transaction (see Transaction.Enter):
// checks of the arguments come first and leave the transaction usable; a failure after them fails it, as a
// failed Put does.
public sealed partial class Tree
{
    /// <summary>
    /// Looks up many 8-byte integer keys (any tree; the keys in their <see cref="Int64Key"/> form) at once and
    /// puts what was found into <paramref name="results"/>, in the order of <paramref name="keys"/>. The keys are
    /// sorted first (input already sorted is detected) and the tree is walked once in key order, each lookup
    /// starting from the deepest page of the previous one that holds its key; in a read transaction a large batch
    /// is split across all cores. A key given twice is looked up twice.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="results"/> is null.</exception>
    public void GetMany(ReadOnlySpan<long> keys, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var transaction = Enter(Operations.GetMany, out bool asOwner);
        try
        {
            results.Begin(transaction, BTree, keys.Length, variableKeys: false);
            var prefixes = results.Prefixes.AsSpan(0, keys.Length);
            var order = results.Order.AsSpan(0, keys.Length);
            for (int i = 0; i < keys.Length; i++)
            {
                prefixes[i] = BatchKeySort.Int64Prefix(keys[i]);
                order[i] = i;
            }
            BatchKeySort.Sort(prefixes, order, results.Keys, variable: false, results.PrefixScratch, results.OrderScratch);
            BatchLookup.Run(BTree, results, variableKeys: false, parallel: !transaction.IsWritable);
        }
        catch (Exception e) when (transaction.Fail(Operations.GetMany, e))
        {
            throw;
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>
    /// Looks up many byte-string keys at once, as <see cref="GetMany(ReadOnlySpan{long}, BatchLookupResults)"/>
    /// does. The keys are read during the call only.
    /// </summary>
    /// <exception cref="ArgumentException">A key is empty, too long, or not 8 bytes in a tree of integer keys; nothing is looked up.</exception>
    public void GetMany(ReadOnlySpan<ReadOnlyMemory<byte>> keys, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var transaction = Enter(Operations.GetMany, out bool asOwner);
        try
        {
            for (int i = 0; i < keys.Length; i++) CheckBatchKey(keys[i].Span, i, nameof(keys));
            try
            {
                results.Begin(transaction, BTree, keys.Length, variableKeys: true);
                var prefixes = results.Prefixes.AsSpan(0, keys.Length);
                var order = results.Order.AsSpan(0, keys.Length);
                var stored = results.Keys;
                for (int i = 0; i < keys.Length; i++)
                {
                    stored[i] = keys[i];
                    prefixes[i] = BatchKeySort.Prefix(keys[i].Span);
                    order[i] = i;
                }
                BatchKeySort.Sort(prefixes, order, stored, variable: true, results.PrefixScratch, results.OrderScratch);
                BatchLookup.Run(BTree, results, variableKeys: true, parallel: !transaction.IsWritable);
            }
            catch (Exception e) when (transaction.Fail(Operations.GetMany, e))
            {
                throw;
            }
            finally
            {
                results.ReleaseKeys(keys.Length);
            }
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>
    /// Applies the puts and deletes of <paramref name="batch"/> to this tree: in key order (sorted first; input
    /// already sorted is detected), and for a key written more than once, only its last write, as if the
    /// batch's operations were applied one by one in the order they were added. Every key and value is
    /// checked before anything changes: a batch that throws <see cref="ArgumentException"/> changes nothing. The
    /// batch is left as it was.
    /// </summary>
    /// <exception cref="InvalidOperationException">The transaction is a read transaction.</exception>
    /// <exception cref="ArgumentException">A key or value is out of bounds for this tree.</exception>
    public void Apply(WriteBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        var transaction = EnterWritable(Operations.Apply, out bool asOwner);
        try
        {
            int count = batch.Count;
            var keys = batch.PrepareKeys();
            for (int i = 0; i < count; i++)
            {
                CheckBatchKey(keys[i].Span, i, nameof(batch));
                if (!batch.IsDelete(i) && InvalidValue(batch.Value(i)) is { } invalid)
                    throw new ArgumentException($"Operation {i} of the batch: {invalid.Message}", nameof(batch));
            }
            try
            {
                var prefixes = batch.Prefixes.AsSpan(0, count);
                var order = batch.Order.AsSpan(0, count);
                BatchKeySort.Sort(prefixes, order, keys, variable: !BTree.IsFixedInt64, batch.PrefixScratch, batch.OrderScratch);
                for (int i = 0; i < count; i++)
                {
                    // Of the writes of one key (adjacent, in the order they were added), the last one wins.
                    if (i + 1 < count && prefixes[i + 1] == prefixes[i] && keys[order[i + 1]].Span.SequenceEqual(keys[order[i]].Span)) continue;
                    int position = order[i];
                    if (batch.IsDelete(position)) BTree.Delete(keys[position].Span);
                    else BTree.Put(keys[position].Span, batch.Value(position));
                }
            }
            catch (Exception e) when (transaction.Fail(Operations.Apply, e))
            {
                throw;
            }
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    /// <summary>Throws <see cref="InvalidKey"/>'s exception for key <paramref name="index"/> of a batch, naming it.</summary>
    private void CheckBatchKey(ReadOnlySpan<byte> key, int index, string parameter)
    {
        if (InvalidKey(key) is { } invalid)
            throw new ArgumentException($"Key {index} of the batch{(key.IsEmpty ? " (empty or null)" : "")}: {invalid.Message}", parameter);
    }
}
