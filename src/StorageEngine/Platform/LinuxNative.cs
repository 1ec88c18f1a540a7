using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace StorageEngine.Platform;

/// <summary>
/// The few libc calls that .NET does not expose: O_DIRECT opens, fdatasync, flock, directory fsync, fallocate
/// and madvise.
/// Only called when <see cref="OperatingSystem.IsLinux"/> is true.
/// </summary>
internal static partial class LinuxNative
{
    private const int ORdOnly = 0x0;
    private const int ORdWr = 0x2;
    private const int OCreat = 0x40;
    private const int ODsync = 0x1000;
    private const int OCloExec = 0x80000;

    private const int LockShared = 1;
    private const int LockExclusive = 2;
    private const int LockNonBlocking = 4;

    /// <summary>Owner read/write only: environment files may hold sensitive data.</summary>
    private const int OwnerReadWrite = 0x180; // 0600

    private const int EPerm = 1;
    private const int ENoEnt = 2;
    private const int EAgain = 11;
    private const int EAcces = 13;
    private const int EInval = 22;
    private const int ENoSys = 38;
    private const int EOpNotSupp = 95;

    /// <summary>madvise(MADV_DONTNEED).</summary>
    private const int MadvDontNeed = 4;

    /// <summary>
    /// Opens <paramref name="path"/> with O_DIRECT|O_DSYNC, creating it 0600. Returns null when the file system
    /// refuses O_DIRECT (EINVAL, or an architecture whose flag value we do not know), so the caller can fall
    /// back to buffered I/O.
    /// </summary>
    public static SafeFileHandle? TryOpenDirect(string path)
    {
        int? direct = DirectFlag();
        if (direct is null)
        {
            return null;
        }

        int fd = Open(path, ORdWr | OCreat | direct.Value | ODsync | OCloExec, OwnerReadWrite);
        if (fd < 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            if (errno == EInval)
            {
                return null;
            }

            throw ErrnoException(errno, "open", path);
        }

        return new SafeFileHandle(fd, ownsHandle: true);
    }

    /// <summary>fdatasync: durability of the data and of the metadata needed to read it back (size), not of timestamps.</summary>
    public static void FlushData(SafeFileHandle handle, string path)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (FDataSync((int)handle.DangerousGetHandle()) != 0)
            {
                throw ErrnoException(Marshal.GetLastPInvokeError(), "fdatasync", path);
            }
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
    /// Takes flock(LOCK_EX|LOCK_NB) on the handle. .NET already does this for FileShare.None, but not when the
    /// System.IO.DisableFileLocking switch is set, and the engine must never run two writers on one environment.
    /// Returns false when another open file description holds the lock.
    /// </summary>
    public static bool TryLockExclusive(SafeFileHandle handle, string path) => TryLock(handle, path, LockExclusive);

    /// <summary>Takes flock(LOCK_SH|LOCK_NB) on the handle; false when another open file description holds LOCK_EX.</summary>
    public static bool TryLockShared(SafeFileHandle handle, string path) => TryLock(handle, path, LockShared);

    private static bool TryLock(SafeFileHandle handle, string path, int operation)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (FLock((int)handle.DangerousGetHandle(), operation | LockNonBlocking) == 0)
            {
                return true;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno == EAgain)
            {
                return false;
            }

            throw ErrnoException(errno, "flock", path);
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
    /// fsyncs a directory so that entries created, renamed or removed in it survive power loss; fdatasync of the
    /// file itself does not guarantee that its name is durable.
    /// </summary>
    public static void SyncDirectory(string directory)
    {
        int fd = Open(directory, ORdOnly | OCloExec, 0);
        if (fd < 0)
        {
            throw ErrnoException(Marshal.GetLastPInvokeError(), "open", directory);
        }

        try
        {
            if (FSync(fd) != 0)
            {
                int errno = Marshal.GetLastPInvokeError();

                // Some file systems (FUSE, some network ones) do not support fsync on directories; there is
                // nothing better to do there, and failing every rename would make them unusable.
                if (errno != EInval)
                {
                    throw ErrnoException(errno, "fsync", directory);
                }
            }
        }
        finally
        {
            _ = Close(fd);
        }
    }

    /// <summary>
    /// fallocate(mode 0): gives [offset, offset + length) disk blocks (unwritten extents, read as zeros) without
    /// writing them, so that a later write into a shared mapping cannot find the disk full. Returns false where
    /// the file system does not support it; throws on any other failure (ENOSPC above all).
    /// </summary>
    public static bool TryAllocate(SafeFileHandle handle, string path, long offset, long length)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (FAllocate((int)handle.DangerousGetHandle(), 0, offset, length) == 0)
            {
                return true;
            }

            int errno = Marshal.GetLastPInvokeError();
            if (errno is EOpNotSupp or ENoSys)
            {
                return false;
            }

            throw ErrnoException(errno, "fallocate", path);
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
    /// madvise(MADV_DONTNEED) over part of a shared file mapping: the pages leave this process's memory (its
    /// resident set) but not the page cache, dirty ones stay dirty and are written back as usual, and a later
    /// access maps them in again from the file. Best effort: a failure changes nothing that matters.
    /// </summary>
    public static unsafe void ReleaseMappedPages(byte* address, long length) => _ = MAdvise(address, (nuint)length, MadvDontNeed);

    /// <summary>
    /// madvise(MADV_DONTNEED) over private anonymous memory (a parked page buffer): its physical pages are given
    /// back, the range stays mapped, and a later read finds zeros. Best effort: on failure the memory stays resident.
    /// </summary>
    public static unsafe void DiscardPages(byte* address, long length) => _ = MAdvise(address, (nuint)length, MadvDontNeed);

    /// <summary>Builds the exception for a failed call, keeping the errno text so the cause is visible in logs.</summary>
    public static Exception ErrnoException(int errno, string call, string path)
    {
        string message = $"{call} failed for '{path}': {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).";
        return errno switch
        {
            // Same exception types .NET throws for these, so callers can handle both paths alike.
            ENoEnt => new DirectoryNotFoundException(message),
            EAcces or EPerm => new UnauthorizedAccessException(message),
            _ => new IOException(message, errno),
        };
    }

    /// <summary>O_DIRECT is one of the few flags whose value differs between Linux architectures.</summary>
    private static int? DirectFlag() => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 or Architecture.X86 or Architecture.S390x or Architecture.RiscV64 or Architecture.LoongArch64 => 0x4000,
        Architecture.Arm64 or Architecture.Arm => 0x10000,
        Architecture.Ppc64le => 0x20000,
        _ => null,
    };

    // open(2) is variadic; declaring the mode as a fixed int argument is safe on the Linux ABIs .NET supports
    // because they pass variadic integers exactly like fixed ones.
    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags, int mode);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int fd);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    private static partial int FSync(int fd);

    [LibraryImport("libc", EntryPoint = "fdatasync", SetLastError = true)]
    private static partial int FDataSync(int fd);

    [LibraryImport("libc", EntryPoint = "flock", SetLastError = true)]
    private static partial int FLock(int fd, int operation);

    [LibraryImport("libc", EntryPoint = "fallocate", SetLastError = true)]
    private static partial int FAllocate(int fd, int mode, long offset, long length);

    [LibraryImport("libc", EntryPoint = "madvise", SetLastError = true)]
    private static unsafe partial int MAdvise(byte* address, nuint length, int advice);
}
