using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using static StorageEngine.Platform.Libc;

namespace StorageEngine.Platform;

/// <summary>
/// The few libc calls that .NET does not expose: O_DIRECT opens, fdatasync, flock, open-file-description locks,
/// statx, directory fsync, fallocate and madvise.
/// Only called when <see cref="OperatingSystem.IsLinux"/> is true. What macOS shares (close, fsync, the errno values
/// both have, the exception for a failed call) is in <see cref="Libc"/>.
/// </summary>
internal static partial class LinuxNative
{
    private const int ORdWr = 0x2;
    private const int OCreat = 0x40;
    private const int ODsync = 0x1000;
    private const int OCloExec = 0x80000;

    private const int LockShared = 1;
    private const int LockExclusive = 2;
    private const int LockNonBlocking = 4;

    /// <summary>Owner read/write only: environment files may hold sensitive data.</summary>
    private const int OwnerReadWrite = 0x180; // 0600

    private const int EAgain = 11;
    private const int ENoSys = 38;
    private const int EOpNotSupp = 95;

    /// <summary>fcntl's open-file-description lock command and struct flock's lock types.</summary>
    private const int OfdSetLock = 37;
    private const short ReadLock = 0;
    private const short WriteLock = 1;
    private const short Unlock = 2;
    private const short SeekSet = 0;

    /// <summary>statx: AT_EMPTY_PATH (the descriptor itself), STATX_INO, and the size of struct statx.</summary>
    private const int AtEmptyPath = 0x1000;
    private const uint StatxInode = 0x100;
    private const int StatxSize = 256;

    /// <summary>struct flock of 64-bit Linux (x86-64, arm64 and the others alike): two shorts, two off_t, a pid.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct FileLockRecord
    {
        public short Type;
        public short Whence;
        public long Start;
        public long Length;
        public int Pid;
    }

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
    /// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writeback of the range's dirty pages and returns without
    /// waiting for it. Durability still takes <see cref="FlushData"/> (this call neither waits for the device
    /// nor flushes its cache, nor writes metadata); a failure here is left for that flush to report.
    /// </summary>
    public static void StartWriteback(SafeFileHandle handle, long offset, long length)
    {
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            _ = SyncFileRange((int)handle.DangerousGetHandle(), offset, length, SyncFileRangeWrite);
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
    /// Takes an open-file-description lock (fcntl F_OFD_SETLK, not waiting) on one byte at <paramref name="offset"/>:
    /// a write lock, or a read lock when <paramref name="shared"/>. Such locks belong to the open file, not to the
    /// process: they conflict between two opens of the same file in one process as between processes, they
    /// never mix with flock locks, and they are released when the file is closed or the process dies. Returns
    /// false when another open file holds a conflicting lock; true without locking where the kernel (before 3.15)
    /// or a 32-bit process cannot take one.
    /// </summary>
    public static bool TryLockOpenFile(SafeFileHandle handle, string path, long offset, bool shared)
    {
        if (!Environment.Is64BitProcess) return true;
        var request = new FileLockRecord { Type = shared ? ReadLock : WriteLock, Whence = SeekSet, Start = offset, Length = 1 };
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (FcntlLock((int)handle.DangerousGetHandle(), OfdSetLock, ref request) == 0) return true;
            int errno = Marshal.GetLastPInvokeError();
            if (errno is EAgain or EAcces) return false;
            if (errno == EInval) return true;
            throw ErrnoException(errno, "fcntl(F_OFD_SETLK)", path);
        }
        finally
        {
            if (added) handle.DangerousRelease();
        }
    }

    /// <summary>
    /// Releases the open-file-description lock <see cref="TryLockOpenFile"/> took at <paramref name="offset"/>. Closing
    /// the descriptor alone does not: the lock belongs to the open file description, which a mapping of the file
    /// keeps alive (a closed environment keeps its mappings while leaked readers may still read them).
    /// </summary>
    public static void UnlockOpenFile(SafeFileHandle handle, string path, long offset)
    {
        if (!Environment.Is64BitProcess) return;
        var request = new FileLockRecord { Type = Unlock, Whence = SeekSet, Start = offset, Length = 1 };
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            if (FcntlLock((int)handle.DangerousGetHandle(), OfdSetLock, ref request) == 0) return;
            int errno = Marshal.GetLastPInvokeError();
            if (errno == EInval) return;
            throw ErrnoException(errno, "fcntl(F_OFD_SETLK, F_UNLCK)", path);
        }
        finally
        {
            if (added) handle.DangerousRelease();
        }
    }

    /// <summary>
    /// The process that holds an open-file-description lock at <paramref name="offset"/> of the file open as
    /// <paramref name="handle"/>; null when it cannot be told. /proc/locks shows such locks without a process
    /// (pid -1), but /proc/PID/fdinfo/FD lists the locks on each open file, so the processes this one may inspect
    /// are searched. Best effort, for messages only: it runs when an open is refused.
    /// </summary>
    public static unsafe int? FindOpenFileLockHolder(SafeFileHandle handle, long offset)
    {
        try
        {
            if (!Environment.Is64BitProcess) return null;
            byte* buffer = stackalloc byte[StatxSize];
            bool added = false;
            string needle;
            try
            {
                handle.DangerousAddRef(ref added);
                if (Statx((int)handle.DangerousGetHandle(), "", AtEmptyPath, StatxInode, buffer) != 0) return null;
                ulong inode = *(ulong*)(buffer + 32);
                uint major = *(uint*)(buffer + 136);
                uint minor = *(uint*)(buffer + 140);
                // As the kernel prints a lock: "OFDLCK ADVISORY  WRITE -1 fe:00:11657846 4611686018427387904 ...".
                needle = string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{major:x2}:{minor:x2}:{inode} {offset} ");
            }
            finally
            {
                if (added) handle.DangerousRelease();
            }
            foreach (string process in Directory.EnumerateDirectories("/proc"))
            {
                if (!int.TryParse(Path.GetFileName(process), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int pid)) continue;
                try
                {
                    foreach (string descriptor in Directory.EnumerateFiles(Path.Combine(process, "fdinfo")))
                    {
                        string info = File.ReadAllText(descriptor);
                        if (info.Contains("OFDLCK", StringComparison.Ordinal) && info.Contains(needle, StringComparison.Ordinal)) return pid;
                    }
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    // Another user's process, or one that exited meanwhile.
                }
            }
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
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

    [LibraryImport("libc", EntryPoint = "fdatasync", SetLastError = true)]
    private static partial int FDataSync(int fd);

    [LibraryImport("libc", EntryPoint = "flock", SetLastError = true)]
    private static partial int FLock(int fd, int operation);

    // fcntl(2) is variadic; its third argument is a pointer here, passed alike on the 64-bit ABIs this is used on.
    [LibraryImport("libc", EntryPoint = "fcntl", SetLastError = true)]
    private static partial int FcntlLock(int fd, int command, ref FileLockRecord record);

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static unsafe partial int Statx(int directoryFd, string path, int flags, uint mask, byte* buffer);

    private const uint SyncFileRangeWrite = 2;

    [LibraryImport("libc", EntryPoint = "sync_file_range", SetLastError = true)]
    private static partial int SyncFileRange(int fd, long offset, long length, uint flags);

    [LibraryImport("libc", EntryPoint = "fallocate", SetLastError = true)]
    private static partial int FAllocate(int fd, int mode, long offset, long length);
}
