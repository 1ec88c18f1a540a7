using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>
/// Bytes written to the block device that holds a directory, from <c>/sys/dev/block/MAJ:MIN/stat</c>, with the
/// directory's file system synced before each reading so that a phase's dirty pages count in that phase.
/// /proc/self/io's <c>write_bytes</c> is not used for write amplification: it charges a whole page-cache folio when
/// any of it is dirtied, and with the large folios of recent kernels a random 4 KiB write into a file read or
/// written in bulk before was charged 64 KiB and more (a scratch of random 1 KiB updates measured 63.6 KB per
/// update from write_bytes against 5.5 KB at the device). The device counts every writer on the machine, so
/// nothing else should write to that disk during a run.
/// </summary>
internal sealed class DeviceWrites
{
    private readonly string _statPath;
    private readonly string _directory;

    private DeviceWrites(string statPath, string directory)
    {
        _statPath = statPath;
        _directory = directory;
    }

    /// <summary>The device of <paramref name="directory"/>'s file system, or null where it cannot be found.</summary>
    internal static DeviceWrites? For(string directory)
    {
        try
        {
            string full = Path.GetFullPath(directory);
            string? bestMount = null, bestDevice = null;
            foreach (var line in File.ReadLines("/proc/self/mountinfo"))
            {
                // "36 35 98:0 /root /mnt/point options ... - fstype source options": field 3 is the device, 5 the mount point.
                var fields = line.Split(' ');
                if (fields.Length < 5) continue;
                string mount = fields[4].Replace("\\040", " ");
                bool under = full == mount || full.StartsWith(mount.EndsWith('/') ? mount : mount + "/", StringComparison.Ordinal);
                if (!under || (bestMount is not null && mount.Length < bestMount.Length)) continue;
                bestMount = mount;
                bestDevice = fields[2];
            }
            if (bestDevice is null) return null;
            string stat = $"/sys/dev/block/{bestDevice}/stat";
            if (!File.Exists(stat)) return null;
            var meter = new DeviceWrites(stat, full);
            return meter.SectorsWritten() >= 0 ? meter : null;
        }
        catch (IOException) { return null; }
        catch (UnauthorizedAccessException) { return null; }
    }

    /// <summary>Syncs the directory's file system, then returns the bytes the device has written since boot.</summary>
    internal long SyncAndRead()
    {
        // The run's directory may be gone after its engine closed; any directory of the file system will do.
        string existing = _directory;
        while (!Directory.Exists(existing) && Path.GetDirectoryName(existing) is { } parent) existing = parent;
        Libc.SyncFileSystem(existing);
        long sectors = SectorsWritten();
        return sectors < 0 ? -1 : sectors * 512;
    }

    /// <summary>
    /// The device's readahead window in KiB (<c>queue/read_ahead_kb</c>, the whole disk's for a partition): what the
    /// kernel reads around a page fault in a file mapping that was not advised random. Null where unknown.
    /// </summary>
    internal int? ReadAheadKilobytes()
    {
        string device = Path.GetDirectoryName(_statPath)!;
        foreach (var queue in new[] { Path.Combine(device, "queue"), Path.Combine(device, "..", "queue") })
        {
            try
            {
                string file = Path.Combine(queue, "read_ahead_kb");
                if (File.Exists(file)) return int.Parse(File.ReadAllText(file).Trim(), CultureInfo.InvariantCulture);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException) { }
        }
        return null;
    }

    private long SectorsWritten()
    {
        // Field 7 of the block layer's stat file: sectors written, always in 512-byte units.
        var fields = File.ReadAllText(_statPath).Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return fields.Length > 6 && long.TryParse(fields[6], NumberStyles.None, CultureInfo.InvariantCulture, out long sectors) ? sectors : -1;
    }
}
