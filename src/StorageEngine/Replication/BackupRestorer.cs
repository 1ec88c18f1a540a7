using System.Collections;
using System.IO.Pipelines;
using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Paging;
using StorageEngine.Platform;
using StorageEngine.Transactions;

namespace StorageEngine.Replication;

/// <summary>
/// Turns a backup stream (format in <see cref="BackupStreamHeader"/>) into the data file of a new
/// environment: every carried page under its own number, the free-space bitmaps rebuilt from the carried set,
/// and two checkpoint headers holding the snapshot's state and the source's environment id. The file is
/// written under a temporary name and renamed into place only when the whole stream has been read and
/// verified, so an interrupted or refused restore leaves no environment behind.
/// </summary>
internal static class BackupRestorer
{
    private const string StreamName = "backup stream";
    private const string TemporarySuffix = ".restoring";

    /// <summary>Largest chunk accepted, whatever the header says.</summary>
    private const long MaxChunkBytes = 64L << 20;

    public static async Task<BackupSummary> RestoreAsync(PipeReader source, IFileSystem fs, string directory,
        IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        EnsureEmptyTarget(fs, directory);
        fs.CreateDirectory(directory);
        using var lockHandle = fs.AcquireLock(Path.Combine(directory, EnvironmentFiles.LockFileName));
        var input = new StreamInput(source, StreamName);
        var header = await ReadHeaderAsync(input, cancellationToken).ConfigureAwait(false);
        var state = StateOf(header);
        string temporary = Path.Combine(directory, EnvironmentFiles.DataFileName + TemporarySuffix);
        var file = fs.Open(temporary, StorageFileMode.Buffered);
        try
        {
            file.SetLength(0);
            file.SetLength(header.PageCount * header.PageSize);
            var used = await CopyChunksAsync(input, header, file, progress, cancellationToken).ConfigureAwait(false);
            WriteBitmaps(file, header, state, used);
            file.Flush();
            // Two valid copies (sequence 0 and 1), as a new environment has: recovery starts at journal file 1.
            var checkpoint = new DataFileHeader { PageSize = header.PageSize, EnvironmentId = header.EnvironmentId, Sequence = -1 };
            // Marked clean: a restored environment has no journal, and needs none.
            checkpoint = EnvironmentFiles.WriteCheckpoint(file, checkpoint, state, journalFileNumber: 1, clean: true);
            EnvironmentFiles.WriteCheckpoint(file, checkpoint, state, journalFileNumber: 1, clean: true);
        }
        catch
        {
            file.Dispose();
            fs.Delete(temporary);
            throw;
        }
        file.Dispose();
        fs.Rename(temporary, Path.Combine(directory, EnvironmentFiles.DataFileName));
        return new BackupSummary
        {
            TransactionId = state.TransactionId,
            EnvironmentId = header.EnvironmentId,
            PageSize = header.PageSize,
            PageCount = header.PageCount,
            PagesCopied = header.CopiedPages,
            StreamBytes = input.Position,
        };
    }

    /// <summary>A restore creates an environment; it never mixes one into existing files.</summary>
    private static void EnsureEmptyTarget(IFileSystem fs, string directory)
    {
        if (!fs.IsInMemory && File.Exists(directory))
            throw new IOException($"The restore target '{directory}' is a file; restore into a new or empty directory.");
        if (!fs.Exists(directory)) return;
        // A LOCK file alone is what an interrupted restore leaves; it holds no data.
        var files = fs.ListFiles(directory).Where(name => name != EnvironmentFiles.LockFileName).ToList();
        bool subdirectories = !fs.IsInMemory && System.IO.Directory.EnumerateDirectories(directory).Any();
        if (files.Count > 0 || subdirectories)
            throw new IOException($"The restore target '{directory}' is not empty (it holds {(files.Count > 0 ? $"'{files[0]}'" : "a directory")}); restore into a new or empty directory.");
    }

    private static async ValueTask<BackupStreamHeader> ReadHeaderAsync(StreamInput input, CancellationToken cancellationToken)
    {
        var bytes = new byte[BackupStreamHeader.Size];
        await input.ReadExactlyAsync(bytes, "the backup header", cancellationToken).ConfigureAwait(false);
        return ValidateHeader(input, bytes);
    }

    private static BackupStreamHeader ValidateHeader(StreamInput input, byte[] bytes)
    {
        var header = MemoryMarshal.Read<BackupStreamHeader>(bytes);
        if (header.Magic != BackupStreamHeader.MagicValue)
            throw input.Corruption(0, "this is not a StorageEngine backup stream (bad magic number).");
        if (header.FormatVersion != BackupStreamHeader.CurrentFormatVersion)
            throw input.Corruption(0, $"unsupported backup format version {header.FormatVersion} (this build reads version {BackupStreamHeader.CurrentFormatVersion}).");
        if (header.Checksum != FrameChecksum.Of(bytes, BackupStreamHeader.ChecksumOffset))
            throw input.Corruption(0, "the backup header fails its checksum.");
        var state = StateOf(header);
        if (!PageSizes.IsValid(header.PageSize) || header.PageCount < FreeSpaceMap.InitialPageCount(header.PageSize)
            || header.PageCount > int.MaxValue || state.PageCount != header.PageCount || state.TransactionId < 0
            || header.CopiedPages < 0 || header.CopiedPages > header.PageCount
            || header.ChunkPages < 1 || (long)header.ChunkPages * header.PageSize > MaxChunkBytes)
            throw input.Corruption(0, $"the backup header describes an impossible snapshot (page size {header.PageSize}, {header.PageCount} pages, transaction {state.TransactionId}).");
        return header;
    }

    private static unsafe EnvironmentState StateOf(in BackupStreamHeader header)
    {
        fixed (byte* state = header.State) return MemoryMarshal.Read<EnvironmentState>(new ReadOnlySpan<byte>(state, EnvironmentState.Size));
    }

    /// <summary>Writes every chunk's pages in place and returns the pages in use (headers and bitmaps included).</summary>
    private static async Task<BitArray> CopyChunksAsync(StreamInput input, BackupStreamHeader header, IStorageFile file,
        IProgress<BackupProgress>? progress, CancellationToken cancellationToken)
    {
        int pageSize = header.PageSize;
        var used = UsedBySkeleton(input, header);
        var frame = new byte[BackupChunkHeader.Size];
        var pages = new byte[header.ChunkPages * pageSize];
        long chunks = 0, copied = 0, nextFree = 0;
        uint chunkChecksums = Crc32C.Start;
        var transactionId = StateOf(header).TransactionId;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            long at = input.Position;
            await input.ReadExactlyAsync(frame, "a chunk header (the trailer is missing)", cancellationToken).ConfigureAwait(false);
            if (MemoryMarshal.Read<uint>(frame) == BackupTrailer.MagicValue)
            {
                CheckTrailer(input, at, frame, chunks, copied, header.CopiedPages, Crc32C.Finish(chunkChecksums));
                return used;
            }
            var chunk = MemoryMarshal.Read<BackupChunkHeader>(frame);
            if (chunk.Magic != BackupChunkHeader.MagicValue)
                throw input.Corruption(at, "expected a chunk or the trailer (bad magic number).");
            if (chunk.Sequence != chunks)
                throw input.Corruption(at, $"chunk {chunk.Sequence} where chunk {chunks} was expected.");
            if (chunk.PageCount < 1 || chunk.PageCount > header.ChunkPages || chunk.FirstPage < nextFree
                || chunk.FirstPage + chunk.PageCount > header.PageCount || copied + chunk.PageCount > header.CopiedPages)
                throw input.Corruption(at, $"chunk {chunks} holds pages {chunk.FirstPage} to {chunk.FirstPage + chunk.PageCount - 1}, out of order or outside the {header.PageCount} pages of the snapshot.");
            var bytes = pages.AsMemory(0, chunk.PageCount * pageSize);
            await input.ReadExactlyAsync(bytes, $"the pages of chunk {chunks}", cancellationToken).ConfigureAwait(false);
            uint crc = Crc32C.Finish(Crc32C.Append(FrameChecksum.Start(frame, BackupChunkHeader.ChecksumOffset), bytes.Span));
            if (crc != chunk.Checksum)
                throw input.Corruption(at, $"chunk {chunks} (pages {chunk.FirstPage} to {chunk.FirstPage + chunk.PageCount - 1}) fails its checksum.");
            for (long page = chunk.FirstPage; page < chunk.FirstPage + chunk.PageCount; page++)
            {
                if (used[(int)page])
                    throw input.Corruption(at, $"chunk {chunks} carries page {page}, a checkpoint header or free-space bitmap page.");
                used[(int)page] = true;
            }
            file.Write(chunk.FirstPage * pageSize, bytes.Span);
            chunkChecksums = AppendChecksum(chunkChecksums, chunk.Checksum);
            nextFree = chunk.FirstPage + chunk.PageCount;
            copied += chunk.PageCount;
            chunks++;
            progress?.Report(new BackupProgress { TransactionId = transactionId, PagesCopied = copied, TotalPages = header.CopiedPages, StreamBytes = input.Position });
        }
    }

    private static uint AppendChecksum(uint running, uint checksum) =>
        Crc32C.Append(running, MemoryMarshal.AsBytes(new ReadOnlySpan<uint>(in checksum)));

    /// <summary>The pages no chunk may carry: the two header pages and every section's bitmap.</summary>
    private static BitArray UsedBySkeleton(StreamInput input, in BackupStreamHeader header)
    {
        var used = new BitArray((int)header.PageCount);
        used[0] = true;
        used[1] = true;
        var map = new FreeSpaceMap(header.PageSize);
        for (long section = 0; section * map.PagesPerSection < header.PageCount; section++)
        {
            for (int j = 0; j < map.BitmapPagesPerSection; j++)
            {
                long page = map.BitmapPageOf(section) + j;
                if (page >= header.PageCount)
                    throw input.Corruption(0, $"the snapshot's {header.PageCount} pages end inside the free-space bitmap of section {section}.");
                used[(int)page] = true;
            }
        }
        return used;
    }

    private static void CheckTrailer(StreamInput input, long at, byte[] frame, long chunks, long pages, long expectedPages, uint chunkChecksums)
    {
        var trailer = MemoryMarshal.Read<BackupTrailer>(frame);
        if (trailer.Checksum != FrameChecksum.Of(frame, BackupTrailer.ChecksumOffset))
            throw input.Corruption(at, "the backup trailer fails its checksum.");
        if (trailer.Chunks != chunks || trailer.Pages != pages || pages != expectedPages)
            throw input.Corruption(at, $"the trailer counts {trailer.Chunks} chunks and {trailer.Pages} pages, but the stream held {chunks} chunks and {pages} pages ({expectedPages} announced).");
        if (trailer.ChunkChecksums != chunkChecksums)
            throw input.Corruption(at, "the chunks' checksums do not add up to the trailer's (chunks were replaced).");
    }

    /// <summary>Bitmaps that mark free exactly the pages below the page count that the backup did not carry.</summary>
    private static unsafe void WriteBitmaps(IStorageFile file, in BackupStreamHeader header, EnvironmentState state, BitArray used)
    {
        using var bitmaps = new BitmapBuilder(header.PageSize);
        new FreeSpaceMap(header.PageSize).Rebuild(bitmaps, used, header.PageCount);
        bitmaps.Seal(state.TransactionId);
        foreach (var (page, buffer) in bitmaps.Pages) file.Write(page * header.PageSize, buffer.GetSpan());
    }
}
