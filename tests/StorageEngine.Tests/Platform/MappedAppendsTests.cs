using StorageEngine.Platform;

namespace StorageEngine.Tests.Platform;

/// <summary>
/// A file opened with <see cref="StorageFileMode.MappedAppends"/> (a Lazy journal's) must behave exactly as a
/// buffered file does, whichever of its writes go through the mapping and whichever are plain writes.
/// </summary>
public sealed class MappedAppendsTests : IDisposable
{
    private const StorageFileMode Mode = StorageFileMode.Buffered | StorageFileMode.MappedAppends;
    private readonly StorageEngine.Tests.Unit.TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Appends_within_the_length_are_seen_by_reads_other_handles_and_a_reopen()
    {
        string path = _directory.File("journal");
        var expected = new byte[3 * AppendMapping.ReserveChunk + 12345];
        var random = new Random(7);
        using (var file = OsFileSystem.Instance.Open(path, Mode))
        {
            file.SetLength(expected.Length);
            long offset = 0;
            while (offset < expected.Length)
            {
                // Records of varied sizes, gathered and single, crossing the reservation chunks; the large ones are
                // written rather than copied, into pages the mapping also holds.
                int wanted = random.Next(8) == 0 ? random.Next(AppendMapping.MaxCopyLength, 4 * AppendMapping.MaxCopyLength) : random.Next(1, 9000);
                int length = (int)Math.Min(expected.Length - offset, wanted);
                random.NextBytes(expected.AsSpan((int)offset, length));
                if (length % 2 == 0)
                {
                    file.Write(offset, expected.AsSpan((int)offset, length));
                }
                else
                {
                    int half = length / 2;
                    file.Write(offset, [expected.AsMemory((int)offset, half), expected.AsMemory((int)offset + half, length - half)]);
                }

                offset += length;
            }

            Assert.Equal(expected.Length, file.Length);
            Assert.Equal(expected, ReadAll(file));
            using var other = OsFileSystem.Instance.Open(path, StorageFileMode.Buffered);
            Assert.Equal(expected, ReadAll(other));
            file.Flush();
        }

        using var reopened = OsFileSystem.Instance.Open(path, StorageFileMode.Buffered);
        Assert.Equal(expected, ReadAll(reopened));
    }

    [Fact]
    public void Writes_past_the_end_extend_the_file_and_later_writes_within_it_are_mapped_again()
    {
        using var file = OsFileSystem.Instance.Open(_directory.File("journal"), Mode);
        file.Write(0, "first"u8);
        Assert.Equal(5, file.Length);
        file.SetLength(1 << 16);
        file.Write(5, "second"u8);
        file.Write((1 << 16) - 2, "past the end"u8);
        Assert.Equal((1 << 16) + 10, file.Length);
        file.Write(100, "inside"u8);

        var all = ReadAll(file);
        Assert.Equal("firstsecond"u8.ToArray(), all[..11]);
        Assert.Equal("inside"u8.ToArray(), all[100..106]);
        Assert.Equal("past the end"u8.ToArray(), all[((1 << 16) - 2)..]);
        Assert.All(all[11..100], b => Assert.Equal(0, b));
    }

    [Fact]
    public void Shortening_the_file_under_its_mapping_loses_nothing_kept_and_faults_nothing()
    {
        using var file = OsFileSystem.Instance.Open(_directory.File("journal"), Mode);
        file.SetLength(4 * AppendMapping.ReserveChunk);
        file.Write(3 * AppendMapping.ReserveChunk, "beyond the cut"u8);
        file.Write(10, "kept"u8);
        file.SetLength(AppendMapping.ReserveChunk);
        file.Write(20, "after the cut"u8);
        file.Write(AppendMapping.ReserveChunk - 3, "grows it"u8);

        Assert.Equal(AppendMapping.ReserveChunk + 5, file.Length);
        var all = ReadAll(file);
        Assert.Equal("kept"u8.ToArray(), all[10..14]);
        Assert.Equal("after the cut"u8.ToArray(), all[20..33]);
        Assert.Equal("grows it"u8.ToArray(), all[(int)(AppendMapping.ReserveChunk - 3)..]);
    }

    [Fact]
    public void Flush_after_mapped_writes_succeeds_and_writes_after_close_are_refused()
    {
        var file = OsFileSystem.Instance.Open(_directory.File("journal"), Mode);
        file.SetLength(8192);
        file.Write(0, "record"u8);
        file.Flush();
        file.Dispose();
        Assert.ThrowsAny<ObjectDisposedException>(() => file.Write(0, "late"u8));
    }

    private static byte[] ReadAll(IStorageFile file)
    {
        var content = new byte[file.Length];
        Assert.Equal(content.Length, file.Read(0, content));
        return content;
    }
}
