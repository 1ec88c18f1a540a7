using System.IO.MemoryMappedFiles;
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using StorageEngine.Common;

namespace StorageEngine.Platform;

/// <summary>
/// An <see cref="IStorageFile"/> over an operating-system file. Reads and writes are positional (pread/pwrite),
/// so one instance can be used from several threads at once without a shared file position.
/// </summary>
internal sealed unsafe partial class OsStorageFile : IStorageFile
{
    /// <summary>Alignment for unbuffered I/O: a multiple of every logical sector size in use (512 and 4096).</summary>
    internal const int DirectAlignment = 4096;

    /// <summary>Windows FILE_FLAG_NO_BUFFERING, which FileOptions does not name.</summary>
    private const FileOptions WindowsNoBuffering = (FileOptions)0x20000000;

    private readonly SafeFileHandle _handle;

    /// <summary>The stream that created the handle (to get a 0600 create mode on Unix); it owns the handle.</summary>
    private readonly FileStream? _owner;

    // Guards _appendMapping: writes, a length change and the close may come from different threads.
    private readonly object _mappingLock = new();

    // Writes go through _appendMapping (made at the first write) while this is true (StorageFileMode.MappedAppends).
    private bool _mapAppends;
    private AppendMapping? _appendMapping;

    private int _disposed;

    private OsStorageFile(string path, SafeFileHandle handle, FileStream? owner, bool isWriteThrough, int alignment, bool mapAppends = false)
    {
        Path = path;
        _handle = handle;
        _owner = owner;
        IsWriteThrough = isWriteThrough;
        Alignment = alignment;
        _mapAppends = mapAppends;
    }

    /// <inheritdoc />
    public string Path { get; }

    /// <inheritdoc />
    public long Length => RandomAccess.GetLength(_handle);

    /// <inheritdoc />
    public bool IsWriteThrough { get; }

    /// <inheritdoc />
    public int Alignment { get; }

    /// <summary>
    /// Opens or creates the file. <see cref="StorageFileMode.UnbufferedWriteThrough"/> gets O_DIRECT|O_DSYNC on
    /// Linux and NO_BUFFERING|WRITE_THROUGH on Windows; elsewhere, or where the file system refuses O_DIRECT,
    /// the file is buffered and reports <see cref="IsWriteThrough"/> = false so that the caller flushes.
    /// </summary>
    public static OsStorageFile Open(string path, StorageFileMode mode)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        bool existing = (mode & StorageFileMode.Existing) != 0;
        if (existing && (mode & StorageFileMode.UnbufferedWriteThrough) != 0)
            throw new ArgumentException("Only buffered opens take StorageFileMode.Existing.", nameof(mode));

        if ((mode & StorageFileMode.UnbufferedWriteThrough) != 0)
        {
            if (OperatingSystem.IsLinux())
            {
                SafeFileHandle? direct = LinuxNative.TryOpenDirect(path);
                if (direct is not null)
                {
                    return new OsStorageFile(path, direct, owner: null, isWriteThrough: true, DirectAlignment);
                }
            }
            else if (OperatingSystem.IsWindows())
            {
                // FileShare.Delete so that renaming or deleting an open file behaves as on Unix.
                SafeFileHandle handle = File.OpenHandle(
                    path,
                    FileMode.OpenOrCreate,
                    FileAccess.ReadWrite,
                    FileShare.ReadWrite | FileShare.Delete,
                    FileOptions.WriteThrough | WindowsNoBuffering);
                return new OsStorageFile(path, handle, owner: null, isWriteThrough: true, DirectAlignment);
            }

            // macOS has F_NOCACHE but no O_DSYNC equivalent that also flushes the drive cache, so buffered
            // writes plus Flush (F_FULLFSYNC, DarwinNative) is the only durable option there.
        }

        FileStream stream = OpenStream(path, FileShare.ReadWrite | FileShare.Delete, existing);
        bool mapAppends = (mode & StorageFileMode.MappedAppends) != 0 && (OperatingSystem.IsLinux() || OperatingSystem.IsWindows());
        return new OsStorageFile(path, stream.SafeFileHandle, stream, isWriteThrough: false, alignment: 1, mapAppends);
    }

    /// <summary>
    /// Opens a handle through FileStream rather than File.OpenHandle, because only FileStreamOptions can set the
    /// Unix create mode atomically (0600: environment files may hold sensitive data). With
    /// <paramref name="existing"/>, a missing file is a <see cref="FileNotFoundException"/> and nothing is created.
    /// </summary>
    internal static FileStream OpenStream(string path, FileShare share, bool existing = false)
    {
        var options = new FileStreamOptions
        {
            Mode = existing ? FileMode.Open : FileMode.OpenOrCreate,
            Access = FileAccess.ReadWrite,
            Share = share,

            // No FileStream buffer: all I/O goes through RandomAccess on the handle.
            BufferSize = 0,
        };
        if (!existing && !OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        }

        return new FileStream(path, options);
    }

    /// <inheritdoc />
    /// <remarks>A write mapping is dropped first (and made again at the next write): cutting the file under it would fault.</remarks>
    public void SetLength(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        lock (_mappingLock)
        {
            DropAppendMapping();
            RandomAccess.SetLength(_handle, length);
        }
    }

    /// <inheritdoc />
    public int Read(long offset, Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        int total = 0;

        // pread may return fewer bytes than asked before end of file; the contract promises short reads
        // only at end of file, so keep reading.
        while (total < destination.Length)
        {
            int read = RandomAccess.Read(_handle, destination[total..], offset + total);
            if (read == 0)
            {
                break;
            }

            total += read;

            // With O_DIRECT an unaligned count can only mean end of file, and reading on from an unaligned
            // offset would fail with EINVAL.
            if (Alignment > 1 && read % Alignment != 0)
            {
                break;
            }
        }

        return total;
    }

    /// <inheritdoc />
    public void Write(long offset, ReadOnlySpan<byte> source)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        CheckAligned(offset, source.Length);
        if (_mapAppends && source.Length < AppendMapping.MaxCopyLength)
        {
            lock (_mappingLock)
            {
                if (MappingFor(offset + source.Length)?.TryWrite(offset, source) is { } verdict && Taken(verdict))
                {
                    return;
                }
            }
        }

        RandomAccess.Write(_handle, source, offset);
    }

    /// <inheritdoc />
    /// <remarks>
    /// RandomAccess uses pwritev, retries partial writes, and splits lists longer than IOV_MAX (1024) itself,
    /// so any number of buffers can be passed.
    /// </remarks>
    public void Write(long offset, IReadOnlyList<ReadOnlyMemory<byte>> buffers)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(offset);
        ArgumentNullException.ThrowIfNull(buffers);
        if (Alignment > 1)
        {
            CheckAligned(offset, 0);
            for (int i = 0; i < buffers.Count; i++)
            {
                CheckAligned(0, buffers[i].Length);
            }
        }

        if (_mapAppends)
        {
            long length = 0;
            for (int i = 0; i < buffers.Count; i++)
            {
                length += buffers[i].Length;
            }

            if (length < AppendMapping.MaxCopyLength)
            {
                lock (_mappingLock)
                {
                    if (MappingFor(offset + length)?.TryWrite(offset, buffers) is { } verdict && Taken(verdict))
                    {
                        return;
                    }
                }
            }
        }

        RandomAccess.Write(_handle, buffers, offset);
    }

    /// <summary>
    /// The write mapping, made (or made again, when the file has grown past it) for a write ending at
    /// <paramref name="end"/>; null when that write should be a write. Under _mappingLock.
    /// </summary>
    private AppendMapping? MappingFor(long end)
    {
        if (!_mapAppends || (_appendMapping is { } current && end <= current.Length))
        {
            return _appendMapping;
        }

        long length = Length;
        if (end > length)
        {
            // Past the end of the file (an extending write): the mapping cannot hold it.
            return null;
        }

        DropAppendMapping();
        _appendMapping = AppendMapping.TryCreate(_handle, Path, length);
        _mapAppends = _appendMapping is not null;
        return _appendMapping;
    }

    /// <summary>Whether the mapping took the write; a file system that cannot reserve blocks ends mapped writes. Under _mappingLock.</summary>
    private bool Taken(MappedWrite verdict)
    {
        if (verdict == MappedWrite.Unsupported)
        {
            DropAppendMapping();
            _mapAppends = false;
        }

        return verdict == MappedWrite.Done;
    }

    /// <summary>Unmaps the write mapping, if any. Under _mappingLock.</summary>
    private void DropAppendMapping()
    {
        _appendMapping?.Dispose();
        _appendMapping = null;
    }

    /// <summary>
    /// Where the environment lock lies: one byte far past any data file's end (a lock may lie past the end), so
    /// that it stands for the whole environment and never meets a lock on data.
    /// </summary>
    private const long EnvironmentLockOffset = 1L << 62;

    // Whether TryLockEnvironment took the open-file-description lock, which Dispose then releases.
    private bool _environmentLocked;

    /// <inheritdoc />
    /// <remarks>On Linux an open-file-description lock (fcntl F_OFD_SETLK); elsewhere none.</remarks>
    public bool TryLockEnvironment(bool shared, out string? holder)
    {
        holder = null;
        if (!OperatingSystem.IsLinux()) return true;
        if (LinuxNative.TryLockOpenFile(_handle, Path, EnvironmentLockOffset, shared))
        {
            _environmentLocked = true;
            return true;
        }
        int? pid = LinuxNative.FindOpenFileLockHolder(_handle, EnvironmentLockOffset);
        holder = pid is null ? null
            : pid == Environment.ProcessId ? $"another StorageEnvironment in this process (process {pid})"
            : $"process {pid}";
        return false;
    }

    /// <inheritdoc />
    /// <remarks>Works on write-through files too, where it only has metadata left to make durable.</remarks>
    public void Flush()
    {
        if (_appendMapping is not null)
        {
            lock (_mappingLock)
            {
                _appendMapping?.FlushView();
            }
        }

        if (OperatingSystem.IsLinux())
        {
            LinuxNative.FlushData(_handle, Path);
        }
        else if (OperatingSystem.IsMacOS())
        {
            // Called here rather than left to FlushToDisk (which also issues F_FULLFSYNC in .NET 10) so that
            // the drive-cache flush a Safe commit rests on is this code's, and tested.
            DarwinNative.FullSync(_handle, Path);
        }
        else
        {
            // FlushFileBuffers on Windows.
            RandomAccess.FlushToDisk(_handle);
        }
    }

    /// <inheritdoc />
    /// <remarks>Linux only (sync_file_range); elsewhere nothing, and the flush writes everything.</remarks>
    public void StartWriteback(long offset, long length)
    {
        if (OperatingSystem.IsLinux() && !IsWriteThrough && length > 0)
        {
            LinuxNative.StartWriteback(_handle, offset, length);
        }
    }

    /// <inheritdoc />
    /// <remarks>
    /// The file must already be at least <paramref name="length"/> long: mapping past the end would fault on
    /// access rather than read zeros. Truncating the file below a live view makes reads from the cut part fault
    /// (SIGBUS), so the engine only ever grows mapped files. Mapping is meant for buffered files; it also works
    /// on an O_DIRECT file on Linux, but the page cache and direct writes are then only loosely coherent.
    /// </remarks>
    public IMappedView Map(long length)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(length);
        long fileLength = Length;
        if (length > fileLength)
        {
            throw new ArgumentOutOfRangeException(nameof(length), length, $"Cannot map {length} bytes of '{Path}', which is only {fileLength} bytes long.");
        }

        // The OS refuses empty mappings; an empty view needs no memory at all.
        if (length == 0)
        {
            return OsMappedView.Empty();
        }

        MemoryMappedFile mapping = MemoryMappedFile.CreateFromFile(
            _handle, mapName: null, length, MemoryMappedFileAccess.Read, HandleInheritability.None, leaveOpen: true);
        try
        {
            MemoryMappedViewAccessor accessor = mapping.CreateViewAccessor(0, length, MemoryMappedFileAccess.Read);
            return new OsMappedView(mapping, accessor, length);
        }
        catch
        {
            mapping.Dispose();
            throw;
        }
    }

    /// <summary>Closes the handle; mapped views stay valid until they are disposed themselves.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        lock (_mappingLock)
        {
            DropAppendMapping();
        }

        // Released explicitly: a mapping of the file outlives the descriptor and with it the lock (see UnlockOpenFile).
        if (_environmentLocked && !_handle.IsClosed)
        {
            try { LinuxNative.UnlockOpenFile(_handle, Path, EnvironmentLockOffset); }
            catch (IOException) { } // closing the descriptor still releases it once the last mapping goes
        }

        if (_owner is not null)
        {
            _owner.Dispose();
        }
        else
        {
            _handle.Dispose();
        }
    }

    private static int AlignUp(int value, int alignment) => (value + alignment - 1) / alignment * alignment;

    /// <summary>
    /// Rejects misaligned unbuffered I/O up front: the kernel would fail it with a bare EINVAL that does not
    /// say what was wrong.
    /// </summary>
    private void CheckAligned(long offset, int length)
    {
        if (Alignment > 1 && (offset % Alignment != 0 || length % Alignment != 0))
        {
            throw new ArgumentException($"Unbuffered I/O on '{Path}' needs offsets and lengths aligned to {Alignment} bytes (offset {offset}, length {length}).");
        }
    }
}
