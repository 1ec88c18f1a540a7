using System.Runtime.InteropServices;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Platform;

public sealed unsafe class OsStorageFileTests : IDisposable
{
    private readonly StorageEngine.Tests.Unit.TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void Buffered_round_trips_writes_and_reads()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered);

        Assert.False(file.IsWriteThrough);
        Assert.Equal(1, file.Alignment);
        Assert.Equal(0, file.Length);

        file.Write(10, "hello"u8);
        file.Flush();
        Assert.Equal(15, file.Length);

        var buffer = new byte[20];
        Assert.Equal(15, file.Read(0, buffer));
        Assert.Equal(new byte[10], buffer[..10]);
        Assert.Equal("hello"u8.ToArray(), buffer[10..15]);
        Assert.Equal(0, file.Read(100, buffer));

        file.SetLength(12);
        Assert.Equal(12, file.Length);
        Assert.Equal(2, file.Read(10, buffer));
    }

    [Fact]
    public void Buffered_gathered_write_of_more_than_IOV_MAX_buffers()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered);
        var buffers = new List<ReadOnlyMemory<byte>>();
        for (int i = 0; i < 3000; i++)
        {
            buffers.Add(new[] { (byte)i, (byte)(i >> 8) });
        }

        file.Write(7, buffers);

        Assert.Equal(7 + 6000, file.Length);
        var content = new byte[6000];
        Assert.Equal(6000, file.Read(7, content));
        for (int i = 0; i < 3000; i++)
        {
            Assert.Equal((byte)i, content[2 * i]);
            Assert.Equal((byte)(i >> 8), content[(2 * i) + 1]);
        }
    }

    [CachestatFact]
    public void StartWriteback_sends_a_ranges_dirty_pages_to_the_device_without_a_flush_and_keeps_its_content()
    {
        const int Pages = 256;
        string path = _directory.File("data");
        using IStorageFile file = OsFileSystem.Instance.Open(path, StorageFileMode.Buffered);
        using var observer = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        var content = new byte[Pages * 4096];
        new Random(7).NextBytes(content);

        // Dirty pages stay dirty for dirty_expire_centisecs (30 s by default) unless something writes them back;
        // the kernel's flusher may do so under other writers' load, so the precondition is retried.
        ulong dirty = 0;
        for (int attempt = 0; attempt < 5 && dirty < Pages; attempt++)
        {
            content[0] = (byte)attempt;
            file.Write(0, content);
            dirty = PageCacheState.Of(observer, 0, content.Length).Dirty;
        }
        Assert.True(dirty == Pages, $"precondition: the {Pages} pages just written are dirty, found {dirty}");

        file.StartWriteback(0, content.Length);

        var waited = System.Diagnostics.Stopwatch.StartNew();
        PageCacheState.Counts counts;
        while ((counts = PageCacheState.Of(observer, 0, content.Length)).Dirty + counts.Writeback > 0 && waited.Elapsed < TimeSpan.FromSeconds(10))
            Thread.Sleep(5);
        Assert.Equal(0UL, counts.Dirty + counts.Writeback);
        var back = new byte[content.Length];
        Assert.Equal(content.Length, file.Read(0, back));
        Assert.Equal(content, back);
    }

    [Fact]
    public void StartWriteback_is_harmless_on_write_through_files_empty_ranges_and_past_the_end()
    {
        using IStorageFile unbuffered = OsFileSystem.Instance.Open(_directory.File("direct"), StorageFileMode.UnbufferedWriteThrough);
        unbuffered.StartWriteback(0, 1 << 20);
        using IStorageFile buffered = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered);
        buffered.Write(0, "abc"u8);
        buffered.StartWriteback(0, 0);
        buffered.StartWriteback(1 << 30, 4096);
        var back = new byte[3];
        Assert.Equal(3, buffered.Read(0, back));
        Assert.Equal("abc"u8.ToArray(), back);
        Assert.Equal(3, buffered.Length);
    }

    [Fact]
    public void Unbuffered_round_trips_aligned_gathered_writes()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("journal"), StorageFileMode.UnbufferedWriteThrough);
        // Where the temp directory refuses O_DIRECT (tmpfs before Linux 6.6) the file falls back to buffered,
        // and must then say so; on ext4/xfs this exercises a SafeFileHandle made from a raw O_DIRECT fd.
        Assert.Equal(file.IsWriteThrough ? 4096 : 1, file.Alignment);
        if (OperatingSystem.IsWindows())
        {
            Assert.True(file.IsWriteThrough);
        }

        int block = file.Alignment == 1 ? 4096 : file.Alignment;
        using var memory = new AlignedBuffer(block * 3);
        for (int i = 0; i < memory.Length; i++)
        {
            memory.Pointer[i] = (byte)(i / block + 1);
        }

        // Two buffers in one pwritev, then one more block on its own.
        file.Write(0, [memory.Memory[..block], memory.Memory[block..(2 * block)]]);
        file.Write(2 * block, memory.Span[(2 * block)..]);
        file.Flush();
        Assert.Equal(3L * block, file.Length);

        using var read = new AlignedBuffer(block * 4);
        Assert.Equal(3 * block, file.Read(0, read.Span));
        Assert.True(read.Span[..(3 * block)].SequenceEqual(memory.Span));

        // A read running past the end returns what there is, even though O_DIRECT cannot read unaligned tails.
        Assert.Equal(block, file.Read(2 * block, read.Span));
    }

    [Fact]
    public void Unbuffered_rejects_misaligned_writes()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("journal"), StorageFileMode.UnbufferedWriteThrough);
        if (file.Alignment == 1)
        {
            return;
        }

        using var memory = new AlignedBuffer(file.Alignment);
        Assert.Throws<ArgumentException>(() => file.Write(1, memory.Span));
        Assert.Throws<ArgumentException>(() => file.Write(0, memory.Span[..100]));
    }

    [Fact]
    public void Preallocate_extends_with_zeros_and_keeps_content()
    {
        foreach (StorageFileMode mode in new[] { StorageFileMode.Buffered, StorageFileMode.UnbufferedWriteThrough })
        {
            string path = _directory.File("prealloc-" + mode);
            using (IStorageFile buffered = OsFileSystem.Instance.Open(path, StorageFileMode.Buffered))
            {
                // An unaligned length, which O_DIRECT cannot simply append to.
                buffered.Write(0, Enumerable.Repeat((byte)0xAB, 5000).ToArray());
            }

            using IStorageFile file = OsFileSystem.Instance.Open(path, mode);
            file.Preallocate((3 << 20) + 123);
            Assert.Equal((3L << 20) + 123, file.Length);

            file.Preallocate(10);
            Assert.Equal((3L << 20) + 123, file.Length);

            using var content = new AlignedBuffer(4 << 20);
            Assert.Equal((3 << 20) + 123, file.Read(0, content.Span));
            Assert.True(content.Span[..5000].IndexOfAnyExcept((byte)0xAB) < 0);
            Assert.True(content.Span[5000..((3 << 20) + 123)].IndexOfAnyExcept((byte)0) < 0);
        }
    }

    [Fact]
    public void Map_sees_writes_made_after_mapping()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered);
        file.SetLength(8192);

        using IMappedView view = file.Map(8192);
        Assert.Equal(8192, view.Length);
        Assert.Equal(0, view.Pointer[5000]);

        file.Write(5000, "mapped"u8);
        Assert.True(new ReadOnlySpan<byte>(view.Pointer + 5000, 6).SequenceEqual("mapped"u8));
    }

    [Fact]
    public void Map_stays_valid_after_the_file_is_closed()
    {
        IMappedView view;
        using (IStorageFile file = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered))
        {
            file.Write(0, "persist"u8);
            view = file.Map(7);
        }

        using (view)
        {
            Assert.True(new ReadOnlySpan<byte>(view.Pointer, 7).SequenceEqual("persist"u8));
        }
    }

    [Fact]
    public void Map_of_unbuffered_file_sees_direct_writes()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("journal"), StorageFileMode.UnbufferedWriteThrough);
        using var block = new AlignedBuffer(4096);
        file.Write(0, block.Span);

        using IMappedView view = file.Map(4096);
        block.Span.Fill(7);
        file.Write(0, block.Span);
        Assert.Equal(7, view.Pointer[4095]);
    }

    [Fact]
    public void Map_beyond_the_end_throws_and_empty_map_works()
    {
        using IStorageFile file = OsFileSystem.Instance.Open(_directory.File("data"), StorageFileMode.Buffered);
        file.Write(0, new byte[100]);

        Assert.Throws<ArgumentOutOfRangeException>(() => file.Map(101));
        using IMappedView empty = file.Map(0);
        Assert.Equal(0, empty.Length);
    }

    [Fact]
    public void Open_creates_files_owner_only()
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        foreach (StorageFileMode mode in new[] { StorageFileMode.Buffered, StorageFileMode.UnbufferedWriteThrough })
        {
            string path = _directory.File("mode-" + mode);
            using (OsFileSystem.Instance.Open(path, mode))
            {
            }

            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(path));
        }
    }

    /// <summary>Page-aligned native memory, as unbuffered I/O needs.</summary>
    private sealed class AlignedBuffer : IDisposable
    {
        private readonly NativeMemoryManager _manager;

        public AlignedBuffer(int length)
        {
            Pointer = (byte*)NativeMemory.AlignedAlloc((nuint)length, 4096);
            NativeMemory.Clear(Pointer, (nuint)length);
            Length = length;
            _manager = new NativeMemoryManager(Pointer, length);
        }

        public byte* Pointer { get; }

        public int Length { get; }

        public Span<byte> Span => new(Pointer, Length);

        public Memory<byte> Memory => _manager.Memory;

        public void Dispose() => NativeMemory.AlignedFree(Pointer);
    }

    private sealed class NativeMemoryManager(byte* pointer, int length) : System.Buffers.MemoryManager<byte>
    {
        public override Span<byte> GetSpan() => new(pointer, length);

        public override System.Buffers.MemoryHandle Pin(int elementIndex = 0) => new(pointer + elementIndex);

        public override void Unpin()
        {
        }

        protected override void Dispose(bool disposing)
        {
        }
    }
}
