using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A commit writes its journal record only; its pages stay in memory until a checkpoint writes them into the
/// data file. Readers see them meanwhile, pages replaced before the checkpoint are never written, and every
/// commit survives a crash at any point of that.
/// </summary>
public sealed class UnwrittenPagesTests
{
    private const int PageSize = 4096;

    [Fact]
    public void ACommitWritesNothingToTheDataFileAndItsPagesAreReadFromMemory()
    {
        var fileSystem = new CountingFileSystem(new MemoryFileSystem());
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 50);
        long before = fileSystem.DataFileBytesWritten;
        Commit(environment, 51, 150);

        Assert.Equal(before, fileSystem.DataFileBytesWritten);
        AssertExactly(environment, 150);
        environment.Checkpoint();
        Assert.True(fileSystem.DataFileBytesWritten > before, "the checkpoint wrote no pages");
        AssertExactly(environment, 150);
    }

    [Fact]
    public void PagesReplacedBeforeTheCheckpointAreNeverWritten()
    {
        var fileSystem = new CountingFileSystem(new MemoryFileSystem());
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        var key = "counter"u8.ToArray();
        const int Commits = 500;
        for (int i = 0; i < Commits; i++)
        {
            using var transaction = environment.BeginWrite();
            transaction.CreateTree("t").Put(key, BitConverter.GetBytes(i));
            transaction.Commit();
        }
        long before = fileSystem.DataFileBytesWritten;
        environment.Checkpoint();
        long written = fileSystem.DataFileBytesWritten - before;

        // Each commit copied at least the tree's leaf and the root of names: 1,000 pages. What is live at the
        // checkpoint is a handful of pages, plus the header.
        Assert.InRange(written, 1, 16 * PageSize);
        using var read = environment.BeginRead();
        Assert.Equal(Commits - 1, BitConverter.ToInt32(read.OpenTree("t").Get(key)));
    }

    [Fact]
    public void AReaderKeepsItsPagesWhileCheckpointsWriteAndForgetThemAndLaterCommitsReuseTheirBuffers()
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 40);
        using var reader = environment.BeginRead();
        for (long next = 41; next <= 200; next += 40)
        {
            Commit(environment, next, next + 39);
            environment.Checkpoint();
        }
        AssertExactly(environment, 200);
        AssertSnapshot(reader, 40);
    }

    [Theory]
    [InlineData(DurabilityMode.Safe)]
    [InlineData(DurabilityMode.Lazy)]
    public void CommitsHeldInMemorySurviveAProcessCrashBeforeAnyCheckpoint(DurabilityMode durability)
    {
        var fileSystem = new MemoryFileSystem();
        var options = Options(fileSystem, durability);
        var environment = StorageEnvironment.Open(options);
        Commit(environment, 1, 120);
        environment.SimulateCrash();
        fileSystem.SimulateProcessCrash();

        using var reopened = StorageEnvironment.Open(options);
        AssertExactly(reopened, 120);
        AssertHealthy(reopened);
    }

    [Fact]
    public async Task ABackupTakenBeforeAnyCheckpointHoldsEveryCommit()
    {
        var fileSystem = new MemoryFileSystem();
        using var environment = StorageEnvironment.Open(Options(fileSystem));
        Commit(environment, 1, 90);
        using var stream = new MemoryStream();
        await environment.BackupAsync(stream);

        var restored = Options(new MemoryFileSystem());
        restored.Path = "/restored";
        await Replication.ReplicationStreams.RestoreAsync(stream.ToArray(), restored);
        using var copy = StorageEnvironment.Open(restored);
        AssertExactly(copy, 90);
    }

    private static void AssertSnapshot(ReadTransaction reader, long last)
    {
        var log = reader.OpenTree(LogTree);
        foreach (long key in ExpectedKeys(last))
        {
            Assert.True(log.TryGet(key, out var value), $"the reader lost key {key}");
            Assert.True(value.SequenceEqual(Value(key)), $"the reader sees a changed value for key {key}");
        }
    }

    /// <summary>Counts the bytes written to the data file through a wrapped file system.</summary>
    private sealed class CountingFileSystem(IFileSystem inner) : IFileSystem
    {
        private long _dataFileBytes;

        public long DataFileBytesWritten => Interlocked.Read(ref _dataFileBytes);

        public bool IsInMemory => inner.IsInMemory;

        public IStorageFile Open(string path, StorageFileMode mode)
        {
            var file = inner.Open(path, mode);
            return path.EndsWith(".sedb", StringComparison.Ordinal) ? new CountingFile(file, this) : file;
        }

        public bool Exists(string path) => inner.Exists(path);

        public void Delete(string path) => inner.Delete(path);

        public void Rename(string from, string to) => inner.Rename(from, to);

        public IReadOnlyList<string> ListFiles(string directory) => inner.ListFiles(directory);

        public void CreateDirectory(string path) => inner.CreateDirectory(path);

        public IDisposable AcquireLock(string lockFilePath) => inner.AcquireLock(lockFilePath);

        public IDisposable AcquireSharedLock(string lockFilePath) => inner.AcquireSharedLock(lockFilePath);

        public void Count(long bytes) => Interlocked.Add(ref _dataFileBytes, bytes);
    }

    private sealed class CountingFile(IStorageFile inner, CountingFileSystem counter) : IStorageFile
    {
        public string Path => inner.Path;

        public long Length => inner.Length;

        public bool IsWriteThrough => inner.IsWriteThrough;

        public int Alignment => inner.Alignment;

        public void SetLength(long length) => inner.SetLength(length);

        public void Preallocate(long length) => inner.Preallocate(length);

        public int Read(long offset, Span<byte> destination) => inner.Read(offset, destination);

        public void Write(long offset, ReadOnlySpan<byte> source)
        {
            inner.Write(offset, source);
            counter.Count(source.Length);
        }

        public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
        {
            inner.Write(offset, buffers);
            foreach (var buffer in buffers) counter.Count(buffer.Length);
        }

        public void Flush() => inner.Flush();

        public IMappedView Map(long length) => inner.Map(length);

        public void Dispose() => inner.Dispose();
    }
}
