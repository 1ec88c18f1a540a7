using System.IO.MemoryMappedFiles;
using Microsoft.Win32.SafeHandles;

namespace StorageEngine.Platform;

/// <summary>
/// A shared writable mapping of a whole buffered file, into which writes are copied rather than each being a
/// system call: for a Lazy journal's record of some 700 bytes a copy costs a sixth of a <c>pwritev</c>
/// (a C test, 2026-11-22, before <c>d03d7bf</c>). What is copied is in the page cache at once, as a write's bytes are, so it
/// survives the process, and the file's sync makes it durable (on Windows after <see cref="FlushView"/>). Only
/// writes shorter than <see cref="MaxCopyLength"/> are worth copying.
/// </summary>
/// <remarks>
/// A store into a hole of a sparse file that the disk has no room for raises SIGBUS, which kills the process. So
/// on Linux the blocks under each write are reserved first, a mebibyte at a time (fallocate: unwritten extents,
/// nothing written), and a full disk fails the reservation with an <see cref="IOException"/>, as it would fail a
/// write. A file system that cannot reserve makes <see cref="TryWrite(long, ReadOnlySpan{byte})"/> answer
/// <see cref="MappedWrite.Unsupported"/>, and the owner goes back to writes. On Windows, setting a file's length
/// already allocates its clusters. Pages more than a mebibyte behind the last reservation leave the process's
/// resident set (they stay in the page cache, dirty until written back), so that a long journal does not show as
/// the process's memory.
/// </remarks>
internal sealed unsafe class AppendMapping : IDisposable
{
    /// <summary>Granularity of block reservations, and distance behind them beyond which pages are released.</summary>
    public const long ReserveChunk = 1L << 20;

    /// <summary>
    /// Writes at least this long are better written: a copy faults the mapping's pages in one at a time (each
    /// zeroed first), which past this costs more than the system call (C test, 2 vCPU, ext4: 4 KiB 1.4 against
    /// 3.3 µs, 16 KiB even, 32 KiB 11.9 against 9.3, 256 KiB 96 against 51).
    /// </summary>
    public const int MaxCopyLength = 16 << 10;

    private readonly SafeFileHandle _handle;
    private readonly string _path;
    private readonly MemoryMappedFile _mapping;
    private readonly MemoryMappedViewAccessor _accessor;
    private readonly byte* _start;

    // Blocks are known to be reserved in [_reservedStart, _reservedEnd).
    private long _reservedStart;
    private long _reservedEnd;

    // Pages below this were released from the resident set.
    private long _releasedUpTo;
    private bool _disposed;

    private AppendMapping(SafeFileHandle handle, string path, MemoryMappedFile mapping, MemoryMappedViewAccessor accessor, long length)
    {
        _handle = handle;
        _path = path;
        _mapping = mapping;
        _accessor = accessor;
        Length = length;
        byte* pointer = null;
        accessor.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
        _start = pointer + accessor.PointerOffset;
    }

    /// <summary>Bytes mapped, from the start of the file: writes that end beyond are not taken.</summary>
    public long Length { get; }

    /// <summary>
    /// Maps the first <paramref name="length"/> bytes of the file (which must be at least that long) for
    /// writing; null on an operating system where mapped writes are not used, or when the mapping is refused.
    /// </summary>
    public static AppendMapping? TryCreate(SafeFileHandle handle, string path, long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(length);
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsWindows())
        {
            return null;
        }

        MemoryMappedFile? mapping = null;
        try
        {
            mapping = MemoryMappedFile.CreateFromFile(
                handle, mapName: null, length, MemoryMappedFileAccess.ReadWrite, HandleInheritability.None, leaveOpen: true);
            var accessor = mapping.CreateViewAccessor(0, length, MemoryMappedFileAccess.ReadWrite);
            return new AppendMapping(handle, path, mapping, accessor, length);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Address space exhausted, or a file system that cannot map: writes still work.
            mapping?.Dispose();
            return null;
        }
    }

    /// <summary>Copies <paramref name="source"/> to <paramref name="offset"/> of the file.</summary>
    /// <exception cref="IOException">Blocks for it could not be reserved (the disk is full).</exception>
    public MappedWrite TryWrite(long offset, ReadOnlySpan<byte> source)
    {
        var verdict = Reserve(offset, source.Length);
        if (verdict == MappedWrite.Done)
        {
            source.CopyTo(new Span<byte>(_start + offset, source.Length));
        }

        return verdict;
    }

    /// <summary>Copies <paramref name="buffers"/> back to back from <paramref name="offset"/> of the file.</summary>
    /// <exception cref="IOException">Blocks for them could not be reserved (the disk is full).</exception>
    public MappedWrite TryWrite(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        long total = 0;
        for (int i = 0; i < buffers.Count; i++)
        {
            total += buffers[i].Length;
        }

        var verdict = Reserve(offset, total);
        if (verdict != MappedWrite.Done)
        {
            return verdict;
        }

        byte* at = _start + offset;
        for (int i = 0; i < buffers.Count; i++)
        {
            var span = buffers[i].Span;
            span.CopyTo(new Span<byte>(at, span.Length));
            at += span.Length;
        }

        return MappedWrite.Done;
    }

    /// <summary>
    /// Hands what was copied in to the file, where the operating system needs that before a sync (Windows:
    /// FlushViewOfFile). On Linux the file's fdatasync writes back the mapping's dirty pages itself.
    /// </summary>
    public void FlushView()
    {
        if (OperatingSystem.IsWindows())
        {
            _accessor.Flush();
        }
    }

    /// <summary>Unmaps the file; the bytes copied in stay in the page cache, to be written back.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _accessor.SafeMemoryMappedViewHandle.ReleasePointer();
        _accessor.Dispose();
        _mapping.Dispose();
    }

    private MappedWrite Reserve(long offset, long length)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        long end = offset + length;
        if (end > Length)
        {
            return MappedWrite.OutOfRange;
        }

        if (!OperatingSystem.IsLinux() || (offset >= _reservedStart && end <= _reservedEnd))
        {
            return MappedWrite.Done;
        }

        long from = offset / ReserveChunk * ReserveChunk;
        long to = Math.Min(Length, (end + ReserveChunk - 1) / ReserveChunk * ReserveChunk);
        if (!LinuxNative.TryAllocate(_handle, _path, from, to - from))
        {
            return MappedWrite.Unsupported;
        }

        if (from >= _reservedStart && from <= _reservedEnd)
        {
            _reservedEnd = Math.Max(_reservedEnd, to);
        }
        else
        {
            (_reservedStart, _reservedEnd) = (from, to);
        }

        long release = from - ReserveChunk;
        if (release > _releasedUpTo)
        {
            LinuxNative.ReleaseMappedPages(_start + _releasedUpTo, release - _releasedUpTo);
            _releasedUpTo = release;
        }

        return MappedWrite.Done;
    }
}
