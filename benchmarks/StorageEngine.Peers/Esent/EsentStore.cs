using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using static StorageEngine.Peers.Esent.EsentConstants;
using static StorageEngine.Peers.Esent.EsentNative;

namespace StorageEngine.Peers.Esent;

/// <summary>
/// ESENT (esent.dll, the Extensible Storage Engine every Windows ships), called through a small P/Invoke set
/// (<see cref="EsentNative"/>) rather than ManagedEsent, which the package source here does not serve. One table
/// with a long-binary key column under a unique primary index and a long-binary value column. Configured as the
/// Voron comparison configured ESENT: circular log, 16 MB log files, a large version store (512 MB), recovery on;
/// batch sizes (100 items per transaction among them) are the benchmarks' parameters. Durable commits flush the
/// log (a plain JetCommitTransaction); ProcessCrash commits with JET_bitCommitLazyFlush. Writes go through one
/// session under a lock; reads take a session from a pool, one per concurrent reader. On any system but Windows
/// the constructor throws <see cref="EngineUnavailableException"/> and <see cref="Probe"/> says why.
/// </summary>
public sealed class EsentStore : IKeyValueStore
{
    /// <summary>The longest key the index keeps whole (normalized keys of up to 1000 bytes fit any page size).</summary>
    public const int MaxKeyBytes = 800;

    private const string TableName = "kv";
    private const string KeyColumn = "k";
    private const string ValueColumn = "v";
    private const int LogFileKiB = 16 * 1024;
    private const long VersionStoreBytes = 512L << 20;
    private const int MaxSessions = 256;

    private static int s_instances;

    private readonly nint _instance;
    private readonly string _databasePath;
    private readonly uint _keyColumn;
    private readonly uint _valueColumn;
    private readonly EsentSession _writer;
    private readonly Lock _writeLock = new();
    private readonly ConcurrentBag<EsentSession> _readers = [];
    private int _disposed;

    /// <summary>Opens or creates <c>kv.edb</c> (logs, checkpoint and temporary files beside it) in <paramref name="directory"/>.</summary>
    /// <exception cref="EngineUnavailableException">Not on Windows, or esent.dll does not load.</exception>
    public EsentStore(string directory, DurabilityTier tier)
    {
        if (tier == DurabilityTier.None) throw new NotSupportedException("ESENT has no in-memory tier.");
        if (Probe() is { } reason) throw new EngineUnavailableException(reason);
        Tier = tier;
        directory = Path.GetFullPath(directory);
        _databasePath = Path.Combine(directory, "kv.edb");
        _instance = CreateInstance(directory);
        try
        {
            (_keyColumn, _valueColumn) = AttachOrCreate(_instance, _databasePath);
            _writer = new EsentSession(_instance, _databasePath, TableName);
        }
        catch
        {
            _ = JetTerm2(_instance, TermComplete);
            throw;
        }
    }

    /// <summary>Null when esent.dll loads here, else why not.</summary>
    public static string? Probe()
    {
        if (!OperatingSystem.IsWindows())
            return $"ESENT (esent.dll) exists only on Windows; this is {RuntimeInformation.OSDescription}";
        if (!NativeLibrary.TryLoad("esent.dll", out var handle)) return "esent.dll does not load on this Windows";
        NativeLibrary.Free(handle);
        return null;
    }

    /// <summary>The library that runs (for the report).</summary>
    public static string LibraryVersion =>
        "esent.dll " + (OperatingSystem.IsWindows() ? Environment.OSVersion.Version.ToString() : "")
        + " through P/Invoke; circular log, 16 MB log files, 512 MB version store";

    /// <inheritdoc />
    public string EngineName => "esent";

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        foreach (ref readonly var put in puts)
            if (put.Key.Length > MaxKeyBytes)
                throw new ArgumentException($"ESENT's adapter keeps keys of up to {MaxKeyBytes} bytes; one is {put.Key.Length}.", nameof(puts));
        lock (_writeLock)
        {
            var s = _writer;
            EsentException.Check(JetBeginTransaction2(s.Sesid, 0), "JetBeginTransaction2");
            try
            {
                foreach (ref readonly var put in puts)
                {
                    bool present = s.SeekEqual(put.Key.Span);
                    EsentException.Check(JetPrepareUpdate(s.Sesid, s.Tableid, present ? PrepareReplace : PrepareInsert), "JetPrepareUpdate");
                    try
                    {
                        if (!present) s.SetColumn(_keyColumn, put.Key.Span);
                        s.SetColumn(_valueColumn, put.Value.Span);
                        EsentException.Check(UpdateRecord(s), "JetUpdate");
                    }
                    catch
                    {
                        _ = JetPrepareUpdate(s.Sesid, s.Tableid, PrepareCancel);
                        throw;
                    }
                }
                Commit(s);
            }
            catch
            {
                _ = JetRollback(s.Sesid, 0);
                throw;
            }
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        lock (_writeLock)
        {
            var s = _writer;
            EsentException.Check(JetBeginTransaction2(s.Sesid, 0), "JetBeginTransaction2");
            try
            {
                foreach (ref readonly var key in keys)
                    if (key.Length <= MaxKeyBytes && s.SeekEqual(key.Span))
                        EsentException.Check(JetDelete(s.Sesid, s.Tableid), "JetDelete");
                Commit(s);
            }
            catch
            {
                _ = JetRollback(s.Sesid, 0);
                throw;
            }
        }
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var s = RentReader();
        try
        {
            return key.Length <= MaxKeyBytes && s.SeekEqual(key) ? s.Retrieve(_valueColumn, destination) : -1;
        }
        finally
        {
            _readers.Add(s);
        }
    }

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        var s = RentReader();
        try
        {
            EsentException.Check(JetBeginTransaction2(s.Sesid, TransactionReadOnly), "JetBeginTransaction2");
            try
            {
                int found = 0;
                foreach (ref readonly var key in keys)
                    if (key.Length <= MaxKeyBytes && s.SeekEqual(key.Span))
                    {
                        s.Retrieve(_valueColumn, scratch);
                        found++;
                    }
                return found;
            }
            finally
            {
                _ = JetCommitTransaction(s.Sesid, 0);
            }
        }
        finally
        {
            _readers.Add(s);
        }
    }

    /// <inheritdoc />
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false)
    {
        var s = RentReader();
        try
        {
            EsentException.Check(JetBeginTransaction2(s.Sesid, TransactionReadOnly), "JetBeginTransaction2");
            try
            {
                int visited = 0;
                long bytes = 0;
                bool positioned = count > 0 && s.SeekForScan(start, backward);
                while (positioned && visited < count)
                {
                    var key = s.RetrieveWhole(_keyColumn, key: true);
                    var value = s.RetrieveWhole(_valueColumn, key: false);
                    bytes += ValueReads.Visit(key, value);
                    visited++;
                    positioned = visited < count && s.Move(backward);
                }
                GC.KeepAlive(bytes);
                return visited;
            }
            finally
            {
                _ = JetCommitTransaction(s.Sesid, 0);
            }
        }
        finally
        {
            _readers.Add(s);
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        lock (_writeLock)
        {
            while (_readers.TryTake(out var reader)) reader.Dispose();
            _writer.Dispose();
            _ = JetTerm2(_instance, TermComplete);
        }
    }

    private void Commit(EsentSession s) =>
        EsentException.Check(JetCommitTransaction(s.Sesid, Tier == DurabilityTier.ProcessCrash ? CommitLazyFlush : 0), "JetCommitTransaction");

    private static unsafe int UpdateRecord(EsentSession s) => JetUpdate(s.Sesid, s.Tableid, null, 0, out _);

    private EsentSession RentReader()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        return _readers.TryTake(out var s) ? s : new EsentSession(_instance, _databasePath, TableName);
    }

    /// <summary>A new instance with its logs, checkpoint and temporary database under <paramref name="directory"/>.</summary>
    private static unsafe nint CreateInstance(string directory)
    {
        string name = $"storageengine-peer-{Environment.ProcessId}-{Interlocked.Increment(ref s_instances)}";
        EsentException.Check(JetCreateInstance2(out nint instance, name, name, 0), "JetCreateInstance2");
        try
        {
            string logs = Path.Combine(directory, "logs") + Path.DirectorySeparatorChar;
            string temp = Path.Combine(directory, "temp") + Path.DirectorySeparatorChar;
            long versionPages = VersionStoreBytes / VersionPageBytes();
            SetParameter(&instance, ParamCreatePathIfNotExist, 1);
            SetParameter(&instance, ParamSystemPath, 0, directory + Path.DirectorySeparatorChar);
            SetParameter(&instance, ParamLogFilePath, 0, logs);
            SetParameter(&instance, ParamTempPath, 0, temp);
            SetParameter(&instance, ParamCircularLog, 1);
            SetParameter(&instance, ParamLogFileSize, LogFileKiB);
            SetParameter(&instance, ParamMaxVerPages, (nint)versionPages);
            SetParameter(&instance, ParamPreferredVerPages, (nint)(versionPages * 85 / 100));
            SetParameter(&instance, ParamMaxSessions, MaxSessions);
            SetParameter(&instance, ParamMaxCursors, 4 * MaxSessions);
            SetParameter(&instance, ParamMaxOpenTables, 4 * MaxSessions);
            SetParameter(&instance, ParamNoInformationEvent, 1);
            EsentException.Check(JetInit(ref instance), "JetInit");
            return instance;
        }
        catch
        {
            _ = JetTerm2(instance, TermComplete);
            throw;
        }
    }

    /// <summary>
    /// The size of a version store page: JET_paramVerPageSize where the system reports it, else 32 KiB (16 KiB
    /// doubled in a 64-bit process), as ManagedEsent's users compute it.
    /// </summary>
    private static unsafe long VersionPageBytes()
    {
        nint size = 0;
        int rc = JetGetSystemParameter(0, 0, ParamVerPageSize, ref size, null, 0);
        return rc >= 0 && size > 0 ? size : (Environment.Is64BitProcess ? 32 : 16) << 10;
    }

    private static unsafe void SetParameter(nint* instance, uint parameter, nint value, string? text = null) =>
        EsentException.Check(JetSetSystemParameter(instance, 0, parameter, value, text), $"JetSetSystemParameter({parameter})");

    /// <summary>Attaches the database (creating it with its table on first use) and returns the key and value column ids.</summary>
    private static unsafe (uint Key, uint Value) AttachOrCreate(nint instance, string databasePath)
    {
        EsentException.Check(JetBeginSession(instance, out nint sesid, null, null), "JetBeginSession");
        try
        {
            uint dbid;
            nint tableid;
            if (File.Exists(databasePath))
            {
                EsentException.Check(JetAttachDatabase(sesid, databasePath, 0), "JetAttachDatabase");
                EsentException.Check(JetOpenDatabase(sesid, databasePath, null, out dbid, 0), "JetOpenDatabase");
                EsentException.Check(JetOpenTable(sesid, dbid, TableName, null, 0, 0, out tableid), "JetOpenTable");
            }
            else
            {
                EsentException.Check(JetCreateDatabase(sesid, databasePath, null, out dbid, 0), "JetCreateDatabase");
                EsentException.Check(JetBeginTransaction2(sesid, 0), "JetBeginTransaction2");
                EsentException.Check(JetCreateTable(sesid, dbid, TableName, 16, 100, out tableid), "JetCreateTable");
                AddLongBinaryColumn(sesid, tableid, KeyColumn);
                AddLongBinaryColumn(sesid, tableid, ValueColumn);
                CreatePrimaryIndex(sesid, tableid);
                EsentException.Check(JetCommitTransaction(sesid, 0), "JetCommitTransaction");
            }
            var columns = (ColumnId(sesid, tableid, KeyColumn), ColumnId(sesid, tableid, ValueColumn));
            _ = JetCloseTable(sesid, tableid);
            _ = JetCloseDatabase(sesid, dbid, 0);
            return columns;
        }
        finally
        {
            _ = JetEndSession(sesid, 0);
        }
    }

    private static unsafe void AddLongBinaryColumn(nint sesid, nint tableid, string name)
    {
        var definition = new ColumnDefinition
        {
            StructBytes = (uint)sizeof(ColumnDefinition),
            ColumnType = ColumnTypeLongBinary,
        };
        EsentException.Check(JetAddColumn(sesid, tableid, name, definition, null, 0, out _), "JetAddColumn");
    }

    /// <summary>
    /// The unique primary (clustered) index over the key column: JetCreateIndex2 with cbKeyMost, since
    /// JetCreateIndex keeps only 255 bytes of a normalized key, and with truncation disallowed, so that two long
    /// keys with a common prefix can never collide.
    /// </summary>
    private static unsafe void CreatePrimaryIndex(nint sesid, nint tableid)
    {
        const string description = "+" + KeyColumn + "\0\0";
        fixed (char* indexName = "primary")
        fixed (char* key = description)
        {
            var index = new IndexCreate
            {
                StructBytes = (uint)sizeof(IndexCreate),
                IndexName = indexName,
                KeyDescription = key,
                KeyDescriptionBytes = (uint)(description.Length * sizeof(char)),
                Grbit = IndexPrimary | IndexUnique | IndexDisallowNull | IndexKeyMost | IndexDisallowTruncation,
                Density = 100,
                KeyMostBytes = 1000,
            };
            EsentException.Check(JetCreateIndex2(sesid, tableid, &index, 1), "JetCreateIndex2");
        }
    }

    private static unsafe uint ColumnId(nint sesid, nint tableid, string name)
    {
        var definition = new ColumnDefinition { StructBytes = (uint)sizeof(ColumnDefinition) };
        EsentException.Check(JetGetTableColumnInfo(sesid, tableid, name, ref definition, definition.StructBytes, ColumnInfo), "JetGetTableColumnInfo");
        return definition.ColumnId;
    }
}
