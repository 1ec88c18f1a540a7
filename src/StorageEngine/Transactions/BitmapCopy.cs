using System.Runtime.CompilerServices;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

/// <summary>
/// The free-space bitmaps of one snapshot, copied while the writer was held off. Bitmap pages are changed in place
/// under their own numbers by every commit (readers never read them), so a check that walks a read snapshot while
/// writers go on cannot read the live bitmaps: a page a later commit freed would look "in use and also marked free",
/// one a later commit took "neither in use nor free". The copy is taken at the snapshot's version and read instead;
/// it costs one page per 8 x (page size - header) pages of the file, so the writer waits for a copy of about
/// 1/32,000 of the file (4 KiB pages), not for the walk. Read-only: the checker never writes bitmaps.
/// </summary>
internal sealed unsafe class BitmapCopy : IBitmapPageAccess
{
    private readonly Dictionary<long, byte[]> _pages = new();
    // A bitmap page that failed verification when it was copied: reading it throws the same error, so the check
    // reports the damage where it would have met it reading the live page.
    private readonly Dictionary<long, CorruptionException> _damaged = new();

    private BitmapCopy() { }

    /// <summary>
    /// Copies every bitmap page of a file of <paramref name="pageCount"/> pages as <paramref name="source"/> sees
    /// them (the writer's view, which must be at the snapshot the check walks).
    /// </summary>
    public static BitmapCopy Take(IBitmapPageAccess source, FreeSpaceMap freeSpace, long pageCount, int pageSize)
    {
        var copy = new BitmapCopy();
        for (long section = 0; section * freeSpace.PagesPerSection < pageCount; section++)
        {
            for (int j = 0; j < freeSpace.BitmapPagesPerSection; j++)
            {
                long page = freeSpace.BitmapPageOf(section) + j;
                try
                {
                    // Pinned: ReadBitmap hands out a pointer that must stay valid while the checker reads it.
                    var bytes = GC.AllocateUninitializedArray<byte>(pageSize, pinned: true);
                    new ReadOnlySpan<byte>(source.ReadBitmap(page), pageSize).CopyTo(bytes);
                    copy._pages[page] = bytes;
                }
                catch (CorruptionException e)
                {
                    copy._damaged[page] = e;
                }
            }
        }
        return copy;
    }

    /// <summary>Bitmap pages held (damaged ones excluded).</summary>
    public int PageCount => _pages.Count;

    /// <inheritdoc />
    /// <exception cref="CorruptionException">The page was damaged when copied.</exception>
    /// <exception cref="ArgumentOutOfRangeException">The page is not a bitmap page of the copied sections.</exception>
    public byte* ReadBitmap(long pageNumber)
    {
        if (_pages.TryGetValue(pageNumber, out var bytes)) return (byte*)Unsafe.AsPointer(ref bytes[0]);
        if (_damaged.TryGetValue(pageNumber, out var damage)) throw new CorruptionException(damage.FilePath, damage.Offset, damage.Problem);
        throw new ArgumentOutOfRangeException(nameof(pageNumber), pageNumber, "Not a bitmap page of the sections this copy holds.");
    }

    /// <inheritdoc />
    /// <exception cref="InvalidOperationException">Always: a copy for checking is never written.</exception>
    public byte* WriteBitmap(long pageNumber, bool create) =>
        throw new InvalidOperationException("A bitmap copy taken for a check is read-only.");
}
