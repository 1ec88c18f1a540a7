using ILGPU;

namespace StorageEngine.Gpu.Kernels;

/// <summary>Device code of batch lookups: finding each probe key's leaf in a snapshot's leaf prefixes.</summary>
internal static class LookupKernels
{
    /// <summary>
    /// For probe <paramref name="index"/>: the last leaf whose prefix is at most the probe's (an upper-bound binary
    /// search of the ascending <paramref name="leafPrefixes"/>; 0 when none is). Exact for integer keys; for
    /// byte-string keys the engine settles probes that tie with a bound.
    /// </summary>
    public static void FindLeaves(Index1D index, ArrayView<ulong> leafPrefixes, ArrayView<ulong> probes, ArrayView<int> leaves)
    {
        ulong probe = probes[index];
        int lo = 1;
        int hi = (int)leafPrefixes.Length - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >> 1;
            if (leafPrefixes[mid] <= probe) lo = mid + 1;
            else hi = mid - 1;
        }
        leaves[index] = lo - 1;
    }
}
