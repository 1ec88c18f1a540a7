using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace StorageEngine.Benchmarks.Peers;

/// <summary>
/// The ratio of a case's median to the median of the StorageEngine case with the same benchmark method, job
/// and other parameters, in the same run. BenchmarkDotNet's own Ratio column needs a baseline method or job;
/// it cannot take one value of a <c>[ParamsSource]</c> parameter as the baseline, which is how the engines
/// are compared here, so this column does it. Above 1: the engine is slower than StorageEngine.
/// </summary>
public sealed class RatioToStorageEngineColumn : IColumn
{
    /// <summary>The parameter that names the engine in every peer benchmark.</summary>
    public const string EngineParameter = "Engine";

    /// <inheritdoc />
    public string Id => nameof(RatioToStorageEngineColumn);

    /// <inheritdoc />
    public string ColumnName => "Ratio";

    /// <inheritdoc />
    public bool AlwaysShow => true;

    /// <inheritdoc />
    public ColumnCategory Category => ColumnCategory.Baseline;

    /// <inheritdoc />
    public int PriorityInCategory => 0;

    /// <inheritdoc />
    public bool IsNumeric => true;

    /// <inheritdoc />
    public UnitType UnitType => UnitType.Dimensionless;

    /// <inheritdoc />
    public string Legend => $"Median of the case / median of the {PeerEngineSource.StorageEngineName} case with the same method and parameters, same run (> 1: slower than StorageEngine)";

    /// <inheritdoc />
    public bool IsAvailable(Summary summary) => summary.BenchmarksCases.Any(c => EngineOf(c) is not null);

    /// <inheritdoc />
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    /// <inheritdoc />
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, summary.Style);

    /// <inheritdoc />
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        var baseline = BaselineOf(summary, benchmarkCase);
        double? median = summary[benchmarkCase]?.ResultStatistics?.Median;
        double? baselineMedian = baseline is null ? null : summary[baseline]?.ResultStatistics?.Median;
        if (median is null || baselineMedian is null || baselineMedian <= 0) return "?";
        return (median.Value / baselineMedian.Value).ToString("0.00", System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>The StorageEngine case that <paramref name="benchmarkCase"/> is compared with, if the run has it.</summary>
    public static BenchmarkCase? BaselineOf(Summary summary, BenchmarkCase benchmarkCase)
    {
        if (EngineOf(benchmarkCase) is null) return null;
        return summary.BenchmarksCases.FirstOrDefault(candidate =>
            string.Equals(EngineOf(candidate), PeerEngineSource.StorageEngineName, StringComparison.OrdinalIgnoreCase)
            && candidate.Descriptor.Equals(benchmarkCase.Descriptor)
            && candidate.Job.DisplayInfo == benchmarkCase.Job.DisplayInfo
            && SameOtherParameters(candidate, benchmarkCase));
    }

    /// <summary>The engine a case runs, or null when it has no engine parameter.</summary>
    public static string? EngineOf(BenchmarkCase benchmarkCase) =>
        benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == EngineParameter)?.Value as string;

    private static bool SameOtherParameters(BenchmarkCase a, BenchmarkCase b)
    {
        foreach (var parameter in a.Parameters.Items)
        {
            if (parameter.Name == EngineParameter) continue;
            var other = b.Parameters.Items.FirstOrDefault(p => p.Name == parameter.Name);
            if (other is null || !Equals(parameter.Value, other.Value)) return false;
        }
        return true;
    }

    /// <inheritdoc />
    public override string ToString() => ColumnName;
}
