using System.Globalization;
using ScottPlot;
using StorageEngine.Workloads;

namespace DocumentStore.Benchmarks;

/// <summary>
/// <c>documents.png</c>: one horizontal bar per phase, StorageEngine's rate over LiteDB's (for file sizes, LiteDB's
/// size over ours, so that right of 1× is better for us everywhere), on a log axis with the 2× target for rates
/// marked; a bar is green where its target (2× for rates, 1× for sizes) is met. Drawn like the workload runner's charts (same font set-up, <see cref="ChartFont"/>).
/// </summary>
internal static class RatioChart
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>Writes the chart; never throws (a chart is a convenience): a failure prints one warning and returns null.</summary>
    public static string? Write(string path, string title, IReadOnlyList<(string Phase, double Ratio, double Target)> rows)
    {
        try
        {
            if (ChartFont.Problem is { } problem)
            {
                Console.Error.WriteLine($"warning: no chart: {problem}");
                return null;
            }
            var plot = new Plot();
            plot.Title(title, size: 17);
            var bars = new List<Bar>();
            double lowest = 0, highest = Math.Log10(2);
            for (int i = 0; i < rows.Count; i++)
            {
                double log = Math.Log10(rows[i].Ratio);
                lowest = Math.Min(lowest, log);
                highest = Math.Max(highest, log);
                bars.Add(new Bar
                {
                    Position = rows.Count - 1 - i,
                    Value = log,
                    ValueBase = 0,
                    FillColor = rows[i].Ratio >= rows[i].Target ? Colors.SeaGreen : rows[i].Ratio >= 1 ? Colors.Orange : Colors.IndianRed,
                    LineWidth = 0,
                    Size = 0.7,
                    Label = rows[i].Ratio.ToString(rows[i].Ratio < 10 ? "0.00" : "0.0", Invariant) + "×",
                });
            }
            var plottable = plot.Add.Bars(bars);
            plottable.Horizontal = true;
            plottable.ValueLabelStyle.FontSize = 13;
            var one = plot.Add.VerticalLine(0, 2, Colors.Black);
            one.LinePattern = LinePattern.Dashed;
            one.LegendText = "LiteDB (1×)";
            var target = plot.Add.VerticalLine(Math.Log10(2), 2, Colors.SeaGreen);
            target.LinePattern = LinePattern.Dotted;
            target.LegendText = "target for rates (2×; for file sizes 1×); green: target met";
            double span = Math.Max(highest - lowest, 0.3);
            double left = lowest - span * 0.06, right = highest + span * 0.14;
            plot.Axes.SetLimitsX(left, right);
            plot.Axes.SetLimitsY(-0.6, rows.Count - 0.4);
            plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericManual(Ticks(left, right));
            plot.Axes.Left.TickGenerator = new ScottPlot.TickGenerators.NumericManual(
                rows.Select((r, i) => new Tick(rows.Count - 1 - i, r.Phase)).ToArray());
            plot.Axes.Left.TickLabelStyle.FontSize = 14;
            plot.Axes.Bottom.TickLabelStyle.FontSize = 14;
            plot.Axes.Left.MajorTickStyle.Length = 0;
            plot.Grid.YAxisStyle.IsVisible = false;
            plot.XLabel("StorageEngine over LiteDB, log scale (rates: ours / theirs; file sizes: theirs / ours)");
            plot.Axes.Bottom.Label.FontSize = 14;
            plot.Legend.FontSize = 14;
            plot.ShowLegend(Edge.Bottom);
            plot.SavePng(path, 1400, 220 + rows.Count * 48);
            return path;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine($"warning: no chart: {e.GetType().Name}: {e.Message}");
            return null;
        }
    }

    private static Tick[] Ticks(double left, double right)
    {
        double[] steps = [0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500];
        return steps.Where(v => Math.Log10(v) >= left && Math.Log10(v) <= right)
            .Select(v => new Tick(Math.Log10(v), v.ToString("0.##", Invariant) + "×")).ToArray();
    }
}
