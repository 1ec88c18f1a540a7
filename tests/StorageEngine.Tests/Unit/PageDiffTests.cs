using StorageEngine.Journal;

namespace StorageEngine.Tests.Unit;

/// <summary>The page diff a journal record carries turns its base page into the committed page exactly.</summary>
public sealed class PageDiffTests
{
    [Theory]
    [InlineData(4096)]
    [InlineData(32768)]
    public void A_diff_applied_to_its_base_gives_the_page_back_for_random_edits(int pageSize)
    {
        var random = new Random(pageSize);
        var output = new byte[PageDiff.MaxLength(pageSize)];
        for (int round = 0; round < 500; round++)
        {
            var basePage = new byte[pageSize];
            random.NextBytes(basePage);
            var page = (byte[])basePage.Clone();
            int edits = random.Next(0, 12);
            for (int e = 0; e < edits; e++)
            {
                int at = random.Next(pageSize);
                int length = Math.Min(random.Next(1, 200), pageSize - at);
                random.NextBytes(page.AsSpan(at, length));
            }
            int written = PageDiff.Encode(basePage, page, output);
            if (written < 0) continue; // too different: the record carries the full image
            var rebuilt = (byte[])basePage.Clone();
            Assert.True(PageDiff.TryApply(output.AsSpan(0, written), rebuilt));
            Assert.Equal(page, rebuilt);
        }
    }

    [Theory]
    [InlineData(4096, false)]
    [InlineData(4096, true)]
    [InlineData(8192, false)]
    [InlineData(32768, true)]
    public void The_ranges_are_those_a_word_by_word_comparison_finds(int pageSize, bool againstZeros)
    {
        var random = new Random(pageSize + (againstZeros ? 1 : 0));
        var output = new byte[PageDiff.MaxLength(pageSize)];
        var expected = new byte[PageDiff.MaxLength(pageSize)];
        for (int round = 0; round < 400; round++)
        {
            var basePage = new byte[pageSize];
            if (!againstZeros) random.NextBytes(basePage);
            var page = (byte[])basePage.Clone();
            // Single bytes and words at the edges, and gaps of one and two equal words between changed ones.
            int edits = random.Next(0, 40);
            for (int e = 0; e < edits; e++)
            {
                int word = random.Next(4) switch { 0 => 0, 1 => pageSize / 8 - 1, _ => random.Next(pageSize / 8) };
                page[word * 8 + random.Next(8)] ^= (byte)random.Next(1, 256);
                if (random.Next(3) == 0 && word + 3 < pageSize / 8) page[(word + 2 + random.Next(2)) * 8] ^= 1;
            }
            int written = PageDiff.Encode(againstZeros ? default : basePage, page, output);
            int reference = ReferenceEncode(againstZeros ? null : basePage, page, expected);
            Assert.Equal(reference, written);
            if (written > 0) Assert.True(output.AsSpan(0, written).SequenceEqual(expected.AsSpan(0, written)), $"round {round}: the ranges differ from the reference");
        }
    }

    /// <summary>The format's definition, a word at a time: a range per stretch of differing words, bridging single equal words.</summary>
    private static int ReferenceEncode(byte[]? basePage, byte[] page, Span<byte> output)
    {
        int words = page.Length / 8;
        bool Differs(int word) => BitConverter.ToUInt64(page, word * 8) != (basePage is null ? 0 : BitConverter.ToUInt64(basePage, word * 8));
        int written = 0;
        for (int word = 0; word < words; word++)
        {
            if (!Differs(word)) continue;
            int end = word + 1;
            while (end < words && (Differs(end) || (end + 1 < words && Differs(end + 1)))) end += Differs(end) ? 1 : 2;
            int length = (end - word) * 8;
            if (written + 4 + length > PageDiff.MaxLength(page.Length)) return -1;
            System.Buffers.Binary.BinaryPrimitives.WriteUInt16LittleEndian(output[written..], (ushort)(word * 8));
            System.Buffers.Binary.BinaryPrimitives.WriteUInt16LittleEndian(output[(written + 2)..], (ushort)length);
            page.AsSpan(word * 8, length).CopyTo(output[(written + 4)..]);
            written += 4 + length;
            word = end - 1;
        }
        return written;
    }

    [Fact]
    public void An_unchanged_page_has_an_empty_diff_and_a_small_edit_a_small_one()
    {
        var basePage = Enumerable.Range(0, 4096).Select(i => (byte)(i * 7)).ToArray();
        var output = new byte[PageDiff.MaxLength(4096)];
        Assert.Equal(0, PageDiff.Encode(basePage, basePage, output));
        var page = (byte[])basePage.Clone();
        page[1000] ^= 1;
        page[1003] ^= 1;
        Assert.Equal(4 + 8, PageDiff.Encode(basePage, page, output));
    }

    [Fact]
    public void Against_zeros_only_the_written_parts_of_a_new_page_are_carried()
    {
        var page = new byte[4096];
        page.AsSpan(0, 64).Fill(1);
        page.AsSpan(4000, 96).Fill(2);
        var output = new byte[PageDiff.MaxLength(4096)];
        int written = PageDiff.Encode(default, page, output);
        Assert.Equal(4 + 64 + 4 + 96, written);
        var rebuilt = new byte[4096];
        Assert.True(PageDiff.TryApply(output.AsSpan(0, written), rebuilt));
        Assert.Equal(page, rebuilt);
    }

    [Fact]
    public void A_page_that_changed_mostly_is_left_to_the_full_image()
    {
        var basePage = new byte[4096];
        var page = new byte[4096];
        new Random(1).NextBytes(page);
        Assert.Equal(-1, PageDiff.Encode(basePage, page, new byte[PageDiff.MaxLength(4096)]));
    }

    [Theory]
    [InlineData(new byte[] { 0, 0 })]                      // a range header cut short
    [InlineData(new byte[] { 0, 0, 8, 0, 1, 2 })]          // a range longer than the diff
    [InlineData(new byte[] { 0xFF, 0x0F, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8 })] // a range past the end of the page
    public void A_malformed_diff_is_refused_not_applied(byte[] diff)
    {
        var page = new byte[4096];
        Assert.False(PageDiff.TryApply(diff, page));
    }
}
