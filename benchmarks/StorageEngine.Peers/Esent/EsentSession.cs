using static StorageEngine.Peers.Esent.EsentConstants;
using static StorageEngine.Peers.Esent.EsentNative;

namespace StorageEngine.Peers.Esent;

/// <summary>
/// One ESENT session with the database and the key-value table open on it, and scratch buffers for what it
/// reads. A session is used by one thread at a time (the store pools them), and every transaction begins and
/// ends within one call, so no transaction crosses threads.
/// </summary>
internal sealed unsafe class EsentSession : IDisposable
{
    private byte[] _keyBuffer = new byte[256];
    private byte[] _valueBuffer = new byte[4096];

    internal EsentSession(nint instance, string databasePath, string tableName)
    {
        EsentException.Check(JetBeginSession(instance, out var sesid, null, null), "JetBeginSession");
        Sesid = sesid;
        try
        {
            EsentException.Check(JetOpenDatabase(Sesid, databasePath, null, out var dbid, 0), "JetOpenDatabase");
            Dbid = dbid;
            EsentException.Check(JetOpenTable(Sesid, Dbid, tableName, null, 0, 0, out var tableid), "JetOpenTable");
            Tableid = tableid;
        }
        catch
        {
            _ = JetEndSession(Sesid, 0);
            throw;
        }
    }

    internal nint Sesid { get; }

    internal uint Dbid { get; }

    internal nint Tableid { get; }

    /// <summary>Positions on <paramref name="key"/> (primary index); false when absent.</summary>
    internal bool SeekEqual(ReadOnlySpan<byte> key)
    {
        MakeKey(key);
        int rc = JetSeek(Sesid, Tableid, EsentConstants.SeekEqual);
        if (rc == ErrorRecordNotFound) return false;
        EsentException.Check(rc, "JetSeek");
        return true;
    }

    /// <summary>
    /// Positions on the first key &gt;= <paramref name="start"/> (forward) or the last key &lt;= it (backward);
    /// an empty start means the first or last record. False when there is none.
    /// </summary>
    internal bool SeekForScan(ReadOnlySpan<byte> start, bool backward)
    {
        int rc;
        if (start.IsEmpty)
        {
            rc = JetMove(Sesid, Tableid, backward ? MoveLast : MoveFirst, 0);
            if (rc == ErrorNoCurrentRecord) return false;
            EsentException.Check(rc, "JetMove");
            return true;
        }
        MakeKey(start);
        rc = JetSeek(Sesid, Tableid, backward ? SeekLessOrEqual : SeekGreaterOrEqual);
        if (rc == ErrorRecordNotFound) return false;
        EsentException.Check(rc, "JetSeek");
        return true;
    }

    /// <summary>Moves to the next (or previous) record; false past the end.</summary>
    internal bool Move(bool backward)
    {
        int rc = JetMove(Sesid, Tableid, backward ? MovePrevious : MoveNext, 0);
        if (rc == ErrorNoCurrentRecord) return false;
        EsentException.Check(rc, "JetMove");
        return true;
    }

    /// <summary>
    /// Copies the current record's column into <paramref name="destination"/> (as much as fits) and returns the
    /// column's full length; a null column reads as empty.
    /// </summary>
    internal int Retrieve(uint columnid, Span<byte> destination)
    {
        fixed (byte* data = destination)
        {
            int rc = EsentException.Check(
                JetRetrieveColumn(Sesid, Tableid, columnid, data, (uint)destination.Length, out uint actual, 0, null),
                "JetRetrieveColumn");
            return rc == WarningColumnNull ? 0 : checked((int)actual);
        }
    }

    /// <summary>The current record's column, read whole into this session's scratch buffer.</summary>
    internal ReadOnlySpan<byte> RetrieveWhole(uint columnid, bool key)
    {
        ref byte[] buffer = ref key ? ref _keyBuffer : ref _valueBuffer;
        int length = Retrieve(columnid, buffer);
        if (length > buffer.Length)
        {
            buffer = new byte[Math.Max(length, buffer.Length * 2)];
            length = Retrieve(columnid, buffer);
        }
        return buffer.AsSpan(0, length);
    }

    /// <summary>Sets a column of the record being prepared; an empty value is stored as zero-length, not null.</summary>
    internal void SetColumn(uint columnid, ReadOnlySpan<byte> value)
    {
        fixed (byte* data = value)
        {
            EsentException.Check(
                JetSetColumn(Sesid, Tableid, columnid, data, (uint)value.Length, value.IsEmpty ? SetZeroLength : 0, null),
                "JetSetColumn");
        }
    }

    private void MakeKey(ReadOnlySpan<byte> key)
    {
        fixed (byte* data = key)
        {
            EsentException.Check(JetMakeKey(Sesid, Tableid, data, (uint)key.Length, NewKey), "JetMakeKey");
        }
    }

    public void Dispose()
    {
        _ = JetCloseTable(Sesid, Tableid);
        _ = JetCloseDatabase(Sesid, Dbid, 0);
        _ = JetEndSession(Sesid, 0);
    }
}
