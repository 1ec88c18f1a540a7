namespace StorageEngine.Tests.Faults;

/// <summary>What an injected fault does to the call it hits.</summary>
public enum FaultKind
{
    /// <summary>Nothing happens and the call throws an IOException with EIO.</summary>
    IOError,

    /// <summary>A prefix of the bytes (cut at a 512-byte sector) lands, then EIO: a short write.</summary>
    ShortWrite,

    /// <summary>
    /// Every byte lands, then EIO: what O_DSYNC reports when the data reached the file but the implied sync
    /// failed. The caller cannot tell it from <see cref="IOError"/>.
    /// </summary>
    LandedThenFailed,

    /// <summary>
    /// ENOSPC. A write lands nothing; a preallocation extends the file part of the way first, as writing zeros
    /// chunk by chunk does when the disk fills.
    /// </summary>
    DiskFull,

    /// <summary>
    /// The process dies in the call: none, a prefix or a scattering of its sectors land, and every later change
    /// to any file fails, until the test simulates the power loss and revives the file system.
    /// </summary>
    Crash,
}
