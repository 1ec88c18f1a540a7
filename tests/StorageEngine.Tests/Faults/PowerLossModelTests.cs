using StorageEngine.Platform;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// What <see cref="MemoryFileSystem.SimulatePowerLoss"/> can leave of unsynced writes beyond dropping, keeping and
/// cutting them: overlapping writes landing out of order, and torn writes that keep any subset of their 512-byte
/// sectors (half-written 4 KB pages), while synced and write-through writes always survive in order.
/// </summary>
public sealed class PowerLossModelTests
{
    private const string FilePath = "/mem/env/file";

    [Fact]
    public void Reordered_writes_can_leave_an_older_write_over_a_newer_one_but_never_without_reordering()
    {
        // Both landing, the older last, is the one outcome that needs reordering: "ooon".
        bool olderWon = false;
        for (int seed = 0; seed < 64; seed++)
        {
            Assert.NotEqual("ooon", LandTwoOverlappingWrites(seed, reorder: false));
            olderWon |= LandTwoOverlappingWrites(seed, reorder: true) == "ooon";
        }
        Assert.True(olderWon, "no seed landed the older write last");
    }

    [Fact]
    public void Scattered_tears_leave_half_written_pages_with_later_sectors_but_not_earlier_ones()
    {
        bool holeBeforeData = false;
        for (int seed = 0; seed < 64 && !holeBeforeData; seed++)
        {
            var fs = new MemoryFileSystem();
            using (var file = fs.Open(FilePath, StorageFileMode.Buffered))
            {
                file.Write(0, new byte[4096]);
                file.Flush();
                file.Write(0, Enumerable.Repeat((byte)0xFF, 4096).ToArray());
            }
            fs.SimulatePowerLoss(new Random(seed), tearWrites: true, scatterTears: true);
            var sectors = ReadSectors(fs);
            int firstHole = Array.IndexOf(sectors, false);
            holeBeforeData |= firstHole >= 0 && Array.LastIndexOf(sectors, true) > firstHole;
        }
        Assert.True(holeBeforeData, "no seed left a sector written after one that was not");
    }

    [Fact]
    public void Prefix_tears_never_leave_a_later_sector_without_the_earlier_ones()
    {
        for (int seed = 0; seed < 64; seed++)
        {
            var fs = new MemoryFileSystem();
            using (var file = fs.Open(FilePath, StorageFileMode.Buffered))
            {
                file.Write(0, new byte[4096]);
                file.Flush();
                file.Write(0, Enumerable.Repeat((byte)0xFF, 4096).ToArray());
            }
            fs.SimulatePowerLoss(new Random(seed), tearWrites: true);
            var sectors = ReadSectors(fs);
            int firstHole = Array.IndexOf(sectors, false);
            Assert.True(firstHole < 0 || Array.LastIndexOf(sectors, true) < firstHole, $"seed {seed} tore a prefix write in the middle");
        }
    }

    [Fact]
    public void Write_through_and_synced_writes_survive_reordering_and_tearing_whole()
    {
        for (int seed = 0; seed < 32; seed++)
        {
            var fs = new MemoryFileSystem();
            using (var buffered = fs.Open(FilePath, StorageFileMode.Buffered))
            using (var direct = fs.Open(FilePath, StorageFileMode.UnbufferedWriteThrough))
            {
                buffered.Write(0, "synced.."u8);
                buffered.Flush();
                buffered.Write(8, "volatile"u8);
                direct.Write(16, "durable!"u8);
                buffered.Write(24, "late...."u8);
            }
            fs.SimulatePowerLoss(new Random(seed), tearWrites: true, reorderWrites: true, scatterTears: true);
            using var reopened = fs.Open(FilePath, StorageFileMode.Buffered);
            var content = new byte[32];
            int read = reopened.Read(0, content);
            Assert.True(read >= 24, $"seed {seed}: only {read} bytes survived");
            Assert.Equal("synced.."u8.ToArray(), content[..8]);
            Assert.Equal("durable!"u8.ToArray(), content[16..24]);
        }
    }

    /// <summary>Writes "ooo" at 0, then "nnn" at 1, over synced bytes; loses power and returns what the disk holds.</summary>
    private static string LandTwoOverlappingWrites(int seed, bool reorder)
    {
        var fs = new MemoryFileSystem();
        using (var file = fs.Open(FilePath, StorageFileMode.Buffered))
        {
            file.Write(0, "----"u8);
            file.Flush();
            file.Write(0, "ooo"u8);
            file.Write(1, "nnn"u8);
        }
        fs.SimulatePowerLoss(new Random(seed), reorderWrites: reorder);
        using var reopened = fs.Open(FilePath, StorageFileMode.Buffered);
        var content = new byte[4];
        reopened.Read(0, content);
        return System.Text.Encoding.ASCII.GetString(content);
    }

    /// <summary>Which of the file's eight 512-byte sectors hold the new bytes.</summary>
    private static bool[] ReadSectors(MemoryFileSystem fs)
    {
        using var file = fs.Open(FilePath, StorageFileMode.Buffered);
        var content = new byte[4096];
        Assert.Equal(4096, file.Read(0, content));
        return Enumerable.Range(0, 8).Select(s => content[s * 512] == 0xFF).ToArray();
    }
}
