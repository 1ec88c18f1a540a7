using Microsoft.Extensions.Logging;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine;

public sealed partial class StorageEnvironment
{
    /// <summary>Key and value bytes per write transaction of a compaction.</summary>
    private const long CompactionBatchBytes = 8L << 20;

    /// <summary>Journal file size of a compacted environment created by the path overload.</summary>
    private const long CompactionJournalFileSize = 16L << 20;

    /// <summary>Entries between progress reports and cancellation checks of long copies.</summary>
    private const int CopyReportInterval = 4096;

    /// <summary>
    /// Walks every tree and the free-space map and reports each broken invariant, like <see cref="Check()"/>,
    /// telling <paramref name="progress"/> how many of the data file's pages it has visited.
    /// </summary>
    /// <param name="progress">Receives reports on the calling thread, every 1,024 pages and at the end.</param>
    /// <param name="cancellationToken">Checked every 1,024 pages.</param>
    /// <remarks>
    /// The check walks one snapshot, the last committed transaction when it starts. In a read-write environment
    /// writers keep committing while it runs: it holds the writer off only while it copies the snapshot's
    /// free-space bitmaps (with 4 KiB pages, about 1/32,000 of the file), then walks the trees through a read
    /// transaction. What it reports is true of that snapshot; commits made meanwhile are not in it. A read-only
    /// environment has no writer: the check reads the latest snapshot.
    /// </remarks>
    /// <exception cref="OperationCanceledException">The token was cancelled; nothing was changed.</exception>
    public CheckReport Check(IProgress<CheckProgress>? progress, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var forwarder = CheckProgressForwarder.To(progress);
        if (!IsReadOnly)
        {
            using var snapshot = BeginCheckSnapshot(out var bitmaps);
            var checker = new EnvironmentChecker(snapshot.Snapshot, snapshot.Pages, bitmaps, _freeSpace, PageSize);
            return CheckReport.From(checker.Run(forwarder, cancellationToken));
        }
        // No writer ever runs here, so the bitmaps are those of the latest snapshot: a page writer that is never
        // written to reads them as a write transaction would.
        using var read = BeginRead();
        var pages = NewPageWriter(read.Snapshot, PageSourceFor(read.Snapshot), read.Snapshot.TransactionId);
        try
        {
            return CheckReport.From(new EnvironmentChecker(read.Snapshot, pages, _freeSpace, PageSize).Run(forwarder, cancellationToken));
        }
        finally
        {
            pages.Discard();
        }
    }

    /// <summary>
    /// The read transaction a check of a read-write environment walks, and (in <paramref name="bitmaps"/>) the
    /// free-space bitmaps as they were at its snapshot. Bitmaps are changed in place by every commit, so they are
    /// copied while a write transaction holds the writer off; the trees need no copy, because the read transaction
    /// keeps every page its snapshot uses from being reused until it ends.
    /// </summary>
    private ReadTransaction BeginCheckSnapshot(out BitmapCopy bitmaps)
    {
        using var writer = BeginInternalWrite();
        // Commits still on their way to the journal are in the writer's bitmaps but not yet in what readers see:
        // wait until they are published, so that the read snapshot and the copied bitmaps are one version. None can
        // start meanwhile: this transaction holds the write lock.
        if (_commits.Pending.Latest is { } inFlight) WaitDurable(inFlight, spin: false);
        var read = BeginRead();
        try
        {
            if (read.Snapshot.TransactionId != writer.Snapshot.TransactionId)
                throw new InvalidOperationException($"The check's snapshot is transaction {read.Snapshot.TransactionId}, but the writer's is {writer.Snapshot.TransactionId}: the bitmaps would not match the trees.");
            bitmaps = BitmapCopy.Take((PageWriter)writer.Pages, _freeSpace, read.Snapshot.State.PageCount, PageSize);
            return read;
        }
        catch
        {
            read.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Copies every tree, as one read transaction sees it, into a new environment in
    /// <paramref name="destinationDirectory"/>: keys arrive in order, so pages are filled and the copy has no free
    /// pages. The source stays open and usable; writers may commit meanwhile (the copy reflects the snapshot it
    /// started from). The destination gets this environment's page size.
    /// </summary>
    /// <param name="destinationDirectory">A directory that does not exist or is empty.</param>
    /// <param name="progress">Receives reports on the calling thread, every 4,096 entries, after each batch and at the end.</param>
    /// <param name="cancellationToken">Checked every 4,096 entries.</param>
    /// <returns>What was copied.</returns>
    /// <exception cref="ArgumentException">The destination is the source, a file, or a directory that is not empty.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled: the partial destination has been removed.</exception>
    public CompactionResult CompactTo(string destinationDirectory, IProgress<CompactionProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(destinationDirectory);
        return CompactTo(new StorageEnvironmentOptions
        {
            Path = destinationDirectory,
            PageSize = PageSize,
            JournalFileSize = CompactionJournalFileSize,
            LoggerFactory = _options.LoggerFactory,
            FileSystem = _options.Durability == DurabilityMode.InMemory ? null : _options.FileSystem,
        }, progress, cancellationToken);
    }

    /// <summary>
    /// Copies every tree, as one read transaction sees it, into a new environment described by
    /// <paramref name="destination"/> (its <see cref="StorageEnvironmentOptions.Path"/>, which must not exist or be
    /// empty, and its <see cref="StorageEnvironmentOptions.PageSize"/>, which may differ from this environment's).
    /// The copy is written in batches of write transactions without syncing each, then made durable by one
    /// checkpoint when the destination is closed; on any failure or cancellation the partial destination is
    /// removed (an empty directory that existed before is left empty).
    /// </summary>
    /// <param name="destination">Options of the new environment; <see cref="DurabilityMode.InMemory"/> and <see cref="StorageEnvironmentOptions.ReadOnly"/> are refused.</param>
    /// <param name="progress">Receives reports on the calling thread, every 4,096 entries, after each batch and at the end.</param>
    /// <param name="cancellationToken">Checked every 4,096 entries.</param>
    /// <returns>What was copied.</returns>
    /// <exception cref="ArgumentException">The destination is the source, a file, or a directory that is not empty, or its options are invalid.</exception>
    /// <exception cref="OperationCanceledException">The token was cancelled: the partial destination has been removed.</exception>
    public CompactionResult CompactTo(StorageEnvironmentOptions destination, IProgress<CompactionProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ThrowIfDisposed();
        var options = CompactionTarget(destination, out var fs, out string target, out bool existed);

        StorageEnvironment? copy = null;
        try
        {
            cancellationToken.ThrowIfCancellationRequested();
            using var read = BeginRead();
            var names = read.GetTreeNames();
            long totalEntries = 0;
            foreach (var name in names) totalEntries += read.OpenTree(name).Count;
            long sourcePages = read.Snapshot.State.PageCount;
            copy = Open(options);
            var counts = new CopyCounts(progress, totalEntries, names.Count);
            counts.Report();
            CopyTrees(read, copy, names, counts, cancellationToken);
            long destinationPages = copy.CurrentSnapshot.State.PageCount;
            copy.Dispose();
            copy = null;
            // Spare journal files are preallocated for the next commits; a finished copy has none to make.
            foreach (var file in fs.ListFiles(target))
                if (Journal.JournalFileNames.IsFree(file)) fs.Delete(Path.Combine(target, file));
            counts.Report();
            return new CompactionResult
            {
                SourceTransactionId = read.SnapshotId,
                TreeCount = names.Count,
                EntryCount = counts.Entries,
                SourcePageCount = sourcePages,
                DestinationPageCount = destinationPages,
                DestinationDirectory = target,
            };
        }
        catch
        {
            if (copy is not null)
            {
                try
                {
                    copy.Dispose();
                }
                catch (Exception e)
                {
                    Common.EngineLog.CompactionDestinationCloseFailed(_logger, e, target);
                }
            }
            RemovePartialCopy(fs, target, existed);
            throw;
        }
    }

    /// <summary>
    /// The destination's options for a compaction: checked (not in memory, not read-only, another directory than
    /// this one, new or empty), its path made full, Lazy (batches are not synced one by one: a copy cut short is
    /// thrown away, and closing checkpoints it all).
    /// </summary>
    private StorageEnvironmentOptions CompactionTarget(StorageEnvironmentOptions destination, out IFileSystem fs, out string target, out bool existed)
    {
        if (destination.Durability == DurabilityMode.InMemory)
            throw new ArgumentException("A compacted copy is written to files; the destination cannot be InMemory.", nameof(destination));
        if (destination.ReadOnly)
            throw new ArgumentException("The destination of a compaction is written; it cannot be ReadOnly.", nameof(destination));
        var options = destination.Clone();
        fs = options.FileSystem ?? OsFileSystem.Instance;
        target = options.Path ?? throw new ArgumentException("The destination needs a Path.", nameof(destination));
        if (!fs.IsInMemory) target = Path.GetFullPath(target);
        options.Path = target;
        if (fs.IsInMemory == _fileSystem.IsInMemory && SamePath(target, Directory))
            throw new ArgumentException($"The destination must be another directory than the source ('{Directory}').", nameof(destination));
        if (!fs.IsInMemory && File.Exists(target))
            throw new ArgumentException($"The destination '{target}' is a file; compact into a new or empty directory.", nameof(destination));
        existed = fs.Exists(target);
        if (existed && !IsEmptyDirectory(fs, target))
            throw new ArgumentException($"The destination '{target}' is not empty; compact into a new or empty directory.", nameof(destination));
        options.Durability = DurabilityMode.Lazy;
        return options;
    }

    /// <summary>
    /// Copies every tree of <paramref name="read"/>'s snapshot into <paramref name="copy"/> in key order (so each
    /// leaf is filled before the next is started), committing every <see cref="CompactionBatchBytes"/>.
    /// </summary>
    private static void CopyTrees(ReadTransaction read, StorageEnvironment copy, IReadOnlyList<string> names, CopyCounts counts, CancellationToken cancellationToken)
    {
        var write = copy.BeginWrite();
        try
        {
            long batch = 0;
            foreach (var name in names)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var from = read.OpenTree(name);
                var to = write.CreateTree(name, from.Options);
                using var cursor = from.CreateCursor();
                for (bool more = cursor.First(); more; more = cursor.Next())
                {
                    var key = cursor.Key;
                    var value = cursor.Value;
                    to.Put(key, value);
                    batch += key.Length + value.Length + 16;
                    counts.Entries++;
                    counts.Bytes += key.Length + value.Length;
                    if (counts.Entries % CopyReportInterval == 0)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        counts.Report();
                    }
                    if (batch < CompactionBatchBytes) continue;
                    cancellationToken.ThrowIfCancellationRequested();
                    write.Commit();
                    counts.Report();
                    write = copy.BeginWrite();
                    to = write.CreateTree(name, from.Options);
                    batch = 0;
                }
                counts.Trees++;
            }
            cancellationToken.ThrowIfCancellationRequested();
            write.Commit();
        }
        finally
        {
            write.Dispose();
        }
    }

    private static bool SamePath(string a, string b) =>
        string.Equals(Path.GetFullPath(a).TrimEnd(Path.DirectorySeparatorChar), Path.GetFullPath(b).TrimEnd(Path.DirectorySeparatorChar),
            OperatingSystem.IsWindows() ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal);

    private static bool IsEmptyDirectory(IFileSystem fs, string directory) =>
        fs.IsInMemory ? fs.ListFiles(directory).Count == 0 : !System.IO.Directory.EnumerateFileSystemEntries(directory).Any();

    /// <summary>Deletes what a failed copy wrote, leaving the destination as it was found: missing, or empty.</summary>
    private void RemovePartialCopy(IFileSystem fs, string target, bool existed)
    {
        try
        {
            foreach (var file in fs.ListFiles(target)) fs.Delete(Path.Combine(target, file));
            if (!existed && !fs.IsInMemory && System.IO.Directory.Exists(target)) System.IO.Directory.Delete(target, recursive: false);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Common.EngineLog.CompactionDestinationRemovalFailed(_logger, e, target);
        }
    }

    /// <summary>Running counts of a copy, reported as <see cref="CompactionProgress"/>.</summary>
    private sealed class CopyCounts(IProgress<CompactionProgress>? progress, long totalEntries, int totalTrees)
    {
        public long Entries;
        public long Bytes;
        public int Trees;

        public void Report() => progress?.Report(new CompactionProgress
        {
            EntriesCopied = Entries,
            TotalEntries = totalEntries,
            TreesCopied = Trees,
            TotalTrees = totalTrees,
            BytesCopied = Bytes,
        });
    }
}
