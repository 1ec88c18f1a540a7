using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// Every vector width of <see cref="DifferingWords.Mark"/> finds exactly the words a word-by-word comparison
/// finds. Each width is called directly (the runtime emulates a vector the CPU lacks), so every form is checked
/// on every machine, not only the one the CPU would pick.
/// </summary>
public sealed class DifferingWordsTests
{
    public static TheoryData<string> Widths => new() { "512", "256", "dispatch" };

    [Theory]
    [MemberData(nameof(Widths))]
    public void Each_width_marks_what_the_scalar_reference_marks_on_random_edits(string width)
    {
        var random = new Random(width.GetHashCode(StringComparison.Ordinal) & 0xFFFF);
        foreach (int pageSize in new[] { 512, 4096, 8192, 65536 })
        {
            var basePage = new byte[pageSize];
            var page = new byte[pageSize];
            int entries = DifferingWords.EntriesFor(pageSize);
            var expected = new ulong[entries];
            var actual = new ulong[entries];
            for (int round = 0; round < 60; round++)
            {
                random.NextBytes(basePage);
                basePage.CopyTo(page);
                int edits = random.Next(0, 20);
                for (int e = 0; e < edits; e++)
                {
                    // Single bytes (odd offsets), the first and last byte of the page, and runs of any length.
                    int at = random.Next(3) switch { 0 => 0, 1 => pageSize - 1, _ => random.Next(pageSize) };
                    int length = Math.Min(random.Next(1, random.Next(2) == 0 ? 3 : 700), pageSize - at);
                    for (int i = at; i < at + length; i++) page[i] ^= (byte)random.Next(1, 256);
                }
                bool againstZeros = random.Next(4) == 0;
                ReadOnlySpan<byte> baseSpan = againstZeros ? ReadOnlySpan<byte>.Empty : basePage;
                DifferingWords.MarkScalar(baseSpan, page, expected);
                Mark(width, baseSpan, page, actual);
                Assert.Equal(expected, actual);
            }
        }
    }

    [Theory]
    [MemberData(nameof(Widths))]
    public void Each_width_finds_a_change_in_every_word_of_an_entry(string width)
    {
        // A single changed byte, at every byte of a 4 KiB page: each of the 64 bits of each entry must light alone.
        const int pageSize = 4096;
        var basePage = new byte[pageSize];
        new Random(5).NextBytes(basePage);
        var page = (byte[])basePage.Clone();
        var differs = new ulong[DifferingWords.EntriesFor(pageSize)];
        for (int at = 0; at < pageSize; at++)
        {
            page[at] ^= 0x80;
            Mark(width, basePage, page, differs);
            int word = at / DifferingWords.Word;
            for (int w = 0; w < differs.Length; w++)
                Assert.Equal(w == word / 64 ? 1UL << (word % 64) : 0UL, differs[w]);
            page[at] ^= 0x80;
        }
    }

    [Theory]
    [MemberData(nameof(Widths))]
    public void Each_width_marks_every_word_of_a_page_that_differs_everywhere(string width)
    {
        var page = Enumerable.Repeat((byte)0xA5, 4096).ToArray();
        var differs = new ulong[DifferingWords.EntriesFor(page.Length)];
        Mark(width, ReadOnlySpan<byte>.Empty, page, differs);
        Assert.All(differs, bits => Assert.Equal(ulong.MaxValue, bits));
        Mark(width, page, page, differs);
        Assert.All(differs, bits => Assert.Equal(0UL, bits));
    }

    [Theory]
    [MemberData(nameof(Widths))]
    public void Each_width_refuses_pages_shorter_than_the_bitmap(string width)
    {
        var differs = new ulong[DifferingWords.EntriesFor(4096)];
        Assert.Throws<ArgumentException>(() => Mark(width, ReadOnlySpan<byte>.Empty, new byte[4096 - 8], differs));
        Assert.Throws<ArgumentException>(() => Mark(width, new byte[512], new byte[4096], differs));
    }

    private static void Mark(string width, ReadOnlySpan<byte> basePage, ReadOnlySpan<byte> page, Span<ulong> differs)
    {
        switch (width)
        {
            case "512": DifferingWords.MarkVector512(basePage, page, differs); break;
            case "256": DifferingWords.MarkVector256(basePage, page, differs); break;
            default: DifferingWords.Mark(basePage, page, differs); break;
        }
    }
}
