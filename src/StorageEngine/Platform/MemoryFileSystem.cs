namespace StorageEngine.Platform;

/// <summary>
/// A file system in memory, for in-memory environments and for crash tests. Files belong to the instance, not
/// to handles, so an environment can be abandoned without closing ("crashed") and reopened on the same instance.
/// </summary>
/// <remarks>
/// Durability model: writes through buffered handles are volatile until flushed; writes through write-through
/// handles are durable at once; length changes are volatile until flushed; directory operations (create,
/// rename, delete) are durable at once, matching <see cref="OsFileSystem"/>, which fsyncs the directory.
/// </remarks>
internal sealed class MemoryFileSystem : IFileSystem
{
    private readonly object _sync = new();
    private readonly Dictionary<string, MemoryFileState> _files = new(StringComparer.Ordinal);
    private readonly HashSet<string> _directories = new(StringComparer.Ordinal);
    private readonly Dictionary<string, MemoryFileLock> _locks = new(StringComparer.Ordinal);
    private int _generation;
    private long _totalBytesWritten;
    private int _flushCount;
    private readonly bool _simulatesPowerLoss;

    /// <summary>Creates an empty file system.</summary>
    /// <param name="simulatesPowerLoss">
    /// Keep what each file would lose in a power loss (an undo log of unflushed writes), for crash tests. An
    /// in-memory environment passes false: it never simulates one, and it never flushes, so the log would only grow.
    /// </param>
    public MemoryFileSystem(bool simulatesPowerLoss = true) => _simulatesPowerLoss = simulatesPowerLoss;

    /// <inheritdoc />
    public bool IsInMemory => true;

    /// <summary>Bytes written through all handles since creation (a test counter).</summary>
    public long TotalBytesWritten => Interlocked.Read(ref _totalBytesWritten);

    /// <summary>Flushes through all handles since creation, including those done by Preallocate (a test counter).</summary>
    public int FlushCount => Volatile.Read(ref _flushCount);

    /// <summary>Full paths of the existing files.</summary>
    public IReadOnlyCollection<string> FileNames
    {
        get
        {
            lock (_sync)
            {
                return [.. _files.Keys.Order(StringComparer.Ordinal)];
            }
        }
    }

    /// <summary>Crash generation; handles opened in an earlier one are dead.</summary>
    internal int Generation => Volatile.Read(ref _generation);

    /// <inheritdoc />
    /// <remarks>The directory need not exist: in-memory environments may never create one.</remarks>
    public IStorageFile Open(string path, StorageFileMode mode)
    {
        string key = Normalize(path);
        lock (_sync)
        {
            if (!_files.TryGetValue(key, out MemoryFileState? state))
            {
                if ((mode & StorageFileMode.Existing) != 0) throw new FileNotFoundException($"Could not find file '{path}'.", path);
                state = new MemoryFileState(_simulatesPowerLoss);
                _files.Add(key, state);
            }

            lock (state.Sync)
            {
                state.AddHandle();
            }

            return new MemoryStorageFile(this, state, path, (mode & StorageFileMode.UnbufferedWriteThrough) != 0, _generation);
        }
    }

    /// <summary>True when a file or a created directory exists at <paramref name="path"/>.</summary>
    public bool Exists(string path)
    {
        string key = Normalize(path);
        lock (_sync)
        {
            return _files.ContainsKey(key) || _directories.Contains(key);
        }
    }

    /// <summary>Deletes the file; open handles keep working on the orphaned content, as on Unix.</summary>
    public void Delete(string path)
    {
        string key = Normalize(path);
        lock (_sync)
        {
            if (_files.Remove(key, out MemoryFileState? state))
            {
                Unlink(state);
            }
        }
    }

    /// <inheritdoc />
    public void Rename(string from, string to)
    {
        string fromKey = Normalize(from);
        string toKey = Normalize(to);
        lock (_sync)
        {
            if (!_files.Remove(fromKey, out MemoryFileState? state))
            {
                throw new FileNotFoundException($"Cannot rename '{from}': it does not exist.", from);
            }

            if (_files.Remove(toKey, out MemoryFileState? replaced))
            {
                Unlink(replaced);
            }

            _files.Add(toKey, state);
        }
    }

    /// <inheritdoc />
    /// <remarks>Sorted ordinally; empty when the directory holds no files.</remarks>
    public IReadOnlyList<string> ListFiles(string directory)
    {
        string key = Normalize(directory);
        lock (_sync)
        {
            string[] names = _files.Keys
                .Where(path => string.Equals(Path.GetDirectoryName(path), key, StringComparison.Ordinal))
                .Select(path => Path.GetFileName(path))
                .ToArray();
            Array.Sort(names, StringComparer.Ordinal);
            return names;
        }
    }

    /// <summary>Records the directory and its parents, so that <see cref="Exists"/> sees them.</summary>
    public void CreateDirectory(string path)
    {
        lock (_sync)
        {
            for (string? directory = Normalize(path); !string.IsNullOrEmpty(directory); directory = Path.GetDirectoryName(directory))
            {
                if (!_directories.Add(directory))
                {
                    break;
                }
            }
        }
    }

    /// <inheritdoc />
    /// <remarks>Also creates the lock file, as the OS version does, so that directory listings agree.</remarks>
    public IDisposable AcquireLock(string lockFilePath)
    {
        string key = Normalize(lockFilePath);
        lock (_sync)
        {
            if (_locks.ContainsKey(key))
            {
                throw new EnvironmentLockedException(lockFilePath);
            }

            _files.TryAdd(key, new MemoryFileState(_simulatesPowerLoss));
            var held = new MemoryFileLock(this, key);
            _locks.Add(key, held);
            return held;
        }
    }

    /// <summary>
    /// Simulates power loss: every file reverts to what was durable. With <paramref name="random"/>, each
    /// volatile write or length change independently survives with probability 1/2, in order; with
    /// <paramref name="tearWrites"/> too, a surviving write may be cut at a 512-byte boundary. All handles
    /// and locks die, as with <see cref="SimulateProcessCrash"/>; mapped views stay readable.
    /// </summary>
    /// <param name="random">Decides which volatile operations reach the disk; null drops them all.</param>
    /// <param name="tearWrites">A surviving volatile write may be torn.</param>
    /// <param name="reorderWrites">
    /// Surviving volatile writes reach the disk in random order (as write-back does), so where two overlap the
    /// older may win; length changes and write-through writes stay ordering points.
    /// </param>
    /// <param name="scatterTears">
    /// A torn write keeps a random subset of its 512-byte sectors rather than a prefix, which leaves half-written
    /// 4 KB pages in any pattern.
    /// </param>
    public void SimulatePowerLoss(Random? random = null, bool tearWrites = false, bool reorderWrites = false, bool scatterTears = false)
    {
        lock (_sync)
        {
            InvalidateHandlesAndLocks();

            // Sorted, so that a seeded Random always decides the same way.
            foreach (string key in _files.Keys.Order(StringComparer.Ordinal))
            {
                MemoryFileState state = _files[key];
                lock (state.Sync)
                {
                    state.SimulatePowerLoss(random, tearWrites, reorderWrites, scatterTears);
                }
            }
        }
    }

    /// <summary>
    /// Simulates the process dying: all handles and locks die, but every write survives (the OS page cache
    /// outlives the process). Unflushed writes stay volatile and a later power loss can still drop them.
    /// </summary>
    public void SimulateProcessCrash()
    {
        lock (_sync)
        {
            InvalidateHandlesAndLocks();
        }
    }

    /// <summary>Called by a lock when disposed; ignores locks a crash already broke.</summary>
    internal void ReleaseLock(MemoryFileLock held)
    {
        lock (_sync)
        {
            if (_locks.TryGetValue(held.Key, out MemoryFileLock? current) && ReferenceEquals(current, held))
            {
                _locks.Remove(held.Key);
            }
        }
    }

    /// <summary>Adds to <see cref="TotalBytesWritten"/>.</summary>
    internal void CountWrite(long bytes) => Interlocked.Add(ref _totalBytesWritten, bytes);

    /// <summary>Adds one to <see cref="FlushCount"/>.</summary>
    internal void CountFlush() => Interlocked.Increment(ref _flushCount);

    /// <summary>Makes distinct spellings of one path (relative, trailing separator) name the same file.</summary>
    private static string Normalize(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        return Path.TrimEndingDirectorySeparator(Path.GetFullPath(path));
    }

    private static void Unlink(MemoryFileState state)
    {
        lock (state.Sync)
        {
            state.Unlink();
        }
    }

    private void InvalidateHandlesAndLocks()
    {
        // Handles compare their generation under their file's lock, so every operation either completes before
        // the crash (and is then subject to it) or fails.
        Interlocked.Increment(ref _generation);
        _locks.Clear();
    }
}
