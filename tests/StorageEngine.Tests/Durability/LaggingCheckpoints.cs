using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>
/// A file system on which the background checkpointer falls behind the writer by a fixed number of commits,
/// whatever the machine's speed: each of its data-file syncs is held until the writer has reported
/// <c>lag</c> more commits (<see cref="Committed"/>), or the writer asks for a checkpoint itself (then none is held
/// until its next commit: <see cref="LetHeldSyncFinish"/>), or <see cref="ReleaseAll"/>. A sleep in the sync made the lag depend on
/// how many commits the writer managed meanwhile, which an emulated or loaded machine does not.
/// </summary>
internal sealed class LaggingCheckpoints
{
    // Only against a deadlock nobody foresaw: a hold ends at the latest after this, without failing anything.
    private static readonly TimeSpan Guard = TimeSpan.FromMinutes(2);
    private readonly object _gate = new();
    private readonly int _lag;
    private long _commits;
    private bool _openUntilNextCommit;
    private bool _released;

    public LaggingCheckpoints(int lag)
    {
        _lag = lag;
        FileSystem = new CrashingFileSystem(new MemoryFileSystem());
        FileSystem.OnChange = what =>
        {
            if (what.StartsWith("syncing ", StringComparison.Ordinal) && what.EndsWith(".sedb", StringComparison.Ordinal)
                && Thread.CurrentThread.Name == "StorageEngine checkpointer")
                Hold();
        };
    }

    public CrashingFileSystem FileSystem { get; }

    /// <summary>Data-file syncs of the background checkpointer that were held.</summary>
    public int HeldSyncs { get; private set; }

    /// <summary>The writer acknowledged one more commit.</summary>
    public void Committed()
    {
        lock (_gate)
        {
            _commits++;
            _openUntilNextCommit = false;
            Monitor.PulseAll(_gate);
        }
    }

    /// <summary>
    /// Lets a held sync finish now, and the rest of that checkpoint's syncs pass: the writer is about to
    /// checkpoint and would wait for it.
    /// </summary>
    public void LetHeldSyncFinish()
    {
        lock (_gate)
        {
            _openUntilNextCommit = true;
            Monitor.PulseAll(_gate);
        }
    }

    /// <summary>Holds nothing from now on (before the environment closes, which waits for its checkpointer).</summary>
    public void ReleaseAll()
    {
        lock (_gate)
        {
            _released = true;
            Monitor.PulseAll(_gate);
        }
    }

    private void Hold()
    {
        long deadline = Environment.TickCount64 + (long)Guard.TotalMilliseconds;
        lock (_gate)
        {
            if (_released || _openUntilNextCommit) return;
            HeldSyncs++;
            long until = _commits + _lag;
            while (!_released && !_openUntilNextCommit && _commits < until)
            {
                long left = deadline - Environment.TickCount64;
                if (left <= 0) return;
                Monitor.Wait(_gate, (int)left);
            }
        }
    }
}
