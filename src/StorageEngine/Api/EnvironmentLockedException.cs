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
            ? $"The environment is already open in this process: an environment opened on this directory earlier has not been disposed, or is still closing (lock file '{lockFilePath}' is held). Dispose it before opening the directory again."
            : $"The environment is already open in another process (lock file '{lockFilePath}' is held).", innerException)
    {
        LockFilePath = lockFilePath;
        IsHeldInThisProcess = heldInThisProcess;
    }

    /// <summary>True when an environment of this process holds the lock (one not disposed); false when another process does.</summary>
    public bool IsHeldInThisProcess { get; }

    /// <summary>Path of the lock file.</summary>
    public string LockFilePath { get; }
}
