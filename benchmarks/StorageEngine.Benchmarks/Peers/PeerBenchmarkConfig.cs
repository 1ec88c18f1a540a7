using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// What every peer benchmark adds to the job chosen on the command line: managed allocations per operation
/// (native engines' own allocations are not seen), the median and the ratio of medians to StorageEngine, the
/// categories, and the summary ordered with StorageEngine first.
/// </summary>
public sealed class PeerBenchmarkConfig : ManualConfig
{
    /// <summary>Creates the configuration.</summary>
    public PeerBenchmarkConfig()
    {
        AddDiagnoser(MemoryDiagnoser.Default);
        AddColumn(StatisticColumn.Median, new RatioToStorageEngineColumn(), CategoriesColumn.Default);
        Orderer = new StorageEngineFirstOrderer();
    }
}
