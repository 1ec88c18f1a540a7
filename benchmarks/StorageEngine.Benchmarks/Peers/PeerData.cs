using Microsoft.Win32.SafeHandles;
using StorageEngine.Peers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>Data sets and directories of the peer benchmarks: the same keys and values for every engine.</summary>
public static class PeerData
{
    /// <summary>Value size of every peer benchmark (keys are 16 bytes).</summary>
    public const int ValueSize = 100;

    /// <summary>Puts per transaction while loading a data set in a setup.</summary>
    public const int LoadBatchSize = 10_000;

    /// <summary>A fresh, empty directory for one engine in one benchmark (see <see cref="BenchmarkData.NewDirectory"/>).</summary>
    public static string NewDirectory(string benchmark, string engine) => BenchmarkData.NewDirectory($"peer-{benchmark}-{engine}");

    /// <summary>Puts items <paramref name="first"/> .. first+count-1 (ascending keys) in durable transactions of <see cref="LoadBatchSize"/>.</summary>
    public static void Load(IKeyValueStore store, long first, long count)
    {
        var batch = new PutBatch(LoadBatchSize, ValueSize);
        for (long start = first; start < first + count; start += LoadBatchSize)
        {
            int n = (int)Math.Min(LoadBatchSize, first + count - start);
            for (int i = 0; i < n; i++) batch.Set(i, start + i);
            store.WriteBatch(batch.Puts(n));
        }
    }

    /// <summary>An item number whose key falls at a uniformly random place in the key space (and is new, with near certainty).</summary>
    public static long RandomItem(Random random) => random.NextInt64(1L << 40, long.MaxValue);

    /// <summary>Keys of <paramref name="count"/> items drawn uniformly from [0, <paramref name="range"/>).</summary>
    public static ReadOnlyMemory<byte>[] RandomExistingKeys(int count, long range, int seed)
    {
        var random = new Random(seed);
        var keys = new ReadOnlyMemory<byte>[count];
        for (int i = 0; i < count; i++) keys[i] = BenchmarkData.Key(random.NextInt64(range));
        return keys;
    }

    /// <summary>
    /// Copies every file of <paramref name="source"/>, subdirectories included (ZoneTree keeps its write-ahead log
    /// in <c>seg/shared/</c>: a flat copy lost it, and every reopened copy its last commits), into the new
    /// directory <paramref name="target"/> and, with <paramref name="sync"/>, fsyncs the copies (so no
    /// writeback of them overlaps what is timed next). The source may be open in an engine: when its set of
    /// files or their sizes change during the copy (a background flush or compaction), the copy is taken again,
    /// so the result is the directory as it stood between two writes, as a process crash would leave it.
    /// </summary>
    public static void CopyDirectory(string source, string target, bool sync)
    {
        for (int attempt = 0; ; attempt++)
        {
            if (Directory.Exists(target)) Directory.Delete(target, recursive: true);
            Directory.CreateDirectory(target);
            var before = Listing(source);
            try
            {
                foreach (var (name, length) in before)
                {
                    string copy = Path.Combine(target, name);
                    Directory.CreateDirectory(Path.GetDirectoryName(copy)!);
                    try
                    {
                        File.Copy(Path.Combine(source, name), copy);
                    }
                    catch (IOException) when (File.Exists(Path.Combine(source, name)))
                    {
                        // A file held with flock(LOCK_EX) (StorageEngine's LOCK, ZoneTree's open log): .NET opens the
                        // source with flock(LOCK_SH), which that refuses, so it is read through a bare open(2).
                        CopyWithoutLock(Path.Combine(source, name), copy, length);
                    }
                    if (sync) FlushToDisk(copy);
                }
            }
            catch (FileNotFoundException) when (attempt < 20)
            {
                Thread.Sleep(200);
                continue;
            }
            if (!SameListing(before, Listing(source)))
            {
                if (attempt >= 20) throw new InvalidOperationException($"{source} kept changing while it was copied.");
                Thread.Sleep(200);
                continue;
            }
            return;
        }
    }

    private static void CopyWithoutLock(string source, string copy, long length)
    {
        if (length == 0)
        {
            File.WriteAllBytes(copy, []);
            return;
        }
        using var handle = DirectFile.OpenReadWithoutLock(source)
            ?? throw new IOException($"{source} is locked by its engine and cannot be read without the lock here.");
        // A stream over an open handle takes no lock of its own.
        using var input = new FileStream(handle, FileAccess.Read);
        using var output = new FileStream(copy, FileMode.CreateNew, FileAccess.Write);
        input.CopyTo(output);
    }

    /// <summary>Deletes a directory and everything in it, if it exists.</summary>
    public static void DeleteDirectory(string directory)
    {
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
    }

    private static List<(string Name, long Length)> Listing(string directory) =>
        new DirectoryInfo(directory).GetFiles("*", SearchOption.AllDirectories)
            .Select(f => (Path.GetRelativePath(directory, f.FullName), f.Length)).OrderBy(f => f.Item1, StringComparer.Ordinal).ToList();

    private static bool SameListing(List<(string Name, long Length)> a, List<(string Name, long Length)> b) => a.SequenceEqual(b);

    // On ext4 the fsync of a new file also commits its directory entry, so the directory needs no sync of its own.
    private static void FlushToDisk(string path)
    {
        using SafeFileHandle handle = File.OpenHandle(path, FileMode.Open, FileAccess.ReadWrite);
        RandomAccess.FlushToDisk(handle);
    }
}
