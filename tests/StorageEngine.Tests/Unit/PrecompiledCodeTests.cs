using System.Reflection;
using System.Runtime.Intrinsics;
using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// What keeps the package's precompiled (ReadyToRun) code in use on machines with AVX-512: crossgen2 compiles for a
/// baseline instruction set, and the runtime sets aside a method's code that assumed 512-bit vectors absent on a CPU
/// that has them. Before these rules the page sealer, the journal's record writer and the whole CRC class were
/// compiled again in every process's first commit (docs/tuning.md, Startup).
/// </summary>
public sealed class PrecompiledCodeTests
{
    private const BindingFlags Everything = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance | BindingFlags.DeclaredOnly;

    private static IEnumerable<Type> EngineTypes => typeof(Crc32C).Assembly.GetTypes();

    [Fact]
    public void The_instruction_set_dispatchers_are_never_inlined_into_their_callers()
    {
        foreach (var method in new[] { typeof(Crc32C).GetMethod(nameof(Crc32C.Append))!, typeof(DifferingWords).GetMethod(nameof(DifferingWords.Mark))! })
            Assert.True(method.MethodImplementationFlags.HasFlag(MethodImplAttributes.NoInlining), $"{method.DeclaringType!.Name}.{method.Name} may be inlined");
    }

    [Fact]
    public void Only_the_vector_kernels_are_kept_out_of_the_precompiled_image()
    {
        // AggressiveOptimization methods are never precompiled: each costs every process a full compile.
        var kept = EngineTypes
            .SelectMany(type => type.GetMethods(Everything).Cast<MethodBase>().Concat(type.GetConstructors(Everything)))
            .Where(method => method.MethodImplementationFlags.HasFlag(MethodImplAttributes.AggressiveOptimization))
            .Select(method => $"{method.DeclaringType!.Name}.{method.Name}")
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.Equal(["Crc32CWide.Append", "DifferingWords.MarkVector256", "DifferingWords.MarkVector512"], kept);
    }

    [Fact]
    public void Only_Crc32CWide_holds_vector_constants()
    {
        // A static field of a vector type makes the type's static constructor, and with it any code that touches
        // the type first, unfit for precompiling.
        var holders = EngineTypes
            .SelectMany(type => type.GetFields(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly))
            .Where(field => field.FieldType.IsGenericType && field.FieldType.Namespace == typeof(Vector128).Namespace)
            .Select(field => field.DeclaringType!.Name)
            .Distinct()
            .ToArray();
        Assert.Equal([nameof(Crc32CWide)], holders);
    }
}
