using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace StorageEngine.Tests.Platform;

/// <summary>The page cache's view of a file range through cachestat(2): pages cached, dirty, under writeback.</summary>
internal static unsafe partial class PageCacheState
{
    // cachestat has the same number on every architecture (it came after the tables were unified).
    private const long CachestatSyscall = 451;

    [StructLayout(LayoutKind.Sequential)]
    private struct Range
    {
        public ulong Offset;
        public ulong Length;
    }

    /// <summary>struct cachestat, in the kernel's field order.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Counts
    {
        public ulong Cached;
        public ulong Dirty;
        public ulong Writeback;
        public ulong Evicted;
        public ulong RecentlyEvicted;
    }

    public static bool IsAvailable { get; } = Probe();

    /// <summary>The counts for [offset, offset + length) of the open file.</summary>
    public static Counts Of(SafeFileHandle handle, long offset, long length)
    {
        var range = new Range { Offset = (ulong)offset, Length = (ulong)length };
        Counts counts;
        if (Syscall(CachestatSyscall, handle.DangerousGetHandle(), (nint)(&range), (nint)(&counts), 0) != 0)
            throw new IOException($"cachestat failed with errno {Marshal.GetLastPInvokeError()}.");
        return counts;
    }

    private static bool Probe()
    {
        if (!OperatingSystem.IsLinux() || RuntimeInformation.ProcessArchitecture != Architecture.X64) return false;
        try
        {
            string path = Path.Combine(Path.GetTempPath(), $"cachestat-probe-{Environment.ProcessId}-{Guid.NewGuid():N}");
            try
            {
                using var handle = File.OpenHandle(path, FileMode.CreateNew, FileAccess.ReadWrite);
                _ = Of(handle, 0, 4096);
                return true;
            }
            finally
            {
                File.Delete(path);
            }
        }
        catch (IOException)
        {
            return false;
        }
    }

    [LibraryImport("libc", EntryPoint = "syscall", SetLastError = true)]
    private static partial long Syscall(long number, nint fd, nint range, nint counts, long flags);
}
