namespace StorageEngine.Journal;

/// <summary>One run of a <see cref="JournalRecord"/> read back from a journal file.</summary>
/// <param name="FirstPage">Where the run goes in the data file.</param>
/// <param name="PageCount">Pages in the run.</param>
/// <param name="BasePage">
/// <see cref="JournalPageRun.FullImage"/>, <see cref="JournalPageRun.ZeroPage"/>, <see cref="JournalPageRun.InPlace"/>,
/// or the page a diff applies to.
/// </param>
/// <param name="Offset">Where the run's bytes start in the record.</param>
/// <param name="Length">Bytes: the full images, the diff, or an in-place run's 4-byte CRC-32C.</param>
internal readonly record struct JournalRecordRun(long FirstPage, int PageCount, long BasePage, int Offset, int Length)
{
    public bool IsDiff => BasePage != JournalPageRun.FullImage;

    public bool IsInPlace => BasePage == JournalPageRun.InPlace;
}
