using System.Runtime.InteropServices;

namespace StorageEngine.Platform;

/// <summary>
/// What the libc of Linux and of macOS share, declared once for <see cref="LinuxNative"/> and
/// <see cref="DarwinNative"/>: the calls whose signature and ABI are the same on both (close, fsync, madvise), the errno
/// values that are the same on both, and the exception for a failed call. What differs stays in the class of each
/// OS: open and fcntl are variadic (Apple's ARM64 ABI passes variadic arguments on the stack, so macOS declares
/// them without the optional argument), the O_ flags and the other errno values have other numbers, and the rest
/// exists on one system only. Called from those two classes only, so on Linux and macOS only.
/// </summary>
internal static partial class Libc
{
    internal const int EPerm = 1;
    internal const int ENoEnt = 2;
    internal const int EIntr = 4;
    internal const int EAcces = 13;
    internal const int EInval = 22;

    /// <summary>O_RDONLY, 0 on both.</summary>
    internal const int ORdOnly = 0x0;

    /// <summary>The exception for a failed call, keeping the errno text so that the cause shows in logs.</summary>
    internal static Exception ErrnoException(int errno, string call, string path)
    {
        string message = $"{call} failed for '{path}': {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).";
        return errno switch
        {
            // The exception types .NET throws for these, so that callers handle both paths alike.
            ENoEnt => new DirectoryNotFoundException(message),
            EAcces or EPerm => new UnauthorizedAccessException(message),
            _ => new IOException(message, errno),
        };
    }

    /// <summary>MADV_RANDOM, 1 on both: expect page references in random order, so read nothing ahead of a fault.</summary>
    internal const int MadvRandom = 1;

    /// <summary>MADV_DONTNEED, 4 on both.</summary>
    internal const int MadvDontNeed = 4;

    [LibraryImport("libc", EntryPoint = "madvise", SetLastError = true)]
    internal static unsafe partial int MAdvise(byte* address, nuint length, int advice);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    internal static partial int Close(int fd);

    [LibraryImport("libc", EntryPoint = "fsync", SetLastError = true)]
    internal static partial int FSync(int fd);
}
