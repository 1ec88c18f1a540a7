namespace StorageEngine.Paging;

/// <summary>How the free-space map reaches its bitmap pages inside the writing transaction.</summary>
internal unsafe interface IBitmapPageAccess
{
    /// <summary>The bitmap page as this transaction sees it.</summary>
    byte* ReadBitmap(long pageNumber);

    /// <summary>
    /// The bitmap page, writable in place under its own number (readers never look at bitmap pages).
    /// With <paramref name="create"/>, a new page of all zero bits.
    /// </summary>
    byte* WriteBitmap(long pageNumber, bool create);
}
