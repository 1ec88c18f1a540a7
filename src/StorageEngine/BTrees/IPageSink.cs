namespace StorageEngine.BTrees;

/// <summary>How a B+tree changes pages inside a write transaction (copy-on-write).</summary>
internal unsafe interface IPageSink : IPageSource
{
    /// <summary>The writing transaction's id, stamped into the pages it writes.</summary>
    long TransactionId { get; }

    /// <summary>
    /// A private, writable copy of a page. When the page was already written by this transaction it is
    /// returned as is; otherwise it is copied to a newly allocated page number, the old one is freed, and the
    /// caller must repoint the parent at <paramref name="newPageNumber"/>.
    /// </summary>
    byte* Modify(long pageNumber, out long newPageNumber);

    /// <summary>A new zeroed page.</summary>
    byte* AllocatePage(out long pageNumber);

    /// <summary>
    /// A run of <paramref name="pageCount"/> contiguous new pages for an overflow value. Its contents are
    /// unspecified: the caller writes every byte.
    /// </summary>
    byte* AllocateOverflow(int pageCount, out long firstPage);

    void FreePage(long pageNumber);

    void FreeOverflow(long firstPage, int pageCount);

    /// <summary>Scratch memory of <see cref="BTree.ScratchSizeFor"/> bytes, private to the writer.</summary>
    byte* Scratch { get; }
}
