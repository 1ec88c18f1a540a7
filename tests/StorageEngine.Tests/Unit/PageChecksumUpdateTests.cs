using StorageEngine.Common;
using StorageEngine.Paging;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// A page's checksum derived from its base's and the words that changed (as a commit seals a copied page) is the
/// checksum of the whole page, wherever the changes fall.
/// </summary>
public sealed unsafe class PageChecksumUpdateTests
{
    [Fact]
    public void Running_over_zeros_by_multiplication_equals_running_over_them()
    {
        var random = new Random(3);
        var zeros = new byte[66_048];
        var counts = new List<int> { 8, 504, 512, 520, 4088, 4096, 65_528, 65_536, 66_040 };
        for (int i = 0; i < 100; i++) counts.Add(8 * random.Next(1, zeros.Length / 8));
        foreach (int count in counts)
        {
            uint register = (uint)random.Next() | 1;
            Assert.Equal(Crc32C.AppendLanes(register, zeros.AsSpan(0, count)), Crc32C.AppendZeros(register, count));
        }
        Assert.Throws<ArgumentOutOfRangeException>(() => Crc32C.AppendZeros(1, 12));
        Assert.Throws<ArgumentOutOfRangeException>(() => Crc32C.AppendZeros(1, zeros.Length));
    }

    [Theory]
    [InlineData(4096)]
    [InlineData(8192)]
    [InlineData(65536)]
    public void The_derived_checksum_is_the_whole_pages_checksum(int pageSize)
    {
        var random = new Random(pageSize);
        var basePage = new byte[pageSize];
        var page = new byte[pageSize];
        var differs = new ulong[DifferingWords.EntriesFor(pageSize)];
        int derived = 0;
        for (int round = 0; round < 400; round++)
        {
            random.NextBytes(basePage);
            fixed (byte* b = basePage) PageChecksum.Stamp(b, pageSize);
            basePage.CopyTo(page);
            // Edits at the page's edges, in the header (the checksum field's own word included), and anywhere.
            int edits = random.Next(0, 12);
            for (int e = 0; e < edits; e++)
            {
                int at = random.Next(4) switch { 0 => 0, 1 => pageSize - 8, 2 => random.Next(32), _ => random.Next(pageSize) };
                int length = Math.Min(random.Next(1, random.Next(2) == 0 ? 9 : 300), pageSize - at);
                random.NextBytes(page.AsSpan(at, length));
            }
            // A stale or scribbled checksum in the copy counts for nothing: the field is taken as zero.
            if (random.Next(3) == 0) random.NextBytes(page.AsSpan(PageHeader.ChecksumOffset, 4));
            DifferingWords.Mark(basePage, page, differs);
            fixed (byte* b = basePage)
            fixed (byte* p = page)
            {
                uint expected = PageChecksum.Compute(p, pageSize);
                if (PageChecksum.TryUpdate(b, p, pageSize, differs, out uint checksum))
                {
                    Assert.Equal(expected, checksum);
                    derived++;
                }
            }
        }
        // Without the instructions every page is checksummed whole.
        if (Crc32C.SparseSupported) Assert.True(derived > 300, $"only {derived} of 400 small changes were derived rather than recomputed");
        else Assert.Equal(0, derived);
    }

    [Fact]
    public void A_damaged_base_gives_a_checksum_that_still_fails()
    {
        const int pageSize = 4096;
        var basePage = new byte[pageSize];
        new Random(5).NextBytes(basePage);
        fixed (byte* b = basePage) PageChecksum.Stamp(b, pageSize);
        basePage[1000] ^= 0x10; // damaged after it was stamped
        var page = (byte[])basePage.Clone();
        page[3000] ^= 0xFF;
        var differs = new ulong[DifferingWords.EntriesFor(pageSize)];
        DifferingWords.Mark(basePage, page, differs);
        fixed (byte* b = basePage)
        fixed (byte* p = page)
        {
            bool derived = PageChecksum.TryUpdate(b, p, pageSize, differs, out uint checksum);
            // Where the CPU lacks the instructions nothing is derived: the page is checksummed whole, damage included.
            Assert.Equal(Crc32C.SparseSupported, derived);
            if (!derived) return;
            ((PageHeader*)p)->Checksum = checksum;
            Assert.False(PageChecksum.IsValid(p, pageSize, ((PageHeader*)p)->PageNumber));
        }
    }

    [Fact]
    public void A_page_mostly_rewritten_is_left_to_the_full_computation()
    {
        const int pageSize = 4096;
        var basePage = new byte[pageSize];
        var page = new byte[pageSize];
        new Random(9).NextBytes(page);
        var differs = new ulong[DifferingWords.EntriesFor(pageSize)];
        DifferingWords.Mark(basePage, page, differs);
        fixed (byte* b = basePage)
        fixed (byte* p = page)
            Assert.False(PageChecksum.TryUpdate(b, p, pageSize, differs, out _));
    }
}
