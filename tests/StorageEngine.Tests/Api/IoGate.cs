namespace StorageEngine.Tests.Api;

/// <summary>
/// Holds the flushes of the files <see cref="FlushesOf"/> picks (all by default) and the writes of those
/// <see cref="WritesOf"/> picks (none by default), once armed, until released:
/// lets a test see which thread is left waiting for a checkpoint's flushes, or hold a commit on its way to the
/// journal.
/// </summary>
internal sealed class IoGate
{
    private readonly ManualResetEventSlim _released = new(initialState: true);
    private readonly ManualResetEventSlim _reached = new(initialState: false);

    /// <summary>From now on a held flush or write waits for <see cref="Release"/>.</summary>
    public void Arm() => _released.Reset();

    /// <summary>Lets waiting and later operations through.</summary>
    public void Release() => _released.Set();

    /// <summary>Waits until a held operation has reached the armed gate.</summary>
    public bool WaitUntilReached(TimeSpan timeout) => _reached.Wait(timeout);

    /// <summary>Which files' writes the armed gate holds too (none by default).</summary>
    public Func<string, bool> WritesOf { get; set; } = _ => false;

    /// <summary>Called by a file before it writes.</summary>
    public void PassWrite(string path)
    {
        if (WritesOf(path)) Pass();
    }

    /// <summary>Which files' flushes the armed gate holds (all by default).</summary>
    public Func<string, bool> FlushesOf { get; set; } = _ => true;

    /// <summary>Called by a file before it flushes.</summary>
    public void PassFlush(string path)
    {
        if (FlushesOf(path)) Pass();
    }

    private void Pass()
    {
        if (_released.IsSet) return;
        _reached.Set();
        // Bounded, so that a wrong implementation fails its assertions instead of hanging the run.
        _released.Wait(TimeSpan.FromSeconds(30));
    }
}
