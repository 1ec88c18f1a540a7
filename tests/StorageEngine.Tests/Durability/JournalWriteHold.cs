using StorageEngine.Platform;

namespace StorageEngine.Tests.Durability;

/// <summary>Holds the next journal write of an environment on a crashing file system until released.</summary>
internal sealed class JournalWriteHold : IDisposable
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);
    private readonly ManualResetEventSlim _release = new(false);
    private int _armed;

    public JournalWriteHold()
    {
        FileSystem = new CrashingFileSystem(new MemoryFileSystem());
        FileSystem.OnChange = what =>
        {
            if (!what.StartsWith("writing ", StringComparison.Ordinal) || !Path.GetFileName(what).StartsWith("journal.", StringComparison.Ordinal)) return;
            if (Interlocked.Exchange(ref _armed, 0) == 0) return;
            Reached.Set();
            _release.Wait(Patience);
        };
    }

    public CrashingFileSystem FileSystem { get; }

    public ManualResetEventSlim Reached { get; } = new(false);

    public void HoldNextJournalWrite() => Volatile.Write(ref _armed, 1);

    public void Release() => _release.Set();

    public void Dispose()
    {
        _release.Set();
        _release.Dispose();
        Reached.Dispose();
    }
}
