using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Loader;

namespace StorageEngine.Gpu;

/// <summary>
/// ILGPU loads the CUDA driver API by the library name <c>cuda</c>, which on Linux probes <c>libcuda.so</c>: a
/// file only the driver's development package installs. Machines with just the driver have <c>libcuda.so.1</c>;
/// this resolver maps the name to it when the default probing fails.
/// </summary>
public static class CudaLibraryResolver
{
    private static int _registered;

    /// <summary>The driver library names tried, in order, for ILGPU's <c>cuda</c>.</summary>
    public static IReadOnlyList<string> Candidates { get; } = ["libcuda.so.1", "libcuda.so"];

    /// <summary>Installs the resolver once per process (later calls do nothing).</summary>
    public static void Register()
    {
        if (Interlocked.Exchange(ref _registered, 1) != 0) return;
        AssemblyLoadContext.Default.ResolvingUnmanagedDll += Resolve;
    }

    /// <summary>A handle to the driver for the name <c>cuda</c> (or <c>nvcuda</c>), else zero so that probing goes on.</summary>
    internal static IntPtr Resolve(Assembly assembly, string name)
    {
        if (name is not ("cuda" or "nvcuda" or "libcuda")) return IntPtr.Zero;
        foreach (string candidate in Candidates)
            if (NativeLibrary.TryLoad(candidate, out var handle)) return handle;
        return IntPtr.Zero;
    }
}
