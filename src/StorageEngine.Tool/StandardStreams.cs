using Microsoft.Win32.SafeHandles;

namespace StorageEngine.Tool;

/// <summary>
/// Standard output and input as streams that report a closed pipe. On Unix, <see cref="Console.OpenStandardOutput()"/>
/// drops writes to a closed pipe without an error, so <c>storageengine dump | head</c> would go on to the end and
/// report every entry as dumped; a file stream over descriptor 1 throws <see cref="IOException"/> instead (the runtime
/// ignores SIGPIPE), and the command stops and says how far it got. Only for pipes and other unseekable files: a
/// file stream writes a seekable file at the offsets it tracks itself, which would overwrite what other processes
/// sharing the descriptor (a shell's <c>&gt;&gt; log</c>) wrote meanwhile.
/// </summary>
internal static class StandardStreams
{
    public static Stream Output() => Unseekable(1, FileAccess.Write) ?? Console.OpenStandardOutput();

    public static Stream Input() => Unseekable(0, FileAccess.Read) ?? Console.OpenStandardInput();

    private static FileStream? Unseekable(int descriptor, FileAccess access)
    {
        if (OperatingSystem.IsWindows()) return null;
        try
        {
            var stream = new FileStream(new SafeFileHandle(descriptor, ownsHandle: false), access, bufferSize: 0);
            if (!stream.CanSeek) return stream;
            stream.Dispose();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            // Closed or unusable descriptor: the console stream copes with it.
        }
        return null;
    }
}
