namespace StorageEngine.BTrees;

/// <summary>How a B+tree reads pages: through the transaction it runs in, which knows the snapshot.</summary>
internal unsafe interface IPageSource
{
    int PageSize { get; }

    /// <summary>A tree page of the snapshot, checksum-verified on first use. Throws <see cref="CorruptionException"/>.</summary>
    byte* GetPage(long pageNumber);

    /// <summary>
    /// Starts bringing the first <paramref name="bytes"/> of a tree page into the CPU cache, for a cursor that
    /// will soon read them. Only a hint: it neither verifies the page nor throws, and does nothing for a page
    /// number outside the snapshot.
    /// </summary>
    void Prefetch(long pageNumber, int bytes);

    /// <summary>The first byte of an overflow run holding a value of <paramref name="length"/> bytes, verified against <paramref name="checksum"/>.</summary>
    byte* GetOverflow(long firstPage, long length, uint checksum);

    /// <summary>An exception reporting that a page holds something a valid tree cannot.</summary>
    CorruptionException Corruption(long pageNumber, string problem);
}
