using System.Reflection;
using System.Runtime.InteropServices;

namespace StorageEngine.Peers;

/// <summary>
/// Resolves the logical library names used in the [DllImport]s to the sonames that distributions install,
/// so no development symlink (librocksdb.so) is needed.
/// </summary>
internal static class NativeLibraries
{
    internal const string RocksDb = "rocksdb";

    private static readonly string[] RocksDbCandidates =
        ["librocksdb.so.7.8", "librocksdb.so.8", "librocksdb.so.9", "librocksdb.so.7", "librocksdb.so.6", "librocksdb.so", "librocksdb.dylib", "rocksdb.dll"];

    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, string> Loaded = new();
    private static int _installed;

    /// <summary>The file the logical name resolved to, once loaded.</summary>
    internal static string LoadedName(string name) => Loaded.TryGetValue(name, out var file) ? file : name + " (not loaded)";

    internal static void EnsureResolver()
    {
        if (Interlocked.Exchange(ref _installed, 1) != 0) return;
        NativeLibrary.SetDllImportResolver(typeof(NativeLibraries).Assembly, Resolve);
    }

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? path)
    {
        string[]? candidates = name switch
        {
            RocksDb => RocksDbCandidates,
            _ => null,
        };
        if (candidates is null) return IntPtr.Zero;
        foreach (var candidate in candidates)
            if (NativeLibrary.TryLoad(candidate, assembly, path, out var handle))
            {
                Loaded[name] = candidate;
                return handle;
            }
        throw new DllNotFoundException($"none of {string.Join(", ", candidates)} could be loaded");
    }
}
