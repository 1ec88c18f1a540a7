using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using static StorageEngine.Platform.Libc;

namespace StorageEngine.Platform;

/// <summary>
/// The macOS syncs a durability promise rests on. macOS's fsync(2) hands the data to the drive but does not ask
/// the drive to write its cache to the medium, so a power loss can still lose what fsync returned for;
/// fcntl(F_FULLFSYNC) does both (LMDB syncs this way, SQLite with PRAGMA fullfsync). Only called when
/// <see cref="OperatingSystem.IsMacOS"/> is true. What Linux shares (close, fsync, the errno values both have, the
/// exception for a failed call) is in <see cref="Libc"/>.
/// </summary>
internal static partial class DarwinNative
{
    /// <summary>F_FULLFSYNC, from Darwin's sys/fcntl.h.</summary>
    internal const int FullFSyncCommand = 51;

    private const int OCloExec = 0x1000000;

    private static long s_fullSyncs;
    private static long s_fallbackSyncs;

    /// <summary>
    /// F_FULLFSYNC calls that succeeded in this process, so that a test can see a sync flushed the drive's
    /// cache rather than falling back to fsync.
    /// </summary>
    internal static long FullSyncCount => Interlocked.Read(ref s_fullSyncs);

    /// <summary>Syncs in this process that fell back to fsync because F_FULLFSYNC was refused.</summary>
    internal static long FallbackSyncCount => Interlocked.Read(ref s_fallbackSyncs);

    /// <summary>Makes the file's data and metadata durable: F_FULLFSYNC, or fsync where the file system refuses it.</summary>
    public static void FullSync(SafeFileHandle handle, string path)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            FullSync((int)handle.DangerousGetHandle(), path, isDirectory: false);
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    /// <summary>
    /// Syncs a directory so that entries created, renamed or removed in it survive power loss: the sync of a
    /// file does not make its name durable.
    /// </summary>
    public static void SyncDirectory(string directory)
    {
        int fd = Open(directory, ORdOnly | OCloExec);
        if (fd < 0)
        {
            throw ErrnoException(Marshal.GetLastPInvokeError(), "open", directory);
        }

        try
        {
            FullSync(fd, directory, isDirectory: true);
        }
        finally
        {
            _ = Close(fd);
        }
    }

    private static void FullSync(int fd, string path, bool isDirectory)
    {
        int result;
        while ((result = FCntl(fd, FullFSyncCommand)) < 0 && Marshal.GetLastPInvokeError() == EIntr)
        {
        }

        if (result >= 0)
        {
            Interlocked.Increment(ref s_fullSyncs);
            return;
        }

        // F_FULLFSYNC is refused by file systems that have no drive cache to flush or cannot pass the request
        // on (some network and FUSE ones). fsync is the best there is then, as SQLite and .NET's FlushToDisk
        // fall back to.
        while ((result = FSync(fd)) < 0 && Marshal.GetLastPInvokeError() == EIntr)
        {
        }

        Interlocked.Increment(ref s_fallbackSyncs);
        if (result < 0)
        {
            int errno = Marshal.GetLastPInvokeError();

            // As on Linux: a file system that cannot sync directories at all must not fail every create and rename.
            if (!(isDirectory && errno == EInval))
            {
                throw ErrnoException(errno, "fsync", path);
            }
        }
    }

    // open(2) and fcntl(2) are variadic, and on Apple's ARM64 ABI variadic arguments go on the stack rather than
    // in registers: so both are declared without their optional argument, which these calls do not use.
    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
    private static partial int FCntl(int fd, int command);
}
