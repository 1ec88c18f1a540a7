using StorageEngine.Common;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// On CPUs with AVX2 but without AVX-512, <see cref="DifferingWords.Mark"/> takes its 32-byte form. That form
/// shifted the 4-bit lane mask, a <c>uint</c>, by up to 60 bits; C# takes a <c>uint</c> shift count modulo 32,
/// so a change in words 32-63 of a 512-byte entry was marked on words 0-31 instead. A commit then journaled a
/// diff without those words and sealed the page with a checksum derived from the wrong ones: the environment
/// failed its checksums at the next open. The form is called directly, so this fails without the fix on any CPU.
/// </summary>
public sealed class Avx2DiffMarksTheUpperHalfOfEachEntryTests
{
    [Fact]
    public void A_change_in_word_40_is_marked_on_word_40()
    {
        var basePage = new byte[4096];
        var page = new byte[4096];
        page[40 * DifferingWords.Word] = 1;
        var differs = new ulong[DifferingWords.EntriesFor(page.Length)];

        DifferingWords.MarkVector256(basePage, page, differs);

        Assert.Equal(1UL << 40, differs[0]);
        Assert.All(differs[1..], bits => Assert.Equal(0UL, bits));
    }
}
