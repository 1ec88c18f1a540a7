using StorageEngine.Platform;

namespace StorageEngine.Tests.Platform;

public sealed class MemoryFileSystemTests
{
    private const string Directory = "/mem/env";
    private const string DataPath = "/mem/env/data";

    [Fact]
    public void Power_loss_drops_unsynced_writes_and_keeps_flushed_ones()
    {
        var fs = new MemoryFileSystem();
        using (IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered))
        {
            file.Write(0, "durable"u8);
            file.Flush();
            file.Write(0, "VOLA"u8);
            file.Write(7, "tile"u8);
            Assert.Equal("VOLAbletile", ReadAll(file));
        }

        fs.SimulatePowerLoss();

        using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal("durable", ReadAll(reopened));
    }

    [Fact]
    public void Without_power_loss_simulation_keeps_no_undo_log_and_writes_gathered_pieces_in_place()
    {
        // An in-memory environment never flushes; an undo log would grow by every write it makes.
        var fs = new MemoryFileSystem(simulatesPowerLoss: false);
        using (IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered))
        {
            file.Write(0, "never"u8);
            file.SetLength(12);
            file.Write(5, new ReadOnlyMemory<byte>[] { "fl"u8.ToArray(), "ushed"u8.ToArray() });
            Assert.Equal("neverflushed", ReadAll(file));
            Assert.Equal(12, fs.TotalBytesWritten);
        }

        fs.SimulatePowerLoss();

        using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal("neverflushed", ReadAll(reopened));
    }

    [Fact]
    public void Power_loss_reverts_length_changes_until_flushed()
    {
        var fs = new MemoryFileSystem();
        using (IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered))
        {
            file.Write(0, "0123456789"u8);
            file.Flush();
            file.SetLength(4);
            file.SetLength(20);
        }

        fs.SimulatePowerLoss();

        using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal("0123456789", ReadAll(reopened));

        reopened.Preallocate(100);
        fs.SimulatePowerLoss();
        using IStorageFile again = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal(100, again.Length);
    }

    [Fact]
    public void Power_loss_keeps_write_through_writes_even_after_volatile_ones()
    {
        var fs = new MemoryFileSystem();
        using (IStorageFile buffered = fs.Open(DataPath, StorageFileMode.Buffered))
        using (IStorageFile direct = fs.Open(DataPath, StorageFileMode.UnbufferedWriteThrough))
        {
            Assert.True(direct.IsWriteThrough);
            direct.Write(0, "aaaa"u8);
            buffered.Write(0, "bbbbbb"u8);
            direct.Write(2, "cc"u8);
            Assert.Equal("bbccbb", ReadAll(direct));
        }

        fs.SimulatePowerLoss();

        using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal("aacc", ReadAll(reopened));
    }

    [Fact]
    public void Power_loss_with_random_keeps_each_write_whole_or_not_at_all()
    {
        for (int seed = 0; seed < 20; seed++)
        {
            var fs = new MemoryFileSystem();
            using (IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered))
            {
                file.Preallocate(16 * 1024);
                for (int i = 0; i < 16; i++)
                {
                    file.Write(i * 1024, Enumerable.Repeat((byte)(i + 1), 1024).ToArray());
                }
            }

            fs.SimulatePowerLoss(new Random(seed));

            using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
            var content = new byte[16 * 1024];
            Assert.Equal(content.Length, reopened.Read(0, content));
            for (int i = 0; i < 16; i++)
            {
                Span<byte> block = content.AsSpan(i * 1024, 1024);
                Assert.True(block.IndexOfAnyExcept((byte)0) < 0 || block.IndexOfAnyExcept((byte)(i + 1)) < 0);
            }
        }
    }

    [Fact]
    public void Power_loss_with_tearing_keeps_sector_aligned_prefixes()
    {
        bool sawTear = false;
        for (int seed = 0; seed < 50; seed++)
        {
            var fs = new MemoryFileSystem();
            using (IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered))
            {
                file.Write(100, Enumerable.Repeat((byte)9, 4000).ToArray());
            }

            fs.SimulatePowerLoss(new Random(seed), tearWrites: true);

            using IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered);
            long length = reopened.Length;
            Assert.True(length == 0 || length == 4100 || length % 512 == 0, $"length {length}");
            sawTear |= length is > 0 and < 4100;
            var content = new byte[length];
            reopened.Read(0, content);
            Assert.True(length == 0 || content.AsSpan(100).IndexOfAnyExcept((byte)9) < 0);
        }

        Assert.True(sawTear);
    }

    [Fact]
    public void Process_crash_keeps_unsynced_writes_until_power_loss()
    {
        var fs = new MemoryFileSystem();
        IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered);
        file.Write(0, "flushed"u8);
        file.Flush();
        file.Write(0, "cached!"u8);

        fs.SimulateProcessCrash();
        Assert.Throws<IOException>(() => file.Write(0, "x"u8));
        Assert.Throws<IOException>(() => file.Read(0, new byte[1]));
        file.Dispose();

        using (IStorageFile reopened = fs.Open(DataPath, StorageFileMode.Buffered))
        {
            Assert.Equal("cached!", ReadAll(reopened));
        }

        fs.SimulatePowerLoss();
        using IStorageFile afterPowerLoss = fs.Open(DataPath, StorageFileMode.Buffered);
        Assert.Equal("flushed", ReadAll(afterPowerLoss));
    }

    [Fact]
    public void Crash_invalidates_handles_and_releases_locks()
    {
        var fs = new MemoryFileSystem();
        string lockPath = Directory + "/LOCK";
        IDisposable held = fs.AcquireLock(lockPath);
        Assert.Throws<EnvironmentLockedException>(() => fs.AcquireLock(lockPath));
        IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered);

        fs.SimulatePowerLoss();

        Assert.Throws<IOException>(() => file.Flush());
        Assert.Throws<IOException>(() => _ = file.Length);
        using IDisposable again = fs.AcquireLock(lockPath);

        // The dead environment's late dispose must not release the new holder's lock.
        held.Dispose();
        file.Dispose();
        Assert.Throws<EnvironmentLockedException>(() => fs.AcquireLock(lockPath));
    }

    [Fact]
    public void Lock_is_released_by_Dispose()
    {
        var fs = new MemoryFileSystem();
        IDisposable first = fs.AcquireLock("/mem/LOCK");
        Assert.Throws<EnvironmentLockedException>(() => fs.AcquireLock("/mem/LOCK"));
        first.Dispose();
        using IDisposable second = fs.AcquireLock("/mem/LOCK");
    }

    [Fact]
    public unsafe void Views_SurviveGrowthAndKeepTheirContent()
    {
        var fs = new MemoryFileSystem();
        using IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered);
        file.Write(0, "first"u8);
        IMappedView before = file.Map(5);

        // Far past the initial capacity, forcing a new buffer.
        file.Write(10 << 20, "far"u8);
        using IMappedView after = file.Map(file.Length);

        Assert.True(new ReadOnlySpan<byte>(before.Pointer, 5).SequenceEqual("first"u8));
        Assert.True(new ReadOnlySpan<byte>(after.Pointer, 5).SequenceEqual("first"u8));
        Assert.True(new ReadOnlySpan<byte>(after.Pointer + (10 << 20), 3).SequenceEqual("far"u8));
        before.Dispose();
        before.Dispose();

        file.Write(0, "FIRST"u8);
        Assert.True(new ReadOnlySpan<byte>(after.Pointer, 5).SequenceEqual("FIRST"u8));
        Assert.Throws<ArgumentOutOfRangeException>(() => file.Map(file.Length + 1));
    }

    [Fact]
    public unsafe void A_retired_view_of_an_outgrown_buffer_stays_readable_and_no_longer_receives_writes()
    {
        var fs = new MemoryFileSystem();
        using IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered);
        file.Write(0, "first"u8);
        IMappedView before = file.Map(5);
        file.Write(10 << 20, "far"u8);
        file.Write(0, "again"u8);
        Assert.True(new ReadOnlySpan<byte>(before.Pointer, 5).SequenceEqual("again"u8));

        before.Retire();
        file.Write(0, "later"u8);

        // Stale but allocated: what a span kept past its transaction may read.
        Assert.True(new ReadOnlySpan<byte>(before.Pointer, 5).SequenceEqual("again"u8));
        before.Dispose();
        before.Dispose();
    }

    [Fact]
    public void Opening_twice_shares_content_and_delete_keeps_open_handles_working()
    {
        var fs = new MemoryFileSystem();
        using IStorageFile a = fs.Open(DataPath, StorageFileMode.Buffered);
        using IStorageFile b = fs.Open("/mem/env/../env/data", StorageFileMode.Buffered);
        a.Write(0, "shared"u8);
        Assert.Equal("shared", ReadAll(b));

        fs.Delete(DataPath);
        Assert.False(fs.Exists(DataPath));
        Assert.Equal("shared", ReadAll(b));
    }

    [Fact]
    public void Directory_operations_and_counters()
    {
        var fs = new MemoryFileSystem();
        Assert.True(fs.IsInMemory);
        fs.CreateDirectory(Directory);
        Assert.True(fs.Exists(Directory));
        Assert.True(fs.Exists("/mem"));

        using (IStorageFile tmp = fs.Open(Directory + "/b.tmp", StorageFileMode.Buffered))
        {
            tmp.Write(0, "new"u8);
            tmp.Write(3, [new byte[] { 1, 2 }, new byte[] { 3 }]);
            tmp.Flush();
        }

        using (IStorageFile old = fs.Open(Directory + "/b", StorageFileMode.Buffered))
        {
            old.Write(0, "old"u8);
        }

        using (fs.Open(Directory + "/sub/c", StorageFileMode.Buffered))
        {
        }

        Assert.Equal(["b", "b.tmp"], fs.ListFiles(Directory));
        fs.Rename(Directory + "/b.tmp", Directory + "/b");
        Assert.Equal(["b"], fs.ListFiles(Directory + "/"));
        // Full paths, as the file system keeps them: on Windows with the current drive and backslashes.
        Assert.Equal([Path.GetFullPath("/mem/env/b"), Path.GetFullPath("/mem/env/sub/c")], fs.FileNames);
        Assert.Throws<FileNotFoundException>(() => fs.Rename(Directory + "/missing", Directory + "/x"));

        using (IStorageFile renamed = fs.Open(Directory + "/b", StorageFileMode.Buffered))
        {
            var content = new byte[6];
            Assert.Equal(6, renamed.Read(0, content));
            Assert.Equal("new"u8.ToArray().Concat(new byte[] { 1, 2, 3 }), content);
        }

        Assert.Equal(9, fs.TotalBytesWritten);
        Assert.Equal(1, fs.FlushCount);
    }

    [Fact]
    public void Concurrent_writer_and_readers()
    {
        var fs = new MemoryFileSystem();
        using IStorageFile file = fs.Open(DataPath, StorageFileMode.Buffered);
        const int Pages = 256;
        bool done = false;
        Exception? failure = null;

        // Dedicated threads rather than pool tasks: on a small machine the pool would run them one after another.
        Thread[] readers = Enumerable.Range(0, 3).Select(_ => new Thread(() =>
        {
            try
            {
                var page = new byte[4096];
                while (!Volatile.Read(ref done))
                {
                    long length = file.Length;
                    if (length == 0)
                    {
                        Thread.Yield();
                        continue;
                    }

                    using IMappedView view = file.Map(length);
                    long last = (length / 4096) - 1;
                    Assert.Equal((byte)(last + 1), ByteAt(view, last * 4096));
                    Assert.Equal(4096, file.Read(last * 4096, page));
                    Assert.Equal((byte)(last + 1), page[4095]);
                }
            }
            catch (Exception e)
            {
                Interlocked.CompareExchange(ref failure, e, null);
            }
        })).ToArray();
        foreach (Thread reader in readers)
        {
            reader.Start();
        }

        var written = new byte[4096];
        for (int i = 0; i < Pages; i++)
        {
            written.AsSpan().Fill((byte)(i + 1));
            file.Write((long)i * written.Length, written);
        }

        Volatile.Write(ref done, true);
        foreach (Thread reader in readers)
        {
            reader.Join();
        }

        Assert.Null(failure);
        Assert.Equal(Pages * 4096L, file.Length);
    }

    private static unsafe byte ByteAt(IMappedView view, long offset) => view.Pointer[offset];

    private static string ReadAll(IStorageFile file)
    {
        var content = new byte[file.Length];
        Assert.Equal(content.Length, file.Read(0, content));
        return System.Text.Encoding.ASCII.GetString(content);
    }
}
