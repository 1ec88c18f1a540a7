using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// Turns whatever job runs the class (the default one, or <c>--job short</c>) into a cold-start job:
/// <see cref="RunStrategy.ColdStart"/> (no pilot, no overhead, one invocation per iteration, so each
/// iteration is one open with its own <c>[IterationSetup]</c>), no warm-up, and
/// <see cref="IterationCount"/> measured iterations. It overrides the counts of <c>--job</c>: the short job's
/// 3 iterations are too few for a median of something that runs once per iteration.
/// </summary>
[AttributeUsage(AttributeTargets.Class)]
public sealed class ColdStartOpensAttribute : JobMutatorConfigBaseAttribute
{
    /// <summary>Measured opens per case.</summary>
    public const int IterationCount = 10;

    /// <summary>Creates the mutator.</summary>
    public ColdStartOpensAttribute()
        : base(new Job().WithStrategy(RunStrategy.ColdStart).WithWarmupCount(0).WithIterationCount(IterationCount))
    {
    }
}
