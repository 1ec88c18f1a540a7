namespace StorageEngine.Replication;

/// <summary>
/// A running journal shipping session, as checkpoints see it: journal files from <see cref="FileNumber"/> on
/// are still to be read and must not be retired.
/// </summary>
internal sealed class ShippingSession
{
    private long _fileNumber;
    private long _shippedTransactionId;

    /// <summary>A session that starts at journal file <paramref name="fileNumber"/>, after transaction <paramref name="afterTransactionId"/>.</summary>
    public ShippingSession(long fileNumber, long afterTransactionId)
    {
        _fileNumber = fileNumber;
        _shippedTransactionId = afterTransactionId;
    }

    /// <summary>
    /// The last transaction shipped; only grows. Pages freed after it stay unused until the session moves past
    /// their release: a later record may name values in the data file that the session must still read.
    /// </summary>
    public long ShippedTransactionId
    {
        get => Volatile.Read(ref _shippedTransactionId);
        set => Volatile.Write(ref _shippedTransactionId, value);
    }

    /// <summary>The oldest journal file the session still needs; only grows.</summary>
    public long FileNumber
    {
        get => Volatile.Read(ref _fileNumber);
        set => Volatile.Write(ref _fileNumber, value);
    }
}
