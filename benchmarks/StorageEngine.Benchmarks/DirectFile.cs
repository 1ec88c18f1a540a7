using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;
using StorageEngine.Workloads;

namespace StorageEngine.Benchmarks;

/// <summary>
/// A file opened the way the engine opens its journal on Linux: O_DIRECT|O_DSYNC, so each write returns once
/// it is on the device. Elsewhere, or where the file system refuses O_DIRECT (tmpfs), it falls back to
/// FileOptions.WriteThrough (O_SYNC on Unix), which is what the baseline then measures.
/// </summary>
internal static class DirectFile
{
    private const int ORdWr = 0x2;
    private const int OCreat = 0x40;
    private const int ODsync = 0x1000;
    private const int OCloExec = 0x80000;
    private const int EInval = 22;

    /// <summary>Opens (creating) <paramref name="path"/>; <paramref name="isDirect"/> says whether O_DIRECT|O_DSYNC was granted.</summary>
    public static SafeFileHandle Open(string path, out bool isDirect)
    {
        int? direct = OperatingSystem.IsLinux() ? DirectFlag() : null;
        if (direct is not null)
        {
            int fd = Libc.open(path, ORdWr | OCreat | direct.Value | ODsync | OCloExec, 0x180);
            if (fd >= 0)
            {
                isDirect = true;
                return new SafeFileHandle(fd, ownsHandle: true);
            }
            int errno = Marshal.GetLastPInvokeError();
            if (errno != EInval) throw new IOException($"open('{path}') failed with errno {errno}.");
        }
        isDirect = false;
        return File.OpenHandle(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None, FileOptions.WriteThrough);
    }

    /// <summary>
    /// Opens <paramref name="path"/> read-only with a bare open(2), without the advisory lock .NET takes on every
    /// open on Unix: a file another handle holds with FileShare.None (ZoneTree's write-ahead log) can still be
    /// read. Null where that is not possible (not Linux, or the open failed).
    /// </summary>
    public static SafeFileHandle? OpenReadWithoutLock(string path)
    {
        if (!OperatingSystem.IsLinux()) return null;
        int fd = Libc.open(path, OCloExec, 0);
        return fd >= 0 ? new SafeFileHandle(fd, ownsHandle: true) : null;
    }

    private static int? DirectFlag() => RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 or Architecture.X86 => 0x4000,
        Architecture.Arm64 or Architecture.Arm => 0x10000,
        _ => null,
    };
}
