using System.Collections.Immutable;
using BenchmarkDotNet.Order;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// Orders a peer summary by method (as declared), then the other parameters, then engine with StorageEngine
/// first, so each engine's row sits under the StorageEngine row it is compared with.
/// </summary>
public sealed class StorageEngineFirstOrderer : DefaultOrderer
{
    /// <inheritdoc />
    protected override IEnumerable<BenchmarkCase> GetSummaryOrderForGroup(ImmutableArray<BenchmarkCase> benchmarksCase, Summary summary) =>
        benchmarksCase
            .OrderBy(c => c.Descriptor.MethodIndex)
            .ThenBy(c => OtherParameters(c), StringComparer.Ordinal)
            .ThenBy(c => PeerEngineSource.OrderOf(RatioToStorageEngineColumn.EngineOf(c) ?? ""));

    // Numbers are padded so that 100 sorts before 1000.
    private static string OtherParameters(BenchmarkCase benchmarkCase) => string.Join("|",
        benchmarkCase.Parameters.Items
            .Where(p => p.Name != RatioToStorageEngineColumn.EngineParameter)
            .Select(p => p.Value is int or long ? Convert.ToInt64(p.Value).ToString("D19") : p.Value?.ToString() ?? ""));
}
