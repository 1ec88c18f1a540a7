using System.Globalization;

namespace StorageEngine.Workloads;

/// <summary>
/// A Linux memory cgroup with a limit, for W7: every page a process in it touches is charged to it, its anonymous
/// memory and the page cache it reads or writes (the mapped data files of LMDB and ours, RocksDB's SST files) alike,
/// and the kernel reclaims page cache, or kills the process, to keep the group under the limit. cgroup v2 is tried
/// first (<c>memory.max</c> in the unified hierarchy), then v1 (<c>memory.limit_in_bytes</c> in the memory
/// hierarchy). Where the group is made: under <c>--cgroup-parent</c> when given; else, in v2, beside the runner's
/// own cgroup (a v2 group that holds processes cannot also give its children the memory controller) or at the
/// root when the runner is in the root; in v1, under the runner's own cgroup, then at the hierarchy's root.
/// </summary>
internal sealed class MemoryCgroup : IDisposable
{
    private readonly bool _owned;

    private MemoryCgroup(string directory, int version, bool owned)
    {
        Directory = directory;
        Version = version;
        _owned = owned;
    }

    /// <summary>The group's directory, e.g. <c>/sys/fs/cgroup/memory/storageengine-w7-123-lmdb</c>.</summary>
    internal string Directory { get; }

    /// <summary>1 or 2.</summary>
    internal int Version { get; }

    /// <summary>The group's own limit in bytes, as the kernel holds it (rounded to pages).</summary>
    internal long Limit => Read(Version == 2 ? "memory.max" : "memory.limit_in_bytes") ?? -1;

    /// <summary>Bytes charged to the group now (anonymous memory and page cache).</summary>
    internal long? Usage => Read(Version == 2 ? "memory.current" : "memory.usage_in_bytes");

    /// <summary>The most bytes charged to the group at once since it was made; null where the kernel does not say (v2 before 5.19).</summary>
    internal long? Peak => Read(Version == 2 ? "memory.peak" : "memory.max_usage_in_bytes");

    /// <summary>The anonymous memory charged to the group now (heaps, the engines' own caches and buffers): what reclaim cannot drop.</summary>
    internal long? Anonymous => ReadKey("memory.stat", Version == 2 ? "anon" : "rss");

    /// <summary>How many processes of the group the kernel's OOM killer killed (null where it does not say).</summary>
    internal long? OomKills => ReadKey(Version == 2 ? "memory.events" : "memory.oom_control", "oom_kill");

    /// <summary>"cgroup v1 /sys/fs/cgroup/memory/…", for notes and messages.</summary>
    internal string Describe() => $"cgroup v{Version} {Directory}";

    /// <summary>
    /// Makes a fresh group named <paramref name="name"/> limited to <paramref name="limitBytes"/> (no swap either,
    /// where the kernel has the file), in <paramref name="parent"/> when given.
    /// </summary>
    /// <exception cref="InvalidOperationException">No cgroup could be made: the message says what was tried and what to do.</exception>
    internal static MemoryCgroup Create(string name, long limitBytes, string? parent)
    {
        var tried = new List<string>();
        foreach (var (candidate, version) in parent is null ? Candidates() : [(parent, File.Exists(Path.Combine(parent, "cgroup.controllers")) ? 2 : 1)])
        {
            string directory = Path.Combine(candidate, name);
            try
            {
                // Every cgroup directory has cgroup.procs; an ordinary directory would take the files written below.
                if (!File.Exists(Path.Combine(candidate, "cgroup.procs")))
                    throw new IOException($"{candidate} is not a cgroup directory (it has no cgroup.procs)");
                if (version == 2 && !Controllers(candidate, "cgroup.subtree_control").Contains("memory"))
                    WriteExisting(Path.Combine(candidate, "cgroup.subtree_control"), "+memory");
                if (System.IO.Directory.Exists(directory)) System.IO.Directory.Delete(directory);
                System.IO.Directory.CreateDirectory(directory);
                var group = new MemoryCgroup(directory, version, owned: true);
                try
                {
                    string limit = limitBytes.ToString(CultureInfo.InvariantCulture);
                    if (version == 2)
                    {
                        WriteExisting(Path.Combine(directory, "memory.max"), limit);
                        TryWrite(Path.Combine(directory, "memory.swap.max"), "0");
                    }
                    else
                    {
                        WriteExisting(Path.Combine(directory, "memory.limit_in_bytes"), limit);
                        // memsw is memory plus swap: equal to the limit, nothing can go to swap.
                        TryWrite(Path.Combine(directory, "memory.memsw.limit_in_bytes"), limit);
                    }
                    // Opening cgroup.procs for writing checks that a process can be put in (the child does it).
                    using (new FileStream(Path.Combine(directory, "cgroup.procs"), FileMode.Open, FileAccess.Write)) { }
                    return group;
                }
                catch
                {
                    group.Dispose();
                    throw;
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                tried.Add($"{directory} (cgroup v{version}): {e.Message}");
            }
        }
        throw new InvalidOperationException(
            "W7 could not make a memory cgroup for the limit" + (tried.Count == 0 ? ": this system has no cgroup memory controller mounted" : ":\n  " + string.Join("\n  ", tried)) +
            "\nTo run W7: run the runner as root (it makes one group per engine and removes it after), or name with --cgroup-parent " +
            "a cgroup directory you may write, e.g. a delegated cgroup v2 one: `systemd-run --user --scope -p Delegate=yes bash`, then " +
            "pass the directory of that shell's cgroup (/sys/fs/cgroup + the path in /proc/self/cgroup), whose cgroup.subtree_control " +
            "must offer the memory controller; on cgroup v1, `sudo mkdir /sys/fs/cgroup/memory/w7 && sudo chown -R $USER /sys/fs/cgroup/memory/w7` " +
            "and --cgroup-parent /sys/fs/cgroup/memory/w7.");
    }

    /// <summary>A group made by another process (the W7 parent), to read its figures; not removed on dispose.</summary>
    internal static MemoryCgroup Existing(string directory) =>
        new(directory, File.Exists(Path.Combine(directory, "memory.max")) ? 2 : 1, owned: false);

    /// <summary>True when this process is in the group (by the group's name in /proc/self/cgroup).</summary>
    internal bool ContainsThisProcess()
    {
        string name = "/" + Path.GetFileName(Directory);
        return File.ReadLines("/proc/self/cgroup").Any(line => line.EndsWith(name, StringComparison.Ordinal));
    }

    /// <summary>Where a group may be made, best first: v2 where its memory controller is on, then v1.</summary>
    private static List<(string Directory, int Version)> Candidates()
    {
        var candidates = new List<(string, int)>();
        string? v2Mount = null, v1Mount = null;
        foreach (var line in File.ReadLines("/proc/self/mountinfo"))
        {
            // "36 35 0:30 / /sys/fs/cgroup/memory rw,... shared:1 - cgroup cgroup rw,memory": the mount point is
            // field 5; after " - " come the file system type and its options.
            int dash = line.IndexOf(" - ", StringComparison.Ordinal);
            if (dash < 0) continue;
            var fields = line[..dash].Split(' ');
            var after = line[(dash + 3)..].Split(' ');
            if (fields.Length < 5 || after.Length < 3) continue;
            string mount = fields[4].Replace("\\040", " ", StringComparison.Ordinal);
            if (after[0] == "cgroup2") v2Mount ??= mount;
            else if (after[0] == "cgroup" && after[2].Split(',').Contains("memory")) v1Mount ??= mount;
        }
        string? v2Path = null, v1Path = null;
        foreach (var line in File.ReadLines("/proc/self/cgroup"))
        {
            var parts = line.Split(':', 3);
            if (parts.Length < 3) continue;
            if (parts[0] == "0" && parts[1].Length == 0) v2Path = parts[2];
            else if (parts[1].Split(',').Contains("memory")) v1Path = parts[2];
        }
        if (v2Mount is not null && v2Path is not null && Controllers(v2Mount, "cgroup.controllers").Contains("memory"))
        {
            string own = Path.Combine(v2Mount, v2Path.TrimStart('/'));
            // The root may hold processes and still give its children controllers; any other group may not.
            candidates.Add((v2Path == "/" ? v2Mount : Path.GetDirectoryName(own)!, 2));
        }
        if (v1Mount is not null)
        {
            if (v1Path is not null && v1Path != "/") candidates.Add((Path.Combine(v1Mount, v1Path.TrimStart('/')), 1));
            candidates.Add((v1Mount, 1));
        }
        return candidates;
    }

    private static string[] Controllers(string directory, string file)
    {
        try
        {
            return File.ReadAllText(Path.Combine(directory, file)).Split(' ', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }

    /// <summary>Writes a control file the kernel made; never creates one.</summary>
    private static void WriteExisting(string path, string text)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Write);
        file.Write(System.Text.Encoding.ASCII.GetBytes(text));
    }

    private static void TryWrite(string path, string text)
    {
        try
        {
            if (File.Exists(path)) WriteExisting(path, text);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException) { }
    }

    private long? Read(string file)
    {
        try
        {
            string text = File.ReadAllText(Path.Combine(Directory, file)).Trim();
            return text == "max" ? long.MaxValue : long.Parse(text, CultureInfo.InvariantCulture);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException)
        {
            return null;
        }
    }

    private long? ReadKey(string file, string key)
    {
        try
        {
            foreach (var line in File.ReadLines(Path.Combine(Directory, file)))
            {
                var parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (parts.Length == 2 && parts[0] == key) return long.Parse(parts[1], CultureInfo.InvariantCulture);
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException) { }
        return null;
    }

    /// <summary>Removes the group if this process made it (its processes must have ended; its page cache moves to the parent).</summary>
    public void Dispose()
    {
        if (!_owned) return;
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                if (System.IO.Directory.Exists(Directory)) System.IO.Directory.Delete(Directory);
                return;
            }
            catch (IOException) when (attempt < 20)
            {
                // A process that just exited can stay listed for a moment.
                Thread.Sleep(50);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Console.Error.WriteLine($"warning: could not remove {Directory}: {e.Message}");
                return;
            }
        }
    }
}
