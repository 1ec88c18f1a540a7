namespace StorageEngine;

/// <summary>What a returned commit promises.</summary>
public enum DurabilityMode
{
    /// <summary>
    /// The default. Commit returns once the transaction's journal record is on the device (unbuffered,
    /// write-through I/O, or a sync where the file system refuses that): it survives a process kill and a
    /// power loss.
    /// </summary>
    Safe = 0,

    /// <summary>
    /// Commit returns once the record is handed to the operating system, without waiting for the device:
    /// it survives a process crash, not a power loss or an operating system crash.
    /// </summary>
    Lazy = 1,

    /// <summary>No files at all: the environment lives in memory and is gone when disposed.</summary>
    InMemory = 2,
}
