using System.IO.MemoryMappedFiles;

namespace StorageEngine.Platform;

/// <summary>A read-only memory mapping of the start of an OS file.</summary>
internal sealed unsafe class OsMappedView : IMappedView
{
    private readonly MemoryMappedFile? _mapping;
    private readonly MemoryMappedViewAccessor? _accessor;
    private int _disposed;

    /// <summary>Takes ownership of the mapping and the accessor, and pins the accessor's address.</summary>
    public OsMappedView(MemoryMappedFile mapping, MemoryMappedViewAccessor accessor, long length)
    {
        _mapping = mapping;
        _accessor = accessor;
        Length = length;

        byte* pointer = null;
        accessor.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);

        // The OS maps from a page boundary; PointerOffset is the distance from there to byte 0 of the view.
        Pointer = pointer + accessor.PointerOffset;
    }

    private OsMappedView()
    {
    }

    /// <inheritdoc />
    public byte* Pointer { get; }

    /// <inheritdoc />
    public long Length { get; }

    /// <inheritdoc />
    /// <remarks>
    /// A shared file mapping shows the file's bytes whatever is done: nothing to stop. On Linux the pages readers
    /// touched through it leave the process's resident set (they stay in the page cache, and a stale read maps
    /// them in again), so that outgrown mappings kept for stale spans do not count as the process's memory.
    /// </remarks>
    public void Retire()
    {
        if (OperatingSystem.IsLinux() && WholePages() is > 0 and var length) LinuxNative.ReleaseMappedPages(Pointer, length);
    }

    /// <inheritdoc />
    public void AdviseRandomAccess()
    {
        if ((OperatingSystem.IsLinux() || OperatingSystem.IsMacOS()) && WholePages() is > 0 and var length)
            _ = Libc.MAdvise(Pointer, (nuint)length, Libc.MadvRandom);
    }

    /// <summary>
    /// The bytes of the view madvise can take, in whole OS pages from <see cref="Pointer"/> (page-aligned: the view
    /// starts at file offset 0); 0 for an empty or disposed view.
    /// </summary>
    private long WholePages()
    {
        if (_accessor is null || Volatile.Read(ref _disposed) != 0) return 0;
        long osPage = Environment.SystemPageSize;
        return ((long)Pointer & (osPage - 1)) == 0 ? Length & ~(osPage - 1) : 0;
    }

    /// <summary>A view of zero bytes, which the OS cannot map.</summary>
    public static OsMappedView Empty() => new();

    /// <summary>Unmaps the view; <see cref="Pointer"/> must not be used afterwards.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0 || _accessor is null)
        {
            return;
        }

        _accessor.SafeMemoryMappedViewHandle.ReleasePointer();
        _accessor.Dispose();
        _mapping?.Dispose();
    }
}
