namespace StorageEngine.Transactions;

/// <summary>
/// The failure that stopped an environment's writes, and what failed (a commit's journal write, a checkpoint,
/// ...). Once set, every later writer is refused with it: what was built on a failed write can no longer be
/// trusted, and a reopen (recovery from the journal) is the way back.
/// </summary>
internal sealed class WriteFailure
{
    private readonly object _lock = new();
    private Exception? _failure;
    private string? _source;

    /// <summary>The failure, or null while writes are accepted.</summary>
    public Exception? Exception => Volatile.Read(ref _failure);

    public bool HasFailed => Volatile.Read(ref _failure) is not null;

    /// <summary>
    /// Stops writes after <paramref name="failure"/> of <paramref name="source"/> (a phrase that begins a sentence:
    /// "A checkpoint"), which later writers are told. Keeps the first failure unless <paramref name="replace"/>.
    /// </summary>
    public void Record(Exception failure, string source, bool replace = false)
    {
        lock (_lock)
        {
            if (_failure is not null && !replace) return;
            _source = source;
            Volatile.Write(ref _failure, failure);
        }
    }

    public void ThrowIfFailed()
    {
        if (Volatile.Read(ref _failure) is not null) Throw();
    }

    private void Throw()
    {
        Exception failure;
        string source;
        lock (_lock) (failure, source) = (_failure!, _source!);
        throw new StorageException($"{source} failed ({failure.Message}); this environment accepts no more writes. Reopen it: recovery keeps every acknowledged commit.", failure);
    }
}
