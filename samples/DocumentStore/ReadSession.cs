using StorageEngine;

namespace DocumentStore;

/// <summary>
/// A read-only session on the snapshot committed when it began. Any number run beside each other and beside
/// the writer without blocking. Dispose it promptly: the engine keeps pages it may read until then.
/// </summary>
public sealed class ReadSession : DocumentSession
{
    internal ReadSession(DocumentDatabase database, ReadTransaction transaction) : base(database, transaction) { }
}
