using System.Runtime.InteropServices;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Transactions;

namespace StorageEngine.Replication;

/// <summary>
/// Reads a journal shipping stream (format in <see cref="ShippingStreamHeader"/>) and verifies every record
/// whole (checksum, run table, state) before handing it out, so a damaged or truncated record is refused
/// before any of it is applied. Full images are read straight into aligned memory the journal can write.
/// </summary>
internal sealed class ShippingStreamReader : IDisposable
{
    /// <summary>Largest record accepted: what one commit can journal.</summary>
    private const long MaxPayloadBytes = int.MaxValue - (64L << 20);

    private readonly StreamInput _input;
    private readonly int _pageSize;
    private readonly byte[] _header = new byte[ShippedRecordHeader.Size];
    private NativeBuffer? _images;
    private byte[] _diffs = new byte[4096];

    /// <param name="input">The stream.</param>
    /// <param name="pageSize">The replica's page size.</param>
    public ShippingStreamReader(StreamInput input, int pageSize)
    {
        _input = input;
        _pageSize = pageSize;
    }

    public async ValueTask<ShippingStreamHeader> ReadHeaderAsync(CancellationToken cancellationToken)
    {
        var bytes = new byte[ShippingStreamHeader.Size];
        await _input.ReadExactlyAsync(bytes, "the stream header", cancellationToken).ConfigureAwait(false);
        var header = MemoryMarshal.Read<ShippingStreamHeader>(bytes);
        if (header.Magic != ShippingStreamHeader.MagicValue)
            throw _input.Corruption(0, "this is not a StorageEngine replication stream (bad magic number).");
        if (header.FormatVersion != ShippingStreamHeader.CurrentFormatVersion)
            throw _input.Corruption(0, $"unsupported replication stream format version {header.FormatVersion} (this build reads version {ShippingStreamHeader.CurrentFormatVersion}).");
        if (header.Checksum != FrameChecksum.Of(bytes, ShippingStreamHeader.ChecksumOffset))
            throw _input.Corruption(0, "the stream header fails its checksum.");
        if (header.AfterTransactionId < 0)
            throw _input.Corruption(0, $"the stream header starts after transaction {header.AfterTransactionId}.");
        return header;
    }

    /// <summary>The next record, verified, or null when the stream ended between records.</summary>
    /// <exception cref="CorruptionException">The record is damaged or the stream ends inside it.</exception>
    public async ValueTask<ReplicatedRecord?> ReadRecordAsync(CancellationToken cancellationToken)
    {
        long at = _input.Position;
        int read = await _input.ReadAsync(_header, cancellationToken).ConfigureAwait(false);
        if (read == 0) return null;
        if (read < _header.Length)
            throw _input.Corruption(at, $"the stream ends inside a record header ({read} of {_header.Length} bytes): it is truncated.");
        var header = MemoryMarshal.Read<ShippedRecordHeader>(_header);
        if (header.Magic != ShippedRecordHeader.MagicValue)
            throw _input.Corruption(at, "expected a transaction record (bad magic number).");
        if (header.PayloadBytes < 0 || header.PayloadBytes > MaxPayloadBytes || header.RunCount < 0 || header.RunCount > MaxPayloadBytes / _pageSize)
            throw _input.Corruption(at, $"the record of transaction {header.TransactionId} announces {header.RunCount} runs and {header.PayloadBytes} bytes, which cannot be.");
        var table = new byte[header.RunCount * ShippedRecordHeader.RunEntrySize];
        await _input.ReadExactlyAsync(table, $"the run table of transaction {header.TransactionId}", cancellationToken).ConfigureAwait(false);
        uint crc = Crc32C.Append(FrameChecksum.Start(_header, ShippedRecordHeader.ChecksumOffset), table);
        // Checked against the checksum below, before anything is used.
        var state = MemoryMarshal.Read<EnvironmentState>(_header.AsSpan(64, EnvironmentState.Size));
        var (runs, diffs, imageBytes, diffBytes) = Layout(at, header, state, table);
        if (_images is null || _images.Length < imageBytes)
        {
            _images?.Free();
            _images = null;
            _images = new NativeBuffer((int)Math.Max(imageBytes, 1 << 16));
        }
        if (_diffs.Length < diffBytes) _diffs = new byte[diffBytes];
        // The payload holds each run's bytes in table order: images go to their place, diffs aside.
        int image = 0, diff = 0;
        for (int i = 0; i < runs.Count; i++)
        {
            bool isDiff = diff < diffs.Count && diffs[diff].Run == i;
            var destination = isDiff ? _diffs.AsMemory(diffs[diff].Offset, diffs[diff].Length) : _images.Memory.Slice(image, runs[i].PageCount * _pageSize);
            await _input.ReadExactlyAsync(destination, $"the pages of transaction {header.TransactionId}", cancellationToken).ConfigureAwait(false);
            crc = Crc32C.Append(crc, destination.Span);
            if (isDiff) diff++;
            image += runs[i].PageCount * _pageSize;
        }
        if (Crc32C.Finish(crc) != header.Checksum)
            throw _input.Corruption(at, $"the record of transaction {header.TransactionId} fails its checksum.");
        for (int i = 0, offset = 0; i < runs.Count; offset += runs[i].PageCount * _pageSize, i++)
            runs[i] = runs[i] with { Data = _images.Memory.Slice(offset, runs[i].PageCount * _pageSize) };
        return new ReplicatedRecord(state, runs, diffs, (header.Flags & ShippedRecordHeader.HasPreviousState) != 0 ? header.PreviousStateChecksum : null, at);
    }

    /// <summary>
    /// The run table checked against the state (ascending, within the page count, adding up to the payload);
    /// the runs (data still unset), the diffs, and the bytes of images and of diffs.
    /// </summary>
    private (List<JournalPageRun> Runs, List<ShippedDiff> Diffs, long ImageBytes, int DiffBytes) Layout(long at, in ShippedRecordHeader header, in EnvironmentState state, byte[] table)
    {
        if (state.TransactionId != header.TransactionId || state.PageCount < FreeSpaceMap.FirstBitmapPage + 1)
            throw _input.Corruption(at, $"the record of transaction {header.TransactionId} carries an impossible state (transaction {state.TransactionId}, {state.PageCount} pages).");
        var runs = new List<JournalPageRun>(header.RunCount);
        var diffs = new List<ShippedDiff>();
        long nextFree = FreeSpaceMap.FirstBitmapPage, payload = 0, images = 0;
        int diffBytes = 0;
        for (int i = 0; i < header.RunCount; i++)
        {
            var entry = table.AsSpan(i * ShippedRecordHeader.RunEntrySize);
            long first = MemoryMarshal.Read<long>(entry);
            int count = MemoryMarshal.Read<int>(entry[8..]);
            int diffLength = MemoryMarshal.Read<int>(entry[12..]);
            long basePage = MemoryMarshal.Read<long>(entry[16..]);
            bool isDiff = basePage != JournalPageRun.FullImage;
            if (first < nextFree || count < 1 || first + count > state.PageCount || diffLength < 0
                || (isDiff ? count != 1 || basePage < JournalPageRun.ZeroPage || diffLength > _pageSize : diffLength != 0))
                throw _input.Corruption(at, $"the record of transaction {header.TransactionId} holds an impossible run (pages {first} to {first + count - 1}, base {basePage}) for its {state.PageCount} pages.");
            if (isDiff)
            {
                diffs.Add(new ShippedDiff(i, basePage, diffBytes, diffLength));
                diffBytes += diffLength;
                payload += diffLength;
            }
            else
            {
                payload += (long)count * _pageSize;
            }
            images += (long)count * _pageSize;
            if (images > MaxPayloadBytes)
                throw _input.Corruption(at, $"the record of transaction {header.TransactionId} writes more pages than one transaction can.");
            runs.Add(new JournalPageRun(first, count, ReadOnlyMemory<byte>.Empty));
            nextFree = first + count;
        }
        if (payload != header.PayloadBytes)
            throw _input.Corruption(at, $"the run table of transaction {header.TransactionId} adds up to {payload} bytes, not the {header.PayloadBytes} announced.");
        return (runs, diffs, images, diffBytes);
    }

    /// <summary>
    /// Rebuilds the pages <paramref name="record"/> carries as diffs, each on its base page as this environment
    /// holds it (mapped at <paramref name="current"/>, <paramref name="currentPageCount"/> pages, as of the
    /// transaction before), and checks each against its checksum.
    /// </summary>
    /// <exception cref="ReplicationException">A rebuilt page fails its checksum: this environment's base page differs from the primary's.</exception>
    public unsafe void RebuildDiffs(ReplicatedRecord record, byte* current, long currentPageCount)
    {
        foreach (var diff in record.Diffs)
        {
            var run = record.Runs[diff.Run];
            fixed (byte* page = run.Data.Span)
            {
                var target = new Span<byte>(page, _pageSize);
                if (diff.BasePage == JournalPageRun.ZeroPage) target.Clear();
                else if (diff.BasePage >= FreeSpaceMap.FirstBitmapPage && diff.BasePage < currentPageCount) new ReadOnlySpan<byte>(current + diff.BasePage * _pageSize, _pageSize).CopyTo(target);
                else throw _input.Corruption(record.StreamOffset, $"transaction {record.TransactionId} builds page {run.FirstPage} on page {diff.BasePage}, outside the {currentPageCount} pages before it.");
                if (!PageDiff.TryApply(_diffs.AsSpan(diff.Offset, diff.Length), target))
                    throw _input.Corruption(record.StreamOffset, $"transaction {record.TransactionId} carries a malformed diff for page {run.FirstPage}.");
                if (!PageChecksum.IsValid(page, _pageSize, run.FirstPage))
                {
                    throw new ReplicationException(
                        $"Page {run.FirstPage} of transaction {record.TransactionId}, rebuilt on this replica's page {diff.BasePage}, fails its checksum: the replica's page differs from the primary's " +
                        "(it diverged or is damaged). Restore a new full backup of the primary.", requiresFullBackup: true);
                }
            }
        }
    }

    public void Dispose()
    {
        _images?.Free();
        _images = null;
    }
}
