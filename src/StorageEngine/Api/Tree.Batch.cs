namespace StorageEngine;

// Batch lookups and batch writes.
public sealed partial class Tree
{
    /// <summary>
    /// Looks up many 8-byte integer keys (any tree; the keys in their <see cref="Int64Key"/> form) at once and
    /// puts what was found into <paramref name="results"/>, in the order of <paramref name="keys"/>. The keys are
    /// sorted first (input already sorted is detected) and the tree is walked once in key order, each lookup
    /// starting from the deepest page of the previous one that holds its key; in a read transaction a large batch
    /// is split across all cores. Duplicate keys are looked up once each.
    /// </summary>
    /// <exception cref="ArgumentNullException"><paramref name="results"/> is null.</exception>
    public void GetMany(ReadOnlySpan<long> keys, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(results);
        ThrowIfUnusable();
        if (!BTree.IsFixedInt64 && _transaction.Environment.MaxKeySize < Int64Key.Size)
            throw new ArgumentException($"The environment's keys are at most {_transaction.Environment.MaxKeySize} bytes.", nameof(keys));
        results.Begin(_transaction, BTree, keys.Length, variableKeys: false);
        var prefixes = results.Prefixes.AsSpan(0, keys.Length);
        var order = results.Order.AsSpan(0, keys.Length);
        for (int i = 0; i < keys.Length; i++)
        {
            prefixes[i] = BatchKeySort.Int64Prefix(keys[i]);
            order[i] = i;
        }
        BatchKeySort.Sort(prefixes, order, results.Keys, variable: false, results.PrefixScratch, results.OrderScratch);
        BatchLookup.Run(BTree, results, variableKeys: false, parallel: !_transaction.IsWritable);
    }

    /// <summary>
    /// Looks up many byte-string keys at once, as <see cref="GetMany(ReadOnlySpan{long}, BatchLookupResults)"/>
    /// does. The keys are read during the call only.
    /// </summary>
    /// <exception cref="ArgumentException">A key is empty, too long, or not 8 bytes in a tree of integer keys; nothing is looked up.</exception>
    public void GetMany(ReadOnlySpan<ReadOnlyMemory<byte>> keys, BatchLookupResults results)
    {
        ArgumentNullException.ThrowIfNull(results);
        ThrowIfUnusable();
        for (int i = 0; i < keys.Length; i++) CheckBatchKey(keys[i].Span, i, nameof(keys));
        results.Begin(_transaction, BTree, keys.Length, variableKeys: true);
        var prefixes = results.Prefixes.AsSpan(0, keys.Length);
        var order = results.Order.AsSpan(0, keys.Length);
        var stored = results.Keys;
        for (int i = 0; i < keys.Length; i++)
        {
            stored[i] = keys[i];
            prefixes[i] = BatchKeySort.Prefix(keys[i].Span);
            order[i] = i;
        }
        try
        {
            BatchKeySort.Sort(prefixes, order, stored, variable: true, results.PrefixScratch, results.OrderScratch);
            BatchLookup.Run(BTree, results, variableKeys: true, parallel: !_transaction.IsWritable);
        }
        finally
        {
            results.ReleaseKeys(keys.Length);
        }
    }

    /// <summary>
    /// Applies the puts and deletes of <paramref name="batch"/> to this tree: in key order (sorted first; input
    /// already sorted is detected), and for a key written more than once, only its last write, as if the
    /// batch's operations were applied one by one in the order they were added. Every key and value is
    /// checked before anything changes: a batch that throws changes nothing. The batch is left as it was.
    /// </summary>
    /// <exception cref="InvalidOperationException">The transaction is a read transaction.</exception>
    /// <exception cref="ArgumentException">A key or value is out of bounds for this tree.</exception>
    public void Apply(WriteBatch batch)
    {
        ArgumentNullException.ThrowIfNull(batch);
        ThrowIfNotWritable();
        int count = batch.Count;
        var keys = batch.PrepareKeys();
        for (int i = 0; i < count; i++)
        {
            CheckBatchKey(keys[i].Span, i, nameof(batch));
            if (!batch.IsDelete(i)) CheckValueLength(batch.ValueLength(i), nameof(batch));
        }
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

    private void CheckBatchKey(ReadOnlySpan<byte> key, int index, string parameter)
    {
        if (key.IsEmpty) throw new ArgumentException($"Key {index} of the batch is empty (or null); a key must be at least one byte long.", parameter);
        int max = _transaction.Environment.MaxKeySize;
        if (key.Length > max) throw new ArgumentException($"Key {index} of the batch is {key.Length} bytes; the most is {max}.", parameter);
        if (BTree.IsFixedInt64 && key.Length != Int64Key.Size)
            throw new ArgumentException($"The tree '{Name}' has 8-byte integer keys; key {index} of the batch is {key.Length} bytes.", parameter);
    }

    private void CheckValueLength(long length, string parameter)
    {
        if (length > StorageEnvironment.MaxValueSize)
            throw new ArgumentException($"A value of the batch is {length} bytes; the most is {StorageEnvironment.MaxValueSize}.", parameter);
        int pageSize = _transaction.Environment.PageSize;
        long largest = Paging.FreeSpaceMap.MaxRunPages(pageSize) * pageSize;
        if (length > largest)
            throw new ArgumentException($"A value of the batch is {length} bytes; with {pageSize}-byte pages the most is {largest} (use larger pages for larger values).", parameter);
    }
}
