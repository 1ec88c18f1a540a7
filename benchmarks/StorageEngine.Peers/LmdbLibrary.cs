using System.Reflection;
using System.Runtime.InteropServices;
using LightningDB;

namespace StorageEngine.Peers;

/// <summary>
/// Finds the liblmdb that LightningDB calls. LightningDB ships its own build, but the linux-x64 one of 0.23.1
/// needs glibc 2.38 (Debian 12 has 2.36); where it does not load, the system's LMDB (Debian's liblmdb0, LMDB
/// 0.9) is used instead: LightningDB's calls for the operations benchmarked here are LMDB 0.9's API.
/// </summary>
internal static class LmdbLibrary
{
    private const string LogicalName = "lmdb";
    private static readonly string[] SystemCandidates = ["liblmdb.so.0", "liblmdb.so", "liblmdb.dylib"];
    private static readonly Lazy<(IntPtr Handle, string Description, string? Failure)> Loaded = new(Load);
    private static int _installed;

    /// <summary>Null when an LMDB library loads here, else why none does.</summary>
    internal static string? Probe()
    {
        EnsureResolver();
        return Loaded.Value.Failure;
    }

    /// <summary>Which library was loaded, and why the packaged one was not where it was not.</summary>
    internal static string Description => Loaded.Value.Description;

    private static void EnsureResolver()
    {
        if (Interlocked.Exchange(ref _installed, 1) != 0) return;
        NativeLibrary.SetDllImportResolver(typeof(LightningEnvironment).Assembly, Resolve);
    }

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? path) =>
        name == LogicalName ? Loaded.Value.Handle : IntPtr.Zero;

    private static (IntPtr, string, string?) Load()
    {
        var assembly = typeof(LightningEnvironment).Assembly;
        string packaged;
        try
        {
            return (NativeLibrary.Load(LogicalName, assembly, null), "liblmdb shipped with LightningDB", null);
        }
        catch (DllNotFoundException e)
        {
            // The loader's message lists every path it tried; the reason is the line that is not "No such file".
            packaged = e.Message.Split('\n').FirstOrDefault(l => l.Contains("GLIBC", StringComparison.Ordinal) || l.Contains("version", StringComparison.Ordinal))?.Trim()
                ?? "not loadable";
        }
        foreach (var candidate in SystemCandidates)
            if (NativeLibrary.TryLoad(candidate, out var handle))
                return (handle, $"system {candidate} (LightningDB's own: {packaged})", null);
        return (IntPtr.Zero, "none",
            $"LightningDB's liblmdb does not load here ({packaged}) and no system LMDB was found (apt-get install -y liblmdb0)");
    }
}
