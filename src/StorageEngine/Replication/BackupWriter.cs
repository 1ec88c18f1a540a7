using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Transactions;

namespace StorageEngine.Replication;

/// <summary>
/// Writes one snapshot as a backup stream (format in <see cref="BackupStreamHeader"/>): its pages are read
/// straight from the snapshot's mapping, which stays valid and unchanged while the caller's read transaction
/// is open, and flushed chunk by chunk so that a slow destination holds the backup back (not the writer).
/// </summary>
internal sealed class BackupWriter
{
    /// <summary>Bytes of pages per chunk (and per flush).</summary>
    public const int ChunkBytes = 1 << 20;

    private readonly PipeWriter _destination;
    private readonly Snapshot _snapshot;
    private readonly int _pageSize;
    private readonly long _environmentId;
    private readonly IReadOnlyList<BackupChunk> _chunks;
    private long _written;
    private uint _chunkChecksums = Crc32C.Start;

    /// <param name="destination">Where the stream goes (not completed here).</param>
    /// <param name="snapshot">The snapshot, held by a read transaction for as long as this writes.</param>
    /// <param name="pageSize">Bytes per page.</param>
    /// <param name="environmentId">The environment's id.</param>
    /// <param name="chunks">The pages to carry, ascending, each at most <see cref="ChunkPagesFor"/> pages.</param>
    public BackupWriter(PipeWriter destination, Snapshot snapshot, int pageSize, long environmentId, IReadOnlyList<BackupChunk> chunks)
    {
        _destination = destination;
        _snapshot = snapshot;
        _pageSize = pageSize;
        _environmentId = environmentId;
        _chunks = chunks;
    }

    public static int ChunkPagesFor(int pageSize) => Math.Max(1, ChunkBytes / pageSize);

    public async Task<BackupSummary> WriteAsync(IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        long pages = 0;
        foreach (var chunk in _chunks) pages += chunk.PageCount;
        WriteHeader(pages);
        await FlushAsync(cancellationToken).ConfigureAwait(false);
        long copied = 0;
        for (int i = 0; i < _chunks.Count; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            WriteChunk(i, _chunks[i]);
            copied += _chunks[i].PageCount;
            await FlushAsync(cancellationToken).ConfigureAwait(false);
            progress?.Report(new BackupProgress { TransactionId = _snapshot.TransactionId, PagesCopied = copied, TotalPages = pages, StreamBytes = _written });
        }
        if (_chunks.Count == 0) progress?.Report(new BackupProgress { TransactionId = _snapshot.TransactionId, PagesCopied = 0, TotalPages = 0, StreamBytes = _written });
        WriteTrailer(_chunks.Count, pages, Crc32C.Finish(_chunkChecksums));
        await FlushAsync(cancellationToken).ConfigureAwait(false);
        return new BackupSummary
        {
            TransactionId = _snapshot.TransactionId,
            EnvironmentId = _environmentId,
            PageSize = _pageSize,
            PageCount = _snapshot.State.PageCount,
            PagesCopied = pages,
            StreamBytes = _written,
        };
    }

    private unsafe void WriteHeader(long copiedPages)
    {
        var header = new BackupStreamHeader
        {
            Magic = BackupStreamHeader.MagicValue,
            FormatVersion = BackupStreamHeader.CurrentFormatVersion,
            PageSize = _pageSize,
            EnvironmentId = _environmentId,
            PageCount = _snapshot.State.PageCount,
            CopiedPages = copiedPages,
            ChunkPages = ChunkPagesFor(_pageSize),
        };
        var state = _snapshot.State;
        MemoryMarshal.Write(new Span<byte>(header.State, EnvironmentState.Size), in state);
        var bytes = FrameChecksum.Bytes(ref header);
        header.Checksum = FrameChecksum.Of(bytes, BackupStreamHeader.ChecksumOffset);
        Write(bytes);
    }

    private unsafe void WriteChunk(long sequence, BackupChunk chunk)
    {
        var pages = new ReadOnlySpan<byte>(_snapshot.Base + chunk.FirstPage * _pageSize, checked(chunk.PageCount * _pageSize));
        var header = new BackupChunkHeader
        {
            Magic = BackupChunkHeader.MagicValue,
            PageCount = chunk.PageCount,
            FirstPage = chunk.FirstPage,
            Sequence = sequence,
        };
        var bytes = FrameChecksum.Bytes(ref header);
        header.Checksum = Crc32C.Finish(Crc32C.Append(FrameChecksum.Start(bytes, BackupChunkHeader.ChecksumOffset), pages));
        Write(bytes);
        Write(pages);
        uint checksum = header.Checksum;
        _chunkChecksums = Crc32C.Append(_chunkChecksums, MemoryMarshal.AsBytes(new ReadOnlySpan<uint>(in checksum)));
    }

    private void WriteTrailer(long chunks, long pages, uint chunkChecksums)
    {
        var trailer = new BackupTrailer { Magic = BackupTrailer.MagicValue, ChunkChecksums = chunkChecksums, Chunks = chunks, Pages = pages };
        var bytes = FrameChecksum.Bytes(ref trailer);
        trailer.Checksum = FrameChecksum.Of(bytes, BackupTrailer.ChecksumOffset);
        Write(bytes);
    }

    private void Write(ReadOnlySpan<byte> bytes)
    {
        _destination.Write(bytes);
        _written += bytes.Length;
    }

    private async ValueTask FlushAsync(CancellationToken cancellationToken)
    {
        var result = await _destination.FlushAsync(cancellationToken).ConfigureAwait(false);
        if (result.IsCanceled) throw new OperationCanceledException("The backup's destination cancelled the flush.");
        if (result.IsCompleted) throw new IOException("The backup's destination stopped reading before the backup was complete.");
    }
}
