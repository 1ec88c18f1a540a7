namespace StorageEngine.Transactions;

/// <summary>
/// What the writer remembers, between its transactions, to choose the hot tree (see <see cref="HotTree"/>): the
/// hot tree's name, when a transaction learned it, and the tree the last commit changed alone. Touched only
/// under the write lock. A name here is a hint, checked against the tree of names before it is acted on.
/// </summary>
internal sealed class HotTreeHints
{
    /// <summary>The name of the latest state's hot tree, or null when unknown.</summary>
    public string? HotName { get; set; }

    /// <summary>The tree the last commit changed alone (and did not delete), or null.</summary>
    public string? LastSole { get; set; }
}
