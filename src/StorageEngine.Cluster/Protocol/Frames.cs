using System.Buffers.Binary;

namespace StorageEngine.Cluster.Protocol;

/// <summary>Frames of the client protocol: a 4-byte little-endian length, then that many bytes.</summary>
internal static class Frames
{
    public const int MaxFrameSize = ClusterBatch.MaxEncodedSize + 4096;

    /// <summary>Reads one frame; null when the peer closed the connection before a new frame began.</summary>
    /// <exception cref="IOException">The connection broke inside a frame, or the length is invalid.</exception>
    public static async Task<byte[]?> ReadAsync(Stream stream, CancellationToken cancellationToken)
    {
        var header = new byte[4];
        int read = 0;
        while (read < 4)
        {
            int n = await stream.ReadAsync(header.AsMemory(read), cancellationToken).ConfigureAwait(false);
            if (n == 0)
                return read == 0 ? null : throw new IOException("The connection closed inside a frame header.");
            read += n;
        }
        int length = BinaryPrimitives.ReadInt32LittleEndian(header);
        if (length < 1 || length > MaxFrameSize)
            throw new IOException($"A frame of {length} bytes is outside 1..{MaxFrameSize}.");
        var body = new byte[length];
        await stream.ReadExactlyAsync(body, cancellationToken).ConfigureAwait(false);
        return body;
    }

    public static async Task WriteAsync(Stream stream, byte first, ReadOnlyMemory<byte> rest, CancellationToken cancellationToken)
    {
        var frame = new byte[5 + rest.Length];
        BinaryPrimitives.WriteInt32LittleEndian(frame, 1 + rest.Length);
        frame[4] = first;
        rest.CopyTo(frame.AsMemory(5));
        await stream.WriteAsync(frame, cancellationToken).ConfigureAwait(false);
        await stream.FlushAsync(cancellationToken).ConfigureAwait(false);
    }
}
