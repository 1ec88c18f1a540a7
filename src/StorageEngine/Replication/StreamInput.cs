using System.Buffers;
using System.IO.Pipelines;

namespace StorageEngine.Replication;

/// <summary>
/// Reads exact byte counts from a <see cref="PipeReader"/>, consuming as it goes (so a large record never has
/// to fit the pipe's buffer), and keeps the stream offset for error messages.
/// </summary>
internal sealed class StreamInput
{
    private readonly PipeReader _reader;

    /// <param name="reader">The stream.</param>
    /// <param name="name">What the stream is, for <see cref="CorruptionException.FilePath"/> ("backup stream", ...).</param>
    public StreamInput(PipeReader reader, string name)
    {
        _reader = reader;
        Name = name;
    }

    public string Name { get; }

    /// <summary>Bytes read so far.</summary>
    public long Position { get; private set; }

    /// <summary>
    /// Fills <paramref name="destination"/>; returns the bytes read, fewer only when the stream ended first.
    /// </summary>
    public async ValueTask<int> ReadAsync(Memory<byte> destination, CancellationToken cancellationToken)
    {
        int filled = 0;
        while (filled < destination.Length)
        {
            var result = await _reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            if (result.IsCanceled) throw new OperationCanceledException("Reading the stream was cancelled.");
            var buffer = result.Buffer;
            int take = (int)Math.Min(buffer.Length, destination.Length - filled);
            buffer.Slice(0, take).CopyTo(destination.Span[filled..]);
            filled += take;
            _reader.AdvanceTo(buffer.GetPosition(take));
            if (take == 0 && result.IsCompleted) break;
        }
        Position += filled;
        return filled;
    }

    /// <summary>Fills <paramref name="destination"/> or throws: the stream must not end here.</summary>
    public async ValueTask ReadExactlyAsync(Memory<byte> destination, string what, CancellationToken cancellationToken)
    {
        long at = Position;
        int read = await ReadAsync(destination, cancellationToken).ConfigureAwait(false);
        if (read < destination.Length)
            throw Corruption(at, $"the stream ends inside {what} ({read} of {destination.Length} bytes): it is truncated.");
    }

    public CorruptionException Corruption(long offset, string problem) => new(Name, offset, problem);
}
