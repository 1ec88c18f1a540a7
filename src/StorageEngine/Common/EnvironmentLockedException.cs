namespace StorageEngine;

/// <summary>
/// Another process, or an environment of this process that has not been disposed, already has the environment
/// open (<see cref="IsHeldInThisProcess"/> says which).
/// </summary>
public sealed class EnvironmentLockedException : StorageException
{
    /// <summary>Creates the exception for the lock file that could not be taken.</summary>
    public EnvironmentLockedException(string lockFilePath, Exception? innerException = null)
        : base($"The environment is already open in another process or instance (lock file '{lockFilePath}' is held).", innerException)
    {
        LockFilePath = lockFilePath;
    }

    /// <summary>The lock is held by an environment of this process, which has not been disposed.</summary>
    internal EnvironmentLockedException(string lockFilePath, bool heldInThisProcess, Exception? innerException)
        : base(heldInThisProcess
            ? $"The environment is already open in this process: an environment opened on this directory earlier has not been disposed, or is still closing (lock file '{lockFilePath}' is held). " +
              "Dispose it before opening the directory again; a disposed environment whose write transaction is still open closes once that transaction is disposed."
            : $"The environment is already open in another process (lock file '{lockFilePath}' is held).", innerException)
    {
        LockFilePath = lockFilePath;
        IsHeldInThisProcess = heldInThisProcess;
    }

    /// <summary>True when an environment of this process holds the lock (one not disposed); false when another process does.</summary>
    public bool IsHeldInThisProcess { get; }

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
