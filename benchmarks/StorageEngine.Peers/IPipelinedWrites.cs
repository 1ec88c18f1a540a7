namespace StorageEngine.Peers;

/// <summary>
/// A store whose writer can begin its next transaction before the last one is durable: the commit returns once
/// the transaction is committed in memory, and a task says when it is durable. Peers without such an API (LMDB,
/// RocksDB, SQLite commit synchronously) do not implement it.
/// </summary>
public interface IPipelinedWrites
{
    /// <summary>
    /// Writes all puts in one atomic transaction and returns once the next one may begin; the task completes once
    /// this one is as durable as <see cref="IKeyValueStore.Tier"/> promises. Transactions complete in order.
    /// </summary>
    ValueTask WriteBatchAsync(ReadOnlySpan<KeyValue> puts);
}
