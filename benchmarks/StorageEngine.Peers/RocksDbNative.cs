using System.Runtime.InteropServices;

namespace StorageEngine.Peers;

/// <summary>The part of RocksDB's C API (rocksdb/c.h) the adapter uses.</summary>
internal static unsafe partial class RocksDbNative
{
    static RocksDbNative() => NativeLibraries.EnsureResolver();

    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_options_create();
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_options_destroy(IntPtr options);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_options_set_create_if_missing(IntPtr options, byte value);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_options_set_compression(IntPtr options, int type);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_options_increase_parallelism(IntPtr options, int threads);
    [LibraryImport(NativeLibraries.RocksDb, StringMarshalling = StringMarshalling.Utf8)]
    internal static partial IntPtr rocksdb_open(IntPtr options, string name, out IntPtr error);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_close(IntPtr db);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_writeoptions_create();
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writeoptions_destroy(IntPtr options);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writeoptions_set_sync(IntPtr options, byte value);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writeoptions_disable_WAL(IntPtr options, int disable);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_readoptions_create();
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_readoptions_destroy(IntPtr options);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_readoptions_set_snapshot(IntPtr options, IntPtr snapshot);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_create_snapshot(IntPtr db);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_release_snapshot(IntPtr db, IntPtr snapshot);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_writebatch_create();
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writebatch_destroy(IntPtr batch);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writebatch_put(IntPtr batch, byte* key, nuint keyLength, byte* value, nuint valueLength);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_writebatch_delete(IntPtr batch, byte* key, nuint keyLength);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_write(IntPtr db, IntPtr options, IntPtr batch, out IntPtr error);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_get_pinned(IntPtr db, IntPtr options, byte* key, nuint keyLength, out IntPtr error);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial byte* rocksdb_pinnableslice_value(IntPtr slice, out nuint length);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_pinnableslice_destroy(IntPtr slice);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial IntPtr rocksdb_create_iterator(IntPtr db, IntPtr options);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_destroy(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_seek_to_first(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_seek_to_last(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_seek(IntPtr iterator, byte* key, nuint keyLength);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_seek_for_prev(IntPtr iterator, byte* key, nuint keyLength);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial byte rocksdb_iter_valid(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_next(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_prev(IntPtr iterator);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial byte* rocksdb_iter_key(IntPtr iterator, out nuint length);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial byte* rocksdb_iter_value(IntPtr iterator, out nuint length);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_iter_get_error(IntPtr iterator, out IntPtr error);
    [LibraryImport(NativeLibraries.RocksDb)] internal static partial void rocksdb_free(IntPtr pointer);

    /// <summary>Null when the library loads, else why not.</summary>
    internal static string? Probe()
    {
        rocksdb_options_destroy(rocksdb_options_create());
        return null;
    }

    internal static void Check(IntPtr error, string call)
    {
        if (error == IntPtr.Zero) return;
        string message = Marshal.PtrToStringUTF8(error) ?? "unknown error";
        rocksdb_free(error);
        throw new InvalidOperationException($"{call}: {message}");
    }
}
