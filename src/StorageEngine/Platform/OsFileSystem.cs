namespace StorageEngine.Platform;

/// <summary>
/// The real file system. On Linux and macOS, operations that change a directory (create, rename, delete) also
/// sync the directory (fsync; F_FULLFSYNC on macOS), so that they are as durable once they return as they are in
/// <see cref="MemoryFileSystem"/>'s model. Windows offers no directory sync.
/// </summary>
internal sealed class OsFileSystem : IFileSystem
{
    /// <summary>Windows ERROR_SHARING_VIOLATION and ERROR_LOCK_VIOLATION, as HRESULTs.</summary>
    private const int WindowsSharingViolation = unchecked((int)0x80070020);
    private const int WindowsLockViolation = unchecked((int)0x80070021);

    /// <summary>EWOULDBLOCK, which .NET reports as the HResult when flock finds the file locked (Linux; macOS/BSD).</summary>
    private const int LinuxWouldBlock = 11;
    private const int BsdWouldBlock = 35;

    /// <summary>The shared instance; the type has no state.</summary>
    public static OsFileSystem Instance { get; } = new();

    /// <inheritdoc />
    public bool IsInMemory => false;

    /// <inheritdoc />
    public IStorageFile Open(string path, StorageFileMode mode)
    {
        // Only an open that may create the file asks whether it exists: neither kind below syncs the directory.
        bool created = (mode & (StorageFileMode.RenamedIntoPlace | StorageFileMode.Existing)) == 0 && !File.Exists(path);
        OsStorageFile file = OsStorageFile.Open(path, mode);
        if (created)
        {
            try
            {
                SyncParentDirectory(path);
            }
            catch
            {
                file.Dispose();
                throw;
            }
        }

        return file;
    }

    /// <summary>True when a file or a directory exists at <paramref name="path"/>.</summary>
    public bool Exists(string path) => File.Exists(path) || Directory.Exists(path);

    /// <summary>Deletes the file; does nothing when it does not exist.</summary>
    public void Delete(string path)
    {
        if (!File.Exists(path))
        {
            return;
        }

        File.Delete(path);
        SyncParentDirectory(path);
    }

    /// <inheritdoc />
    public void Rename(string from, string to)
    {
        File.Move(from, to, overwrite: true);
        SyncParentDirectory(to);
        if (!string.Equals(Path.GetDirectoryName(Path.GetFullPath(from)), Path.GetDirectoryName(Path.GetFullPath(to)), StringComparison.Ordinal))
        {
            SyncParentDirectory(from);
        }
    }

    /// <inheritdoc />
    /// <remarks>Sorted ordinally, so callers see the same order on every platform; empty when the directory does not exist.</remarks>
    public IReadOnlyList<string> ListFiles(string directory)
    {
        if (!Directory.Exists(directory))
        {
            return [];
        }

        string[] names = Directory.GetFiles(directory).Select(p => Path.GetFileName(p)).ToArray();
        Array.Sort(names, StringComparer.Ordinal);
        return names;
    }

    /// <summary>Creates the directory and its missing parents, owner-only (0700) on Unix.</summary>
    public void CreateDirectory(string path)
    {
        if (Directory.Exists(path))
        {
            return;
        }

        try
        {
            if (OperatingSystem.IsWindows())
            {
                Directory.CreateDirectory(path);
            }
            else
            {
                Directory.CreateDirectory(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
            }
        }
        // .NET says only "The file '...' already exists", which reads as if the environment's own file were in the way.
        catch (IOException e) when (FileOnPath(path) is { } file)
        {
            throw new IOException(file == Path.GetFullPath(path)
                ? $"Cannot open an environment at '{path}': it is a file. An environment is a directory that holds its files."
                : $"Cannot create the environment's directory '{path}': '{file}' is a file, not a directory.", e);
        }

        SyncParentDirectory(path);
    }

    /// <summary>The path itself or the nearest of its parents that exists as a file (not a directory), if any.</summary>
    private static string? FileOnPath(string path)
    {
        for (string? at = Path.GetFullPath(path); !string.IsNullOrEmpty(at); at = Path.GetDirectoryName(at))
        {
            if (File.Exists(at)) return at;
            if (Directory.Exists(at)) return null;
        }
        return null;
    }

    /// <inheritdoc />
    /// <remarks>
    /// The lock is an open handle with FileShare.None: on Windows a sharing lock, on Unix flock(LOCK_EX), which
    /// excludes other processes and other opens in this process alike, and which the OS drops if the process dies.
    /// The lock file is left in place on release: deleting it would race with another process opening it.
    /// </remarks>
    public IDisposable AcquireLock(string lockFilePath)
    {
        FileStream stream;
        try
        {
            stream = OsStorageFile.OpenStream(lockFilePath, FileShare.None);
        }
        catch (IOException e) when (IsLockConflict(e))
        {
            throw new EnvironmentLockedException(lockFilePath, e);
        }

        try
        {
            if (OperatingSystem.IsLinux() && !LinuxNative.TryLockExclusive(stream.SafeFileHandle, lockFilePath))
            {
                throw new EnvironmentLockedException(lockFilePath);
            }
        }
        catch
        {
            stream.Dispose();
            throw;
        }

        return new OsFileLock(stream);
    }

    /// <inheritdoc />
    /// <remarks>
    /// A read-only handle with FileShare.ReadWrite: on Windows it conflicts with the writer's FileShare.None, on
    /// Unix it is flock(LOCK_SH), which conflicts only with the writer's LOCK_EX.
    /// </remarks>
    public IDisposable AcquireSharedLock(string lockFilePath)
    {
        var options = new FileStreamOptions { Mode = FileMode.OpenOrCreate, Access = FileAccess.Read, Share = FileShare.ReadWrite, BufferSize = 0 };
        if (!OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        }

        FileStream stream;
        try
        {
            stream = new FileStream(lockFilePath, options);
        }
        catch (IOException e) when (IsLockConflict(e))
        {
            throw new EnvironmentLockedException(lockFilePath, e);
        }

        try
        {
            if (OperatingSystem.IsLinux() && !LinuxNative.TryLockShared(stream.SafeFileHandle, lockFilePath))
            {
                throw new EnvironmentLockedException(lockFilePath);
            }
        }
        catch
        {
            stream.Dispose();
            throw;
        }

        return new OsFileLock(stream);
    }

    private static bool IsLockConflict(IOException e) =>
        e is not (FileNotFoundException or DirectoryNotFoundException or PathTooLongException)
        && (OperatingSystem.IsWindows()
            ? e.HResult is WindowsSharingViolation or WindowsLockViolation
            : e.HResult is LinuxWouldBlock or BsdWouldBlock);

    private static void SyncParentDirectory(string path)
    {
        if (!OperatingSystem.IsLinux() && !OperatingSystem.IsMacOS())
        {
            return;
        }

        string? parent = Path.GetDirectoryName(Path.GetFullPath(path));
        if (string.IsNullOrEmpty(parent))
        {
            return;
        }

        if (OperatingSystem.IsLinux())
        {
            LinuxNative.SyncDirectory(parent);
        }
        else
        {
            DarwinNative.SyncDirectory(parent);
        }
    }
}
