namespace StorageEngine.Peers;

/// <summary>
/// How the adapters open their engines in a process whose memory is limited: the workload runner's W7 child
/// processes (each in a cgroup of the limit) set <see cref="Bytes"/> before they open a store; every other process
/// leaves it null, and the engines open as they do everywhere else. With a limit set:
/// <list type="bullet">
/// <item>LMDB opens with MDB_NORDAHEAD, as its documentation advises for a database larger than RAM: without it a
/// page fault in the map reads the device's whole readahead window around the page (8 MiB on the 2-vCPU test
/// machine, <c>/sys/block/vda/queue/read_ahead_kb</c>); random reads through a map of a 512 MiB file in a 256 MiB
/// cgroup ran there at about 210 a second with the readahead and 7,000 with madvise(MADV_RANDOM), 2026-11-27.</item>
/// <item>RocksDB's two memtables (<c>write_buffer_size</c> each) and its block cache get an eighth of the limit each,
/// never more than its defaults (64 MiB and 32 MiB): with the defaults a 256 MiB limit had it killed by the kernel
/// once its memtables filled (128 MiB of them beside the cache and the runtime).</item>
/// <item>StorageEngine has no setting of either kind and opens with its defaults (its committed pages waiting for a
/// checkpoint are held to 64 MiB at least, a quarter of a 256 MiB limit, as RocksDB's memtables and cache are).</item>
/// </list>
/// </summary>
public static class MemoryLimit
{
    /// <summary>The process's memory limit in bytes; null where it has none of its own (every run but W7's).</summary>
    public static long? Bytes { get; set; }

    /// <summary>A share of the limit, within [<paramref name="least"/>, <paramref name="most"/>].</summary>
    internal static long Share(long limit, int divisor, long least, long most) => Math.Clamp(limit / divisor, least, most);
}
