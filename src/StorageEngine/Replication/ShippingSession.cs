namespace StorageEngine.Replication;

/// <summary>
/// A running journal shipping session, as checkpoints see it: journal files from <see cref="FileNumber"/> on
/// are still to be read and must not be retired.
/// </summary>
internal sealed class ShippingSession
{
    private long _fileNumber;

    public ShippingSession(long fileNumber) => _fileNumber = fileNumber;

    /// <summary>The oldest journal file the session still needs; only grows.</summary>
    public long FileNumber
    {
        get => Volatile.Read(ref _fileNumber);
        set => Volatile.Write(ref _fileNumber, value);
    }
}
