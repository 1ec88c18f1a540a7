namespace StorageEngine.Tests.Durability;

/// <summary>
/// Read transactions one after another on several threads until disposed, each begun before the one before it
/// on its thread ends: a reader is registered at every moment, at the newest snapshot once commits stop. Each
/// checks what it reads with the given action (its thread's index and a running count).
/// </summary>
internal sealed class RelayReaders : IAsyncDisposable
{
    private readonly CancellationTokenSource _stop = new();
    private readonly Task[] _threads;

    public RelayReaders(StorageEnvironment env, int threads, Action<ReadTransaction, int> read, TimeSpan patience)
    {
        using var started = new CountdownEvent(threads);
        _threads = Enumerable.Range(0, threads).Select(t => Task.Factory.StartNew(() =>
        {
            int i = t;
            var previous = env.BeginRead();
            started.Signal();
            while (!_stop.IsCancellationRequested)
            {
                var current = env.BeginRead();
                previous.Dispose();
                previous = current;
                read(current, i);
                i = (i + 7) & int.MaxValue;
            }
            previous.Dispose();
        }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();
        if (!started.Wait(patience)) throw new TimeoutException("the readers did not start");
    }

    /// <summary>Stops the readers and rethrows what any of them threw.</summary>
    public async ValueTask DisposeAsync()
    {
        _stop.Cancel();
        await Task.WhenAll(_threads);
        _stop.Dispose();
    }
}
