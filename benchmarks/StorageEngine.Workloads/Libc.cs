using System.Runtime.InteropServices;

namespace StorageEngine.Workloads;

/// <summary>
/// The few system calls the floor measurement, the device write counter and the document benchmark's synced create
/// need (Linux x86-64/arm64 flag values): the benchmarks' one set of libc calls, compiled into the BenchmarkDotNet
/// suite (its direct journal-like file) and the document benchmark too.
/// </summary>
internal static unsafe partial class Libc
{
    internal const int O_WRONLY = 0x1;
    internal const int O_CREAT = 0x40;
    internal const int O_TRUNC = 0x200;
    internal const int O_DSYNC = 0x1000;
    internal static int O_DIRECT => RuntimeInformation.ProcessArchitecture == Architecture.Arm64 ? 0x10000 : 0x4000;

    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int open(string path, int flags, int mode);

    [LibraryImport("libc", SetLastError = true)]
    internal static partial nint pwrite(int fd, void* buffer, nuint count, long offset);

    [LibraryImport("libc", SetLastError = true)]
    internal static partial int fsync(int fd);

    [LibraryImport("libc", SetLastError = true)]
    internal static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int syncfs(int fd);

    private const int O_RDONLY = 0;
    private const int O_DIRECTORY = 0x10000;

    /// <summary>Writes back every dirty page of the file system holding <paramref name="directory"/> (syncfs).</summary>
    internal static void SyncFileSystem(string directory) => OnDirectory(directory, fd => Check(syncfs(fd), "syncfs " + directory));

    /// <summary>Makes the entries of <paramref name="directory"/> durable (fsync of the directory).</summary>
    internal static void SyncDirectory(string directory) => OnDirectory(directory, fd => Check(fsync(fd), "fsync " + directory));

    private static void OnDirectory(string directory, Action<int> call)
    {
        int fd = open(directory, O_RDONLY | (RuntimeInformation.ProcessArchitecture == Architecture.Arm64 ? 0x4000 : O_DIRECTORY), 0);
        Check(fd, "open " + directory);
        try
        {
            call(fd);
        }
        finally
        {
            close(fd);
        }
    }

    internal static void Check(long rc, string call)
    {
        if (rc < 0) throw new IOException($"{call} failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
    }
}
