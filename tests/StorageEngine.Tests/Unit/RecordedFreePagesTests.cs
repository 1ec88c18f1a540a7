using System.Runtime.InteropServices;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Transactions;
using static StorageEngine.Tests.Unit.TestData;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The free-page count a clean close records beside its header (DataFileHeaderTrailer): the next open takes it
/// instead of counting every bitmap page, and only where it still describes the bitmaps.
/// </summary>
public sealed unsafe class RecordedFreePagesTests
{
    private static readonly string DataFile = Path.Combine("/db", EnvironmentFiles.DataFileName);

    /// <summary>An environment with free pages: values put, then most deleted, then closed cleanly.</summary>
    private static long FillAndFree(MemoryFileSystem fs)
    {
        using var env = StorageEnvironment.Open(SafeOptions(fs));
        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("t");
            for (int i = 0; i < 2000; i++) tree.Put(Key(i), Value(i, 300));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            for (int i = 0; i < 2000; i += 3) tree.Delete(Key(i));
            tx.Commit();
        }
        env.Checkpoint();
        // A second checkpoint lets the pages the deletes freed become free in the bitmaps' count too.
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("t").Put(Key(1), Value(1, 10));
            tx.Commit();
        }
        long free = env.GetStatistics().FreePages;
        Assert.True(free > 0, "the deletes freed no page");
        return free;
    }

    private static long Recorded(MemoryFileSystem fs, out DataFileHeader header)
    {
        using var file = fs.Open(DataFile, StorageFileMode.Buffered);
        header = DataFileHeaderStore.ReadNewest(file, out long recorded);
        return recorded;
    }

    private static void AssertCountMatchesBitmaps(StorageEnvironment env)
    {
        var report = env.Check();
        Assert.True(report.IsHealthy, report.ToString());
        Assert.Equal(report.FreePages, env.GetStatistics().FreePages);
    }

    [Fact]
    public void A_new_data_file_records_that_no_page_is_free()
    {
        var fs = new MemoryFileSystem();
        StorageEnvironment.Open(SafeOptions(fs)).SimulateCrash();
        fs.SimulateProcessCrash();
        // The open that created it started a session (a header without a count) over the first copy; the second
        // copy is still the creation's.
        using var file = fs.Open(DataFile, StorageFileMode.Buffered);
        var page = new byte[4096];
        DataFileHeaderStore.ReadNewest(file, out long newest);
        Assert.Equal(-1, newest);
        file.Read(4096, page);
        var created = MemoryMarshal.Read<DataFileHeader>(page);
        Assert.Equal(1, created.Sequence);
        Assert.Equal(0, MemoryMarshal.Read<DataFileHeaderTrailer>(page.AsSpan(DataFileHeaderTrailer.Offset)).FreePagesFor(created.Checksum));
    }

    [Fact]
    public void A_clean_close_records_the_free_page_count_and_the_next_open_starts_from_it()
    {
        var fs = new MemoryFileSystem();
        long free = FillAndFree(fs);
        Assert.Equal(free, Recorded(fs, out var header));
        Assert.NotEqual(0u, (uint)(header.Flags & DataFileHeaderFlags.CleanShutdown));

        using var env = StorageEnvironment.Open(SafeOptions(fs));
        Assert.Equal(free, env.GetStatistics().FreePages);
        AssertCountMatchesBitmaps(env);
        // The pages it counts are handed out again: writing does not grow the file while they last.
        long pageCount = env.GetStatistics().PageCount;
        using (var tx = env.BeginWrite())
        {
            var tree = tx.OpenTree("t");
            for (int i = 0; i < 2000; i += 3) tree.Put(Key(i), Value(i, 300));
            tx.Commit();
        }
        Assert.Equal(pageCount, env.GetStatistics().PageCount);
        AssertCountMatchesBitmaps(env);
    }

    [Fact]
    public void A_count_whose_checksum_does_not_match_its_header_is_ignored_and_the_open_counts_the_bitmaps()
    {
        var fs = new MemoryFileSystem();
        long free = FillAndFree(fs);
        Recorded(fs, out var header);
        using (var file = fs.Open(DataFile, StorageFileMode.Buffered))
        {
            // A count changed after the fact (or one left beside another header write) fails the trailer's checksum.
            var trailer = new byte[DataFileHeaderTrailer.Size];
            long at = header.Sequence % 2 * header.PageSize + DataFileHeaderTrailer.Offset;
            file.Read(at, trailer);
            MemoryMarshal.Write(trailer, free + 5);
            file.Write(at, trailer);
            file.Flush();
        }
        Assert.Equal(-1, Recorded(fs, out _));

        using var env = StorageEnvironment.Open(SafeOptions(fs));
        Assert.Equal(free, env.GetStatistics().FreePages);
        AssertCountMatchesBitmaps(env);
    }

    [Fact]
    public void A_session_that_did_not_close_cleanly_leaves_no_count_and_its_recovery_counts_the_bitmaps()
    {
        var fs = new MemoryFileSystem();
        FillAndFree(fs);
        long freeAtCrash;
        {
            var env = StorageEnvironment.Open(SafeOptions(fs));
            using (var tx = env.BeginWrite())
            {
                var tree = tx.OpenTree("t");
                for (int i = 1; i < 2000; i += 3) tree.Delete(Key(i));
                tx.Commit();
            }
            env.Checkpoint();
            freeAtCrash = env.GetStatistics().FreePages;
            env.SimulateCrash();
        }
        fs.SimulateProcessCrash();
        Assert.Equal(-1, Recorded(fs, out var header));
        Assert.Equal(0u, (uint)(header.Flags & DataFileHeaderFlags.CleanShutdown));

        using var reopened = StorageEnvironment.Open(SafeOptions(fs));
        Assert.Equal(freeAtCrash, reopened.GetStatistics().FreePages);
        AssertCountMatchesBitmaps(reopened);
    }

    /// <remarks>
    /// The distances put the bit in the partial word at the end of the file, in whole words that the open searches
    /// vectorized (at each byte of a word, and at the ends of vectors), in the next bitmap page, and on the section's
    /// last page.
    /// </remarks>
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(70)]
    [InlineData(200)]
    [InlineData(203)]
    [InlineData(1021)]
    [InlineData(4096 * 8 + 5)]
    [InlineData(-1)]
    public void A_bitmap_marking_a_page_past_the_end_free_still_fails_the_open_that_takes_a_recorded_count(long distance)
    {
        var fs = new MemoryFileSystem();
        FillAndFree(fs);
        Assert.True(Recorded(fs, out var header) >= 0);
        long pageCount = EnvironmentFiles.ReadState(header).PageCount;
        var map = new FreeSpaceMap(header.PageSize);
        long marked = distance < 0 ? map.PagesPerSection - 1 : pageCount + distance;
        long bitsPerBitmapPage = (header.PageSize - PageHeader.Size) * 8L;
        long bitmapPage = FreeSpaceMap.FirstBitmapPage + marked / bitsPerBitmapPage;
        long bit = marked % bitsPerBitmapPage;
        using (var file = fs.Open(DataFile, StorageFileMode.Buffered))
        {
            // The page's bit set and the page's checksum made right again: a bitmap newer than the header, which the
            // open must refuse rather than hand that page out twice.
            var page = new byte[header.PageSize];
            long at = bitmapPage * header.PageSize;
            file.Read(at, page);
            page[PageHeader.Size + (int)(bit / 8)] |= (byte)(1 << (int)(bit % 8));
            fixed (byte* p = page) PageChecksum.Stamp(p, header.PageSize);
            file.Write(at, page);
            file.Flush();
        }
        Assert.True(Recorded(fs, out _) >= 0);

        var e = Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(SafeOptions(fs)));
        Assert.Contains($"marks page {marked} free, past the {pageCount} pages", e.Message);
        Assert.Equal(bitmapPage * header.PageSize, e.Offset);
    }

    [Fact]
    public void A_damaged_bitmap_page_still_fails_the_open_that_takes_a_recorded_count_when_it_covers_the_end_of_the_file()
    {
        var fs = new MemoryFileSystem();
        FillAndFree(fs);
        Assert.True(Recorded(fs, out var header) >= 0);
        using (var file = fs.Open(DataFile, StorageFileMode.Buffered))
        {
            // A flipped bit below the page count, checksum left as it was.
            var page = new byte[header.PageSize];
            long at = FreeSpaceMap.FirstBitmapPage * header.PageSize;
            file.Read(at, page);
            page[PageHeader.Size + 1] ^= 0x10;
            file.Write(at, page);
            file.Flush();
        }

        Assert.Throws<CorruptionException>(() => StorageEnvironment.Open(SafeOptions(fs)));
    }
}
