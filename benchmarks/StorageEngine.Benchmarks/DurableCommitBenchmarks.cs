using System.Buffers.Binary;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using Microsoft.Win32.SafeHandles;

namespace StorageEngine.Benchmarks;

/// <summary>
/// Latency of one durable commit (Safe mode, on disk): a write transaction of 100 sequential 16-byte keys
/// with 128-byte values, the W1 shape. The baseline is the floor under it: one synced write of as many bytes
/// as such a commit's journal record holds, opened as the engine opens its journal (O_DIRECT|O_DSYNC) into a
/// preallocated file. A single synced 4 KB write is shown beside them as the device's own latency.
/// </summary>
[MemoryDiagnoser]
public unsafe class DurableCommitBenchmarks
{
    public const int ItemsPerCommit = 100;
    public const int ValueSize = 128;
    private const long RawFileSize = 64L << 20;
    private const int Alignment = 4096;

    private string _directory = "";
    private StorageEnvironment _environment = null!;
    private long _nextItem;
    private SafeFileHandle _raw = null!;
    private byte* _rawBuffer;
    private long _rawOffset;
    private byte[] _value = [];

    /// <summary>Bytes of one commit's journal record, measured in the setup (the baseline writes this many).</summary>
    private int _journalBytesPerCommit;

    [GlobalSetup]
    public void Setup()
    {
        _directory = BenchmarkData.NewDirectory("commit");
        _value = new byte[ValueSize];
        _environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = Path.Combine(_directory, "env"), Durability = DurabilityMode.Safe });
        for (int i = 0; i < 100; i++) CommitBatch();
        var before = _environment.GetStatistics();
        for (int i = 0; i < 100; i++) CommitBatch();
        _journalBytesPerCommit = JournalBytesPerCommit(before, _environment.GetStatistics());

        string rawPath = Path.Combine(_directory, "raw.bin");
        _raw = DirectFile.Open(rawPath, out bool isDirect);
        _rawBuffer = (byte*)NativeMemory.AlignedAlloc((nuint)Math.Max(_journalBytesPerCommit, Alignment), Alignment);
        var zeros = new Span<byte>(_rawBuffer, Alignment);
        zeros.Clear();
        // Preallocate with real writes, as the engine does its journal files, so the timed writes change no metadata.
        for (long offset = 0; offset < RawFileSize; offset += Alignment) RandomAccess.Write(_raw, zeros, offset);
        new Random(7).NextBytes(new Span<byte>(_rawBuffer, Math.Max(_journalBytesPerCommit, Alignment)));

        Console.WriteLine($"// Files in {_directory}; journal record per commit: {_journalBytesPerCommit} bytes; raw file O_DIRECT|O_DSYNC: {isDirect}.");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _environment.Dispose();
        _raw.Dispose();
        NativeMemory.AlignedFree(_rawBuffer);
        Directory.Delete(_directory, recursive: true);
    }

    /// <summary>One synced write of the bytes a commit journals: the least a durable commit can cost.</summary>
    [Benchmark(Baseline = true)]
    public void SyncedWriteOfCommitBytes() => RawWrite(_journalBytesPerCommit);

    /// <summary>One synced 4 KB write: the device's latency for the smallest durable write.</summary>
    [Benchmark]
    public void SyncedWrite4K() => RawWrite(Alignment);

    /// <summary>BeginWrite, 100 Puts of the next ascending keys, Commit (durable when it returns).</summary>
    [Benchmark]
    public void DurableCommit100() => CommitBatch();

    private void CommitBatch()
    {
        Span<byte> key = stackalloc byte[BenchmarkData.KeySize];
        using var tx = _environment.BeginWrite();
        var tree = tx.CreateTree("bench");
        for (int i = 0; i < ItemsPerCommit; i++)
        {
            long item = _nextItem++;
            BenchmarkData.WriteKey(item, key);
            BinaryPrimitives.WriteInt64LittleEndian(_value, item);
            tree.Put(key, _value);
        }
        tx.Commit();
    }

    private void RawWrite(int bytes)
    {
        if (_rawOffset + bytes > RawFileSize) _rawOffset = 0;
        RandomAccess.Write(_raw, new ReadOnlySpan<byte>(_rawBuffer, bytes), _rawOffset);
        _rawOffset += bytes;
    }

    /// <summary>
    /// Mean bytes one commit wrote to the journal between two statistics, rounded up to whole 4 KB blocks: the
    /// engine's own count, where the first version parsed the journal files by a layout that has since changed
    /// (format 3), found no record and failed the setup.
    /// </summary>
    private static int JournalBytesPerCommit(EnvironmentStatistics before, EnvironmentStatistics after)
    {
        long records = after.JournalRecords - before.JournalRecords;
        if (records <= 0) throw new InvalidOperationException("The commits of the setup wrote no journal record.");
        long mean = (long)Math.Ceiling((double)(after.JournalBytesWritten - before.JournalBytesWritten) / records);
        return (int)((mean + Alignment - 1) / Alignment * Alignment);
    }
}
