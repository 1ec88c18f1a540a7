using System.Buffers.Binary;

namespace StorageEngine.Workloads;

/// <summary>
/// Deterministic key generators: the same index gives the same key for every engine and thread, so all
/// engines see exactly the same sequence without sharing a random generator.
/// </summary>
internal static class Keys
{
    /// <summary>16 bytes: eight zero bytes, then the index big-endian (ascending in bytewise order).</summary>
    internal static void Sequential16(long index, Span<byte> key)
    {
        key[..8].Clear();
        BinaryPrimitives.WriteUInt64BigEndian(key[8..], (ulong)index);
    }

    /// <summary>16 uniformly random bytes, a function of the seed and the index.</summary>
    internal static void Random16(ulong seed, long index, Span<byte> key)
    {
        ulong a = Mix(seed ^ ((ulong)index * 0x9E3779B97F4A7C15UL));
        BinaryPrimitives.WriteUInt64BigEndian(key, a);
        BinaryPrimitives.WriteUInt64BigEndian(key[8..], Mix(a ^ 0xD1B54A32D192ED03UL));
    }

    /// <summary>An 8-byte integer key, big-endian so that bytewise order is numeric order.</summary>
    internal static void Int64(long value, Span<byte> key) => BinaryPrimitives.WriteUInt64BigEndian(key, (ulong)value);

    /// <summary>A uniformly distributed number in [0, bound), a function of the seed and the index.</summary>
    internal static long Uniform(ulong seed, long index, long bound) =>
        (long)(Mix(seed + (ulong)index * 0x9E3779B97F4A7C15UL) % (ulong)bound);

    /// <summary>SplitMix64's finaliser.</summary>
    internal static ulong Mix(ulong z)
    {
        z += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
