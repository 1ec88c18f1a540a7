namespace StorageEngine;

/// <summary>Another process (or another open environment in this process) already has the environment open.</summary>
public sealed class EnvironmentLockedException : StorageException
{
    /// <summary>Creates the exception for the lock file that could not be taken.</summary>
    public EnvironmentLockedException(string lockFilePath, Exception? innerException = null)
        : base($"The environment is already open in another process or instance (lock file '{lockFilePath}' is held).", innerException)
    {
        LockFilePath = lockFilePath;
    }

    /// <summary>The exception for a data file that another open environment holds locked, and what holds it.</summary>
    private EnvironmentLockedException(string lockFilePath, string message)
        : base(message)
    {
        LockFilePath = lockFilePath;
    }

    /// <summary>
    /// The exception for a data file locked by another open environment although its <c>LOCK</c> file could be
    /// taken: the <c>LOCK</c> file was deleted or replaced while that environment was open.
    /// </summary>
    internal static EnvironmentLockedException ForDataFile(string dataFilePath, string lockFilePath, bool readOnly, string? holder) =>
        new(lockFilePath,
            $"The environment is already open {(readOnly ? "read-write " : "")}by {holder ?? "another process or another StorageEnvironment in this process"}: " +
            $"its data file '{dataFilePath}' is locked{(readOnly ? " for writing" : "")}. The lock file '{lockFilePath}' could be taken, so it was " +
            "deleted or replaced while that environment was open; a second open is refused all the same. Close the other environment first.");

    /// <summary>Path of the lock file.</summary>
    public string LockFilePath { get; }
}
