using StorageEngine.BTrees;
using StorageEngine.Transactions;

namespace StorageEngine;

/// <summary>
/// A read-only view of one committed snapshot. It sees nothing committed after it began, never blocks the
/// writer and is never blocked by it. Dispose it promptly: pages it might read cannot be reused while it is
/// open. Values it returns stay valid until it is disposed.
/// </summary>
public sealed class ReadTransaction : Transaction
{
    private readonly int _slot;

    internal ReadTransaction(StorageEnvironment environment, Snapshot snapshot, IPageSource pages, int slot)
        : base(environment, snapshot, pages, guarded: false) => _slot = slot;

    /// <inheritdoc />
    public override bool IsWritable => false;

    private protected override void OnEnd() => Environment.EndRead(_slot);
}
