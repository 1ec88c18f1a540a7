using System.Text;
using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>The CRC-32C of pages and journal records: the published check values, and any length and split against a bit-at-a-time reference.</summary>
public sealed class Crc32CTests
{
    [Fact]
    public void Matches_the_published_check_values()
    {
        Assert.Equal(0xE3069283u, Crc32C.Compute(Encoding.ASCII.GetBytes("123456789")));
        Assert.Equal(0x8A9136AAu, Crc32C.Compute(new byte[32]));
        Assert.Equal(0x62A8AB43u, Crc32C.Compute(Enumerable.Repeat((byte)0xFF, 32).ToArray()));
    }

    [Fact]
    public void Every_length_and_split_matches_a_bit_at_a_time_reference()
    {
        var random = new Random(7);
        var data = new byte[80_000];
        random.NextBytes(data);
        // Lengths around the lane boundaries (3 × 256 and 3 × 8,192 bytes), then random ones.
        var lengths = new List<int> { 0, 1, 7, 8, 767, 768, 769, 4096, 24_575, 24_576, 24_577, 49_152 + 768 + 9 };
        for (int i = 0; i < 200; i++) lengths.Add(random.Next(data.Length - 16));
        foreach (int length in lengths)
        {
            int offset = random.Next(16);
            var slice = data.AsSpan(offset, length);
            uint expected = Reference(slice);
            Assert.Equal(expected, Crc32C.Compute(slice));
            int split = random.Next(length + 1);
            uint running = Crc32C.Append(Crc32C.Append(Crc32C.Start, slice[..split]), slice[split..]);
            Assert.Equal(expected, Crc32C.Finish(running));
            // Every implementation this machine can run, whichever Append picks on it.
            Assert.Equal(expected, Crc32C.Finish(Crc32C.AppendLanes(Crc32C.Start, slice)));
            Assert.Equal(expected, Crc32C.Finish(Crc32C.AppendTable(Crc32C.Start, slice)));
            if (Crc32CWide.IsSupported && length - split >= Crc32CWide.MinimumLength)
                Assert.Equal(expected, Crc32C.Finish(Crc32CWide.Append(Crc32C.AppendLanes(Crc32C.Start, slice[..split]), slice[split..])));
        }
    }

    [Fact]
    public void The_folded_CRC_matches_the_reference_at_every_length_around_its_steps()
    {
        // Skipped where the CPU lacks 512-bit carry-less multiplies; the lanes then serve every length.
        if (!Crc32CWide.IsSupported) return;
        var random = new Random(11);
        var data = new byte[2_000];
        random.NextBytes(data);
        // Every length from its minimum past several 256-byte steps, so each tail (64-, 16- and 1-byte) occurs.
        for (int length = Crc32CWide.MinimumLength; length <= 1_300; length++)
        {
            int offset = random.Next(64);
            var slice = data.AsSpan(offset, length);
            uint start = (uint)random.Next();
            Assert.Equal(Crc32C.AppendLanes(start, slice), Crc32CWide.Append(start, slice));
        }
        Assert.Throws<ArgumentOutOfRangeException>(() => Crc32CWide.Append(Crc32C.Start, data.AsSpan(0, Crc32CWide.MinimumLength - 1)));
    }

    [Fact]
    public void The_table_matches_the_reference_from_any_running_value()
    {
        // The table is what CPUs without a CRC32 instruction run; it runs everywhere, so it is checked everywhere.
        var random = new Random(13);
        var data = new byte[3_000];
        random.NextBytes(data);
        for (int length = 0; length <= 1_100; length += 1 + length / 64)
        {
            int offset = random.Next(7);
            var slice = data.AsSpan(offset, length);
            Assert.Equal(Reference(slice), Crc32C.Finish(Crc32C.AppendTable(Crc32C.Start, slice)));
            uint start = (uint)random.Next();
            Assert.Equal(ReferenceFrom(start, slice), Crc32C.AppendTable(start, slice));
            Assert.Equal(ReferenceFrom(start, slice), Crc32C.AppendLanes(start, slice));
        }
    }

    [Fact]
    public void The_sparse_word_step_matches_the_reference()
    {
        // AppendWord is the derived page checksum's step; it exists only with the CPU's instructions.
        if (!Crc32C.SparseSupported) return;
        var random = new Random(17);
        var word = new byte[8];
        for (int i = 0; i < 1_000; i++)
        {
            random.NextBytes(word);
            uint start = (uint)random.Next();
            Assert.Equal(ReferenceFrom(start, word), Crc32C.AppendWord(start, BitConverter.ToUInt64(word)));
        }
    }

    private static uint ReferenceFrom(uint crc, ReadOnlySpan<byte> data)
    {
        foreach (byte b in data)
        {
            crc ^= b;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
        return crc;
    }

    private static uint Reference(ReadOnlySpan<byte> data)
    {
        uint crc = 0xFFFFFFFFu;
        foreach (byte b in data)
        {
            crc ^= b;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        }
        return ~crc;
    }
}
