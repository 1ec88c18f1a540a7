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

    /// <summary>Path of the lock file.</summary>
    public string LockFilePath { get; }
}
