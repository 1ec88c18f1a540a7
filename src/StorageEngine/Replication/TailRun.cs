namespace StorageEngine.Replication;

/// <summary>One run of a <see cref="TailRecord"/>.</summary>
/// <param name="FirstPage">Where the run goes.</param>
/// <param name="PageCount">Pages in the run.</param>
/// <param name="BasePage">Journal.JournalPageRun.FullImage, ZeroPage, or the page a diff applies to.</param>
/// <param name="Offset">Where the run's bytes start in the record.</param>
/// <param name="Length">Bytes: the images, or the diff.</param>
internal readonly record struct TailRun(long FirstPage, int PageCount, long BasePage, int Offset, int Length);
