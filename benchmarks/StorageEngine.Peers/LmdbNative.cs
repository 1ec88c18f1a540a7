using System.Runtime.InteropServices;

namespace StorageEngine.Peers;

/// <summary>The part of LMDB's C API (lmdb.h) the adapter uses.</summary>
internal static unsafe partial class LmdbNative
{
    internal const uint MDB_NOSYNC = 0x10000;
    internal const uint MDB_NOTLS = 0x200000;
    internal const uint MDB_NORDAHEAD = 0x800000;
    internal const uint MDB_RDONLY = 0x20000;
    internal const uint MDB_CREATE = 0x40000;
    internal const int MDB_NOTFOUND = -30798;

    internal const int MDB_FIRST = 0;
    internal const int MDB_GET_CURRENT = 4;
    internal const int MDB_LAST = 6;
    internal const int MDB_NEXT = 8;
    internal const int MDB_PREV = 12;
    internal const int MDB_SET_RANGE = 17;

    static LmdbNative() => NativeLibraries.EnsureResolver();

    [StructLayout(LayoutKind.Sequential)]
    internal struct MDB_val
    {
        public nuint mv_size;
        public byte* mv_data;

        public readonly ReadOnlySpan<byte> Span => new(mv_data, checked((int)mv_size));
    }

    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_env_create(out IntPtr env);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_env_set_mapsize(IntPtr env, nuint size);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_env_set_maxreaders(IntPtr env, uint readers);
    [LibraryImport(NativeLibraries.Lmdb, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int mdb_env_open(IntPtr env, string path, uint flags, uint mode);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial void mdb_env_close(IntPtr env);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_txn_begin(IntPtr env, IntPtr parent, uint flags, out IntPtr txn);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_txn_commit(IntPtr txn);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial void mdb_txn_abort(IntPtr txn);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial void mdb_txn_reset(IntPtr txn);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_txn_renew(IntPtr txn);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_dbi_open(IntPtr txn, byte* name, uint flags, out uint dbi);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_put(IntPtr txn, uint dbi, MDB_val* key, MDB_val* data, uint flags);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_get(IntPtr txn, uint dbi, MDB_val* key, MDB_val* data);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_del(IntPtr txn, uint dbi, MDB_val* key, MDB_val* data);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_cursor_open(IntPtr txn, uint dbi, out IntPtr cursor);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial int mdb_cursor_get(IntPtr cursor, MDB_val* key, MDB_val* data, int op);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial void mdb_cursor_close(IntPtr cursor);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial byte* mdb_strerror(int error);
    [LibraryImport(NativeLibraries.Lmdb)] internal static partial byte* mdb_version(out int major, out int minor, out int patch);

    /// <summary>Null when the library loads, else why not.</summary>
    internal static string? Probe()
    {
        _ = mdb_version(out _, out _, out _);
        return null;
    }

    internal static string Version()
    {
        var text = mdb_version(out _, out _, out _);
        return Marshal.PtrToStringUTF8((IntPtr)text) ?? "LMDB";
    }

    internal static void Check(int rc, string call)
    {
        if (rc != 0) throw new InvalidOperationException($"{call}: {Marshal.PtrToStringUTF8((IntPtr)mdb_strerror(rc))} ({rc})");
    }
}
