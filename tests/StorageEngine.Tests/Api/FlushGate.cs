namespace StorageEngine.Tests.Api;

/// <summary>
/// Holds every file flush, once armed, until released: lets a test see which thread is left waiting for the
/// flushes of a checkpoint.
/// </summary>
internal sealed class FlushGate
{
    private readonly ManualResetEventSlim _released = new(initialState: true);
    private readonly ManualResetEventSlim _reached = new(initialState: false);

    /// <summary>From now on a flush waits for <see cref="Release"/>.</summary>
    public void Arm() => _released.Reset();

    /// <summary>Lets waiting and later flushes through.</summary>
    public void Release() => _released.Set();

    /// <summary>Waits until a flush has reached the armed gate.</summary>
    public bool WaitUntilReached(TimeSpan timeout) => _reached.Wait(timeout);

    /// <summary>Called by a file before it flushes.</summary>
    public void Pass()
    {
        if (_released.IsSet) return;
        _reached.Set();
        // Bounded, so that a wrong implementation fails its assertions instead of hanging the run.
        _released.Wait(TimeSpan.FromSeconds(30));
    }
}
