using System.IO.Pipelines;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Replication;
using StorageEngine.Transactions;

namespace StorageEngine;

public sealed partial class StorageEnvironment
{
    /// <summary>
    /// Streams a consistent copy of the environment, as of the last committed transaction, to
    /// <paramref name="destination"/>: the pages the trees use, in the versioned, checksummed backup format
    /// (documented in <c>Replication/BackupStreamHeader.cs</c>). Readers and the writer keep running; the backup
    /// holds one read transaction while it streams, so the pages it copies cannot be reused meanwhile.
    /// Restore it with <see cref="RestoreAsync(PipeReader, string, IProgress{BackupProgress}?, CancellationToken)"/>.
    /// </summary>
    /// <param name="destination">Receives the stream; flushed after every 1 MiB chunk (a slow reader slows the backup), not completed.</param>
    /// <param name="progress">Told of the pages copied after every chunk.</param>
    /// <param name="cancellationToken">Checked between chunks; the stream is then incomplete (a restore refuses it).</param>
    /// <returns>The transaction the backup holds and its size.</returns>
    /// <exception cref="CorruptionException">A page of the snapshot is damaged; no valid backup can be made.</exception>
    /// <exception cref="IOException">The destination stopped reading.</exception>
    public async Task<BackupSummary> BackupAsync(PipeWriter destination, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        cancellationToken.ThrowIfCancellationRequested();
        using var activity = Common.EngineInstruments.StartBackup(Directory);
        using var read = BeginRead();
        // The backup copies pages from the mapping: pages still awaiting a checkpoint go to the file first.
        _commits.WriteOutUnwrittenPages();
        var chunks = PlanBackup(read.Snapshot);
        var writer = new BackupWriter(destination, read.Snapshot, PageSize, Header.EnvironmentId, chunks);
        return await writer.WriteAsync(progress, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Streams a consistent copy of the environment to a stream or file, like
    /// <see cref="BackupAsync(PipeWriter, IProgress{BackupProgress}?, CancellationToken)"/>. The stream is left open.
    /// </summary>
    public async Task<BackupSummary> BackupAsync(Stream destination, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(destination);
        var writer = PipeWriter.Create(destination, new StreamPipeWriterOptions(leaveOpen: true));
        try
        {
            var summary = await BackupAsync(writer, progress, cancellationToken).ConfigureAwait(false);
            await writer.CompleteAsync().ConfigureAwait(false);
            return summary;
        }
        catch (Exception e)
        {
            await writer.CompleteAsync(e).ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Creates a new environment in <paramref name="directory"/> from a backup stream: the same pages under the
    /// same numbers, the same environment id and the same last transaction, so that
    /// <see cref="ShipJournalAsync"/> from the source can continue onto it (open it with
    /// <see cref="OpenReplica"/>). Everything is verified before the data file appears: a truncated or damaged
    /// stream leaves no environment behind.
    /// </summary>
    /// <param name="source">The backup stream; read to its trailer.</param>
    /// <param name="directory">A directory that does not exist or is empty.</param>
    /// <param name="progress">Told of the pages restored after every chunk.</param>
    /// <param name="cancellationToken">Checked between chunks; nothing is left behind.</param>
    /// <exception cref="IOException">The directory is not empty (or is a file).</exception>
    /// <exception cref="CorruptionException">The stream is not a backup, is damaged or is truncated.</exception>
    /// <exception cref="EnvironmentLockedException">An environment is open in the directory.</exception>
    public static Task<BackupSummary> RestoreAsync(PipeReader source, string directory, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        return BackupRestorer.RestoreAsync(source, new OsFileSystem(), Path.GetFullPath(directory), progress, cancellationToken);
    }

    /// <summary>
    /// Creates a new environment in <paramref name="directory"/> from a backup stream or file, like
    /// <see cref="RestoreAsync(PipeReader, string, IProgress{BackupProgress}?, CancellationToken)"/>. The stream is left open.
    /// </summary>
    public static async Task<BackupSummary> RestoreAsync(Stream source, string directory, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(source);
        var reader = PipeReader.Create(source, new StreamPipeReaderOptions(leaveOpen: true));
        try
        {
            return await RestoreAsync(reader, directory, progress, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            await reader.CompleteAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Restores into the directory of <paramref name="target"/> on its file system (tests use memory files).</summary>
    internal static Task<BackupSummary> RestoreAsync(PipeReader source, StorageEnvironmentOptions target, IProgress<BackupProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        var fs = target.FileSystem ?? new OsFileSystem();
        string directory = target.Path ?? throw new ArgumentException("The restore target needs a Path.", nameof(target));
        return BackupRestorer.RestoreAsync(source, fs, fs.IsInMemory ? directory : Path.GetFullPath(directory), progress, cancellationToken);
    }

    /// <summary>
    /// The pages a backup of <paramref name="snapshot"/> carries, in chunks: every page its trees reach (tree
    /// pages and overflow values), without the header and bitmap pages, which restore makes anew.
    /// </summary>
    private unsafe List<BackupChunk> PlanBackup(Snapshot snapshot)
    {
        var source = PageSourceFor(snapshot);
        // A page writer that is never written to and sees no pending commits: the trees as the snapshot has them.
        var pages = new PageWriter(snapshot, source, null, _freeSpace, _pool, null, snapshot.TransactionId);
        var used = new EnvironmentChecker(snapshot, pages, _freeSpace, PageSize).CollectUsedPages();
        used[0] = false;
        used[1] = false;
        for (long section = 0; section * _freeSpace.PagesPerSection < snapshot.State.PageCount; section++)
            for (int j = 0; j < _freeSpace.BitmapPagesPerSection; j++)
                used[(int)(_freeSpace.BitmapPageOf(section) + j)] = false;

        int most = BackupWriter.ChunkPagesFor(PageSize);
        var chunks = new List<BackupChunk>();
        long pageCount = snapshot.State.PageCount;
        for (long page = 0; page < pageCount; page++)
        {
            if (!used[(int)page]) continue;
            long first = page;
            while (page + 1 < pageCount && used[(int)(page + 1)] && page + 1 - first < most) page++;
            chunks.Add(new BackupChunk(first, (int)(page - first + 1)));
        }
        return chunks;
    }
}
