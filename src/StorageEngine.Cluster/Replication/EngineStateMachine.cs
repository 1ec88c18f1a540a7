using System.Buffers;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;
using Microsoft.Extensions.Logging;
using StorageEngine.Platform;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// StorageEngine as DotNext's Raft state machine. Each committed write entry is applied in one write transaction
/// that also records the entry's index and term (<see cref="AppliedIndex"/>), so an entry whose index the
/// environment already holds is skipped: after a restart the log replays from the last snapshot and every entry
/// takes effect exactly once. Every <see cref="SnapshotInterval"/> entries the environment's backup stream,
/// started right after an entry's commit, becomes the next snapshot; a snapshot received from the leader is
/// restored into a fresh environment that replaces the one in use.
/// </summary>
internal sealed class EngineStateMachine : IStateMachine, IDisposable
{
    private readonly StateDirectory _state;
    private readonly string _snapshotDirectory;
    private readonly ILogger _logger;
    private volatile StorageEnvironment _environment;
    private volatile BackupSnapshot? _snapshot;
    private Task _snapshotting = Task.CompletedTask;
    private volatile Task _lastCommit = Task.CompletedTask;
    private long _appliedIndex;
    private bool _disposed;

    public EngineStateMachine(string dataDirectory, StorageEnvironmentOptions template, long snapshotInterval, ILogger logger)
    {
        _logger = logger;
        SnapshotInterval = snapshotInterval;
        _snapshotDirectory = Path.Combine(dataDirectory, "snapshots");
        Directory.CreateDirectory(_snapshotDirectory);
        _state = new StateDirectory(Path.Combine(dataDirectory, "state"), template);
        foreach (string leftover in Directory.EnumerateFiles(_snapshotDirectory, "*.tmp"))
            File.Delete(leftover);
        _snapshot = Directory.EnumerateFiles(_snapshotDirectory, "*" + BackupSnapshot.Extension)
            .Select(BackupSnapshot.FromPath).OfType<BackupSnapshot>().MaxBy(s => s.Index);
        _environment = _state.OpenCurrent();
        _appliedIndex = Replication.AppliedIndex.Read(_environment).Index;
    }

    /// <summary>Applied entries between two snapshots.</summary>
    public long SnapshotInterval { get; }

    /// <summary>The environment in use; replaced when a snapshot is installed.</summary>
    public StorageEnvironment Environment => _environment;

    /// <summary>The index of the last entry the environment holds.</summary>
    public long LastAppliedIndex => Volatile.Read(ref _appliedIndex);

    /// <summary>Snapshots installed from the leader since start.</summary>
    public int SnapshotsInstalled { get; private set; }

    /// <summary>Snapshots taken from the local environment since start.</summary>
    public int SnapshotsTaken { get; private set; }

    ISnapshot? ISnapshotManager.Snapshot => _snapshot;

    /// <summary>
    /// Brings the environment up to the newest local snapshot when it is behind it (an environment in Lazy mode
    /// can lose its last commits to a power loss, while the log was already compacted up to the snapshot).
    /// Runs before the log is opened.
    /// </summary>
    public async Task RecoverAsync(CancellationToken cancellationToken)
    {
        if (_snapshot is { } snapshot && snapshot.Index > _appliedIndex)
        {
            _logger.LogWarning("The environment holds entries up to {Applied}, behind the snapshot at {Snapshot}: restoring the snapshot.", _appliedIndex, snapshot.Index);
            await ReplaceEnvironmentAsync(snapshot.Path, cancellationToken).ConfigureAwait(false);
        }
    }

    public async ValueTask<long> ApplyAsync(LogEntry entry, CancellationToken token)
    {
        if (entry.IsSnapshot)
            return await InstallSnapshotAsync(entry, token).ConfigureAwait(false);
        long index = entry.Index;
        if (index <= _appliedIndex || entry.IsConfiguration || !entry.TryGetPayload(out var sequence) || sequence.IsEmpty)
            return index;

        byte[]? copy = sequence.IsSingleSegment ? null : sequence.ToArray();
        ReadOnlyMemory<byte> payload = copy ?? sequence.First;
        var pending = entry.Context as PendingWrite;
        WriteCommand.TryReadRequestId(payload.Span, out var requestId);
        if (pending is not null && pending.RequestId != requestId)
        {
            pending.MarkSuperseded();
            pending = null;
        }

        var environment = _environment;
        Exception? refused = null;
        Task commit;
        var transaction = await environment.BeginWriteAsync(token).ConfigureAwait(false);
        try
        {
            try
            {
                WriteCommand.Apply(payload.Span, transaction);
            }
            catch (Exception e) when (e is FormatException or ArgumentException)
            {
                // The same entry is refused the same way on every node: nothing of it is applied, only its index.
                refused = e;
                transaction.Dispose();
                transaction = await environment.BeginWriteAsync(token).ConfigureAwait(false);
            }
            Replication.AppliedIndex.Write(transaction, index, entry.Term);
            // The commit is sealed in memory here and becomes durable and visible in the background, so the next
            // entry's transaction starts at once and commits in flight share journal writes. The client is answered,
            // and linearizable reads read, only once it is visible (WaitVisibleAsync); the log keeps every entry
            // after the last snapshot, so an entry whose commit a crash loses is applied again on restart.
            commit = transaction.CommitAsync().AsTask();
        }
        finally
        {
            transaction.Dispose();
        }
        _lastCommit = commit;
        Volatile.Write(ref _appliedIndex, index);
        if (refused is not null)
            _logger.LogWarning("Log entry {Index} was refused as a whole: {Reason}", index, refused.Message);
        if (pending is not null)
            _ = AnswerWhenVisibleAsync(commit, pending, index, refused);

        if (index - (_snapshot?.Index ?? 0) >= SnapshotInterval && _snapshotting.IsCompleted)
        {
            // The backup must see this entry's commit, so it waits for it.
            await commit.ConfigureAwait(false);
            _snapshotting = TakeSnapshotAsync(environment, index, entry.Term, environment.LastCommittedTransactionId);
        }
        return index;
    }

    /// <summary>Completes when every entry applied so far is durable and visible to new read transactions.</summary>
    public Task WaitVisibleAsync() => _lastCommit;

    private static async Task AnswerWhenVisibleAsync(Task commit, PendingWrite pending, long index, Exception? refused)
    {
        try
        {
            await commit.ConfigureAwait(false);
        }
        catch (Exception e)
        {
            pending.TrySetException(new WriteOutcomeUnknownException($"The environment failed to commit log entry {index}: {e.Message}", e));
            return;
        }
        if (refused is not null)
            pending.TrySetException(new ArgumentException($"The write was refused: {refused.Message}", refused));
        else
            pending.TrySetResult(index);
    }

    public ValueTask ReclaimGarbageAsync(long watermark, CancellationToken token)
    {
        foreach (string path in Directory.EnumerateFiles(_snapshotDirectory, "*" + BackupSnapshot.Extension))
        {
            if (BackupSnapshot.FromPath(path) is { } old && old.Index < watermark && old.Index < (_snapshot?.Index ?? long.MaxValue))
            {
                try
                {
                    File.Delete(path);
                }
                catch (IOException e)
                {
                    _logger.LogWarning("Could not delete the old snapshot {Path}: {Reason}", path, e.Message);
                }
            }
        }
        return ValueTask.CompletedTask;
    }

    /// <summary>
    /// Streams the environment's backup into a snapshot file. The backup's read transaction is taken before the
    /// first await, right after entry <paramref name="index"/> was committed and before the next entry is applied,
    /// so the snapshot holds exactly the entries up to it; its transaction id is checked to be sure.
    /// </summary>
    private async Task TakeSnapshotAsync(StorageEnvironment environment, long index, long term, long expectedTransaction)
    {
        string path = Path.Combine(_snapshotDirectory, BackupSnapshot.FileName(index, term));
        string temporary = path + ".tmp";
        try
        {
            var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16, FileOptions.Asynchronous);
            BackupSummary summary;
            await using (file.ConfigureAwait(false))
            {
                summary = await environment.BackupAsync(file).ConfigureAwait(false);
                await file.FlushAsync().ConfigureAwait(false);
                file.Flush(flushToDisk: true);
            }
            if (summary.TransactionId != expectedTransaction)
            {
                File.Delete(temporary);
                _logger.LogWarning("The backup for the snapshot at {Index} holds transaction {Actual}, not {Expected}; skipped.", index, summary.TransactionId, expectedTransaction);
                return;
            }
            // The directory is synced too: DotNext drops the log up to the snapshot once it is announced, so the
            // snapshot's name must survive a power loss as surely as its contents.
            OsFileSystem.Instance.Rename(temporary, path);
            _snapshot = new BackupSnapshot(path, index, term);
            SnapshotsTaken++;
            _logger.LogInformation("Snapshot at {Index}: {Bytes} bytes.", index, summary.StreamBytes);
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException or StorageException or InvalidOperationException)
        {
            _logger.LogWarning("The snapshot at {Index} failed: {Reason}", index, e.Message);
            try
            {
                File.Delete(temporary);
            }
            catch (IOException)
            {
            }
        }
    }

    private async ValueTask<long> InstallSnapshotAsync(LogEntry entry, CancellationToken token)
    {
        await _snapshotting.ConfigureAwait(false);
        await _lastCommit.ConfigureAwait(false);
        string path = Path.Combine(_snapshotDirectory, BackupSnapshot.FileName(entry.Index, entry.Term));
        string temporary = path + ".tmp";
        var file = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, 1 << 16, FileOptions.Asynchronous);
        await using (file.ConfigureAwait(false))
        {
            await entry.WriteToAsync(file, 1 << 16, token).ConfigureAwait(false);
            await file.FlushAsync(token).ConfigureAwait(false);
            file.Flush(flushToDisk: true);
        }
        OsFileSystem.Instance.Rename(temporary, path);
        await ReplaceEnvironmentAsync(path, token).ConfigureAwait(false);
        _snapshot = new BackupSnapshot(path, entry.Index, entry.Term);
        SnapshotsInstalled++;
        _logger.LogInformation("Installed the snapshot at {Index} from the leader.", entry.Index);
        return entry.Index;
    }

    private async Task ReplaceEnvironmentAsync(string snapshotPath, CancellationToken token)
    {
        string oldPath = _state.CurrentPath;
        var restored = await _state.RestoreAsync(snapshotPath, token).ConfigureAwait(false);
        var old = Interlocked.Exchange(ref _environment, restored);
        Volatile.Write(ref _appliedIndex, Replication.AppliedIndex.Read(restored).Index);
        old.Dispose();
        StateDirectory.TryDelete(oldPath);
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        try
        {
            Task.WaitAll([_snapshotting, _lastCommit], TimeSpan.FromSeconds(30));
        }
        catch (AggregateException)
        {
        }
        _environment.Dispose();
    }
}
