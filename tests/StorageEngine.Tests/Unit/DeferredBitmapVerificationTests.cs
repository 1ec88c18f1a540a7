using StorageEngine.Paging;
using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// After a clean close an open takes the recorded free-page count and reads only the last section's bitmap pages
/// (see RecordedFreePagesTests); the bitmap pages of earlier sections, in files of more than one section (over
/// about 1.14 GB with 4 KiB pages), are verified when first read. A damaged one must then be reported as
/// corruption at its own place in the file, and nothing may be written on it.
/// </summary>
public sealed class DeferredBitmapVerificationTests
{
    private const int ValueBytes = 64 << 20;

    [Fact]
    public void A_damaged_bitmap_page_of_an_earlier_section_is_reported_where_it_lies_when_first_read()
    {
        using var directory = new TempDirectory("bitmap");
        var options = new StorageEnvironmentOptions { Path = directory.Path, Durability = DurabilityMode.Safe };
        var map = new FreeSpaceMap(options.PageSize);
        int values;
        using (var env = StorageEnvironment.Open(options))
        {
            // Large values go into the data file once (in place, not through the journal), so a second section
            // costs about 1.2 GB of writes and no more memory than one value.
            var value = new byte[ValueBytes];
            for (values = 0; env.GetStatistics().PageCount <= map.PagesPerSection; values++)
            {
                using var tx = env.BeginWrite();
                tx.CreateTree("values").Put(BitConverter.GetBytes(values), value);
                tx.Commit();
            }
            // Free the first section's first value, so that a later allocation looks there first.
            using (var tx = env.BeginWrite())
            {
                Assert.True(tx.OpenTree("values")!.Delete(BitConverter.GetBytes(0)));
                tx.Commit();
            }
            // The first checkpoint writes the delete; the pages it freed are free in the bitmaps only after the second.
            env.Checkpoint();
            env.Checkpoint();
        }

        long bitmapOffset = map.BitmapPageOf(0) * options.PageSize;
        string dataFile = Path.Combine(directory.Path, EnvironmentFiles.DataFileName);
        using (var file = new FileStream(dataFile, FileMode.Open, FileAccess.ReadWrite))
        {
            // A byte in the middle of the page's bits, which its checksum covers.
            file.Position = bitmapOffset + options.PageSize / 2;
            int original = file.ReadByte();
            file.Position--;
            file.WriteByte((byte)(original ^ 0x5A));
        }

        using (var env = StorageEnvironment.Open(options))
        {
            // The open read the last section's bitmap pages only, so it succeeded and readers are unaffected.
            using (var read = env.BeginRead())
            {
                Assert.Equal(values - 1, read.OpenTree("values")!.Count);
            }

            // The first allocation searches the first section and finds its bitmap damaged.
            var failure = Assert.Throws<CorruptionException>(() =>
            {
                using var tx = env.BeginWrite();
                tx.OpenTree("values")!.Put(BitConverter.GetBytes(values), new byte[1 << 20]);
                tx.Commit();
            });
            Assert.Equal(dataFile, failure.FilePath);
            Assert.Equal(bitmapOffset, failure.Offset);

            var report = env.Check();
            Assert.False(report.IsHealthy);
            Assert.Contains(report.Problems, problem => problem.Contains($"{bitmapOffset}", StringComparison.Ordinal));
        }
    }
}
