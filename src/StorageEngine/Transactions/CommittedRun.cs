using StorageEngine.Common;
using StorageEngine.Journal;

namespace StorageEngine.Transactions;

/// <summary>
/// Pages a committed transaction wrote, in the buffer that holds them until they reach the data file.
/// </summary>
/// <param name="FirstPage">Page number of the first page.</param>
/// <param name="PageCount">Number of pages (more than one only for an overflow value).</param>
/// <param name="Buffer">Exactly <paramref name="PageCount"/> pages; from the writer's pool, and returned to it.</param>
/// <param name="IsOverflow">An overflow value rather than a tree or bitmap page.</param>
internal readonly record struct CommittedRun(long FirstPage, int PageCount, NativeBuffer Buffer, bool IsOverflow)
{
    public JournalPageRun ToJournalRun() => new(FirstPage, PageCount, Buffer.Memory);

    public void Release(PageBufferPool pool) => pool.Return(Buffer);
}
