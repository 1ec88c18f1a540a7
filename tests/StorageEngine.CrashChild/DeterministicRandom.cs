namespace StorageEngine.CrashChild;

/// <summary>
/// SplitMix64: the same sequence in every process and runtime version, unlike <see cref="Random"/> and
/// <see cref="HashCode"/>, so the child and the verifying test derive identical transactions.
/// </summary>
public struct DeterministicRandom
{
    private ulong _state;

    public DeterministicRandom(ulong seed) => _state = seed;

    public ulong NextUInt64()
    {
        ulong z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>A number in [0, <paramref name="maxExclusive"/>).</summary>
    public int Next(int maxExclusive) => (int)(NextUInt64() % (ulong)maxExclusive);

    /// <summary>A number in [<paramref name="minInclusive"/>, <paramref name="maxExclusive"/>).</summary>
    public int Next(int minInclusive, int maxExclusive) => minInclusive + Next(maxExclusive - minInclusive);

    public void Fill(Span<byte> destination)
    {
        while (destination.Length >= 8)
        {
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(destination, NextUInt64());
            destination = destination[8..];
        }
        if (destination.Length > 0)
        {
            Span<byte> last = stackalloc byte[8];
            System.Buffers.Binary.BinaryPrimitives.WriteUInt64LittleEndian(last, NextUInt64());
            last[..destination.Length].CopyTo(destination);
        }
    }
}
