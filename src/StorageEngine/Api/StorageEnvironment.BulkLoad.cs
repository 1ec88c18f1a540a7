namespace StorageEngine;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Puts every item into the tree <paramref name="treeName"/> (created when missing), committing a write
    /// transaction whenever a batch reaches <see cref="BulkLoadOptions.BatchItems"/> items or
    /// <see cref="BulkLoadOptions.BatchBytes"/> bytes, so that any number of items loads in bounded memory.
    /// Existing keys are replaced. Items in ascending key order load fastest and fill pages completely.
    /// </summary>
    /// <param name="treeName">The tree to load into.</param>
    /// <param name="items">The entries; enumerated once, lazily. A null key or value is refused.</param>
    /// <param name="options">Batch limits and the tree's options; default <see cref="BulkLoadOptions"/>.</param>
    /// <param name="progress">Receives a report on the calling thread after each committed batch.</param>
    /// <param name="cancellationToken">Checked between items.</param>
    /// <returns>The number of items loaded.</returns>
    /// <remarks>
    /// The load is not one transaction: each batch is committed as it fills (with the environment's
    /// <see cref="DurabilityMode"/>), and other writers may commit between batches. When an item is refused, the
    /// enumeration throws or the token is cancelled, the batch being built is discarded and the batches already
    /// committed stay.
    /// </remarks>
    /// <exception cref="ArgumentException">An item has a null, empty or oversized key or value, or the tree exists with other options.</exception>
    /// <exception cref="InvalidOperationException">The environment is read-only.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled; the batches committed before stay.</exception>
    public long BulkLoad(string treeName, IEnumerable<KeyValuePair<byte[], byte[]>> items, BulkLoadOptions? options = null,
        IProgress<BulkLoadProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(treeName);
        ArgumentNullException.ThrowIfNull(items);
        options ??= new BulkLoadOptions();
        if (options.BatchItems < 1) throw new ArgumentOutOfRangeException(nameof(options), options.BatchItems, "BulkLoadOptions.BatchItems must be positive.");
        if (options.BatchBytes < 1) throw new ArgumentOutOfRangeException(nameof(options), options.BatchBytes, "BulkLoadOptions.BatchBytes must be positive.");
        ThrowIfReadOnly("bulk load");
        cancellationToken.ThrowIfCancellationRequested();
        long? total = items.TryGetNonEnumeratedCount(out int count) ? count : null;
        long loaded = 0, bytes = 0;
        int batches = 0;
        var tx = BeginWrite();
        try
        {
            var tree = tx.CreateTree(treeName, options.TreeOptions);
            int batchItems = 0;
            long batchBytes = 0;
            foreach (var item in items)
            {
                cancellationToken.ThrowIfCancellationRequested();
                if (item.Key is null) throw new ArgumentException($"Item {loaded + batchItems} has a null key.", nameof(items));
                if (item.Value is null) throw new ArgumentException($"Item {loaded + batchItems} has a null value.", nameof(items));
                tree.Put(item.Key, item.Value);
                batchItems++;
                batchBytes += item.Key.Length + item.Value.Length;
                if (batchItems < options.BatchItems && batchBytes < options.BatchBytes) continue;
                tx.Commit();
                (loaded, bytes, batches) = (loaded + batchItems, bytes + batchBytes, batches + 1);
                (batchItems, batchBytes) = (0, 0);
                progress?.Report(new BulkLoadProgress { ItemsLoaded = loaded, BytesLoaded = bytes, BatchesCommitted = batches, TotalItems = total });
                tx = BeginWrite();
                tree = tx.CreateTree(treeName, options.TreeOptions);
            }
            cancellationToken.ThrowIfCancellationRequested();
            tx.Commit();
            // The last batch, unless the previous one ended exactly with the input (an empty load still creates the tree).
            if (batchItems > 0 || batches == 0)
            {
                (loaded, bytes, batches) = (loaded + batchItems, bytes + batchBytes, batches + 1);
                progress?.Report(new BulkLoadProgress { ItemsLoaded = loaded, BytesLoaded = bytes, BatchesCommitted = batches, TotalItems = total });
            }
            return loaded;
        }
        finally
        {
            tx.Dispose();
        }
    }
}
