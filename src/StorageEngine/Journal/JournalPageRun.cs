namespace StorageEngine.Journal;

/// <summary>
/// Contiguous pages of one record: where they go in the data file and their bytes, and for a single page that
/// changed little, the diff against a base page that the record carries instead of the image.
/// </summary>
/// <param name="FirstPage">Page number of the first page.</param>
/// <param name="PageCount">Number of pages.</param>
/// <param name="Data">Exactly PageCount pages of bytes, aligned for unbuffered I/O.</param>
/// <param name="BasePage">
/// <see cref="FullImage"/> (the record carries <paramref name="Data"/>), <see cref="ZeroPage"/> (a diff against
/// a page of zeros), <see cref="InPlace"/> (the pages went into the data file before the record) or the number of
/// the committed page the diff is against.
/// </param>
/// <param name="Diff">
/// The <see cref="PageDiff"/> encoding, or for <see cref="InPlace"/> the 4-byte CRC-32C of <paramref name="Data"/>;
/// empty for a full image.
/// </param>
internal readonly record struct JournalPageRun(long FirstPage, int PageCount, ReadOnlyMemory<byte> Data, long BasePage = JournalPageRun.FullImage,
    ReadOnlyMemory<byte> Diff = default)
{
    /// <summary>The record carries the whole image.</summary>
    public const long FullImage = long.MinValue;

    /// <summary>The record carries a diff against a page of zeros (a freshly allocated page).</summary>
    public const long ZeroPage = -1;

    /// <summary>
    /// The run's pages were written into the data file, and synced, before the record was: the record carries
    /// only their CRC-32C (as its diff), and recovery has nothing to replay for them. Only an overflow value on
    /// pages no earlier record wrote is written this way (see PageWriter.Seal).
    /// </summary>
    public const long InPlace = long.MinValue + 1;

    public bool IsInPlace => BasePage == InPlace;

    public bool IsDiff => BasePage != FullImage;
}
