using StorageEngine.BTrees;

namespace StorageEngine;

/// <summary>
/// Reads what can still be read from a damaged tree. A cursor stops with <see cref="CorruptionException"/> at the
/// first page that fails its checksum or structure; a salvage walks the tree from its root and skips each such
/// page (and the subtree under it), reporting it, so that every entry on an undamaged page is recovered.
/// </summary>
public static unsafe class TreeSalvage
{
    /// <summary>
    /// Visits every entry of <paramref name="tree"/> that lies on a readable page, in key order, skipping damaged
    /// pages. Meant for a read transaction over an environment that <see cref="StorageEnvironment.Check()"/> found
    /// damaged; on an undamaged tree it visits exactly what a cursor does.
    /// </summary>
    /// <param name="tree">The tree, opened in a transaction that stays open during the call.</param>
    /// <param name="visit">Receives each entry read.</param>
    /// <param name="cancellationToken">Checked once per page.</param>
    /// <exception cref="ObjectDisposedException">The tree's transaction has ended.</exception>
    public static SalvageResult Salvage(this Tree tree, SalvageVisitor visit, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(tree);
        ArgumentNullException.ThrowIfNull(visit);
        // Entered like every operation: a write transaction's tree objects are reused once it ends.
        var transaction = tree.Enter(Operations.Salvage, out bool asOwner);
        try
        {
            var btree = tree.BTree;
            var header = btree.Header;
            var damaged = new List<DamagedPage>();
            long read = 0;
            if (header.Depth < 1 || header.Depth > BTree.MaxDepth)
                damaged.Add(new DamagedPage(header.RootPage, $"the tree's header records a depth of {header.Depth}, outside 1 to {BTree.MaxDepth}", "the whole tree"));
            else
                Walk(btree, header.RootPage, header.Depth, visit, damaged, ref read, cancellationToken);
            return new SalvageResult(read, header.EntryCount, damaged);
        }
        finally
        {
            transaction.Exit(asOwner);
        }
    }

    private static void Walk(BTree tree, long pageNumber, int level, SalvageVisitor visit, List<DamagedPage> damaged, ref long read,
        CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        bool leaf = level == 1;
        string skipped = leaf ? "the entries of this leaf page" : $"the subtree under this branch page ({level - 1} levels)";
        byte* page;
        try
        {
            page = tree.Source.GetPage(pageNumber);
        }
        catch (CorruptionException e)
        {
            damaged.Add(new DamagedPage(pageNumber, e.Problem, skipped));
            return;
        }
        if (leaf ? !Node.IsLeaf(page) : !Node.IsBranch(page))
        {
            damaged.Add(new DamagedPage(pageNumber, $"it should be a {(leaf ? "leaf" : "branch")} page at level {level} and is not", skipped));
            return;
        }
        int count = Node.Count(page);
        for (int i = 0; i < count; i++)
        {
            byte* entry = Node.Entry(page, i);
            if (!leaf)
            {
                Walk(tree, Node.Child(entry), level - 1, visit, damaged, ref read, cancellationToken);
                continue;
            }
            ReadOnlySpan<byte> value;
            try
            {
                value = tree.ReadValue(entry);
            }
            catch (CorruptionException e)
            {
                long first = Node.LeafKind(entry) == Node.OverflowValue ? *(long*)Node.LeafPayload(entry) : pageNumber;
                damaged.Add(new DamagedPage(first, e.Problem, $"the value of one entry (key {Convert.ToHexString(Node.LeafKey(entry))})"));
                continue;
            }
            visit(Node.LeafKey(entry), value);
            read++;
        }
    }
}
