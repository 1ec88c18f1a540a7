namespace StorageEngine.Tool;

/// <summary>The tool's process exit codes.</summary>
internal static class ExitCodes
{
    /// <summary>The command did what was asked.</summary>
    public const int Success = 0;

    /// <summary>The command failed (bad arguments, a wrong path, a locked or unreadable environment, an I/O error).</summary>
    public const int Error = 1;

    /// <summary><c>check</c> ran and found problems.</summary>
    public const int Unhealthy = 2;

    /// <summary>
    /// Standard output was closed before the command finished writing (<c>dump | head</c>): what a shell reports for a
    /// process that SIGPIPE ended.
    /// </summary>
    public const int OutputClosed = 141;

    /// <summary>Interrupted (Ctrl+C).</summary>
    public const int Cancelled = 130;
}
