using System.Globalization;
using ScottPlot;
using StorageEngine.Peers;
using PhaseGroup = System.Linq.IGrouping<(string Phase, string Tier, int Threads), StorageEngine.Workloads.PhaseResult>;

namespace StorageEngine.Workloads;

/// <summary>
/// PNG charts of one workload's summarised rows, next to report.md: <c>W4.png</c>, each peer's ops/s as a multiple
/// of StorageEngine's (the report's "× ours" column), and <c>W4-ops.png</c>, every engine's ops/s. Both draw one
/// group of horizontal bars per (phase, tier, threads), the unit the report compares within, on a log axis:
/// ratios from 0.05× to 3× and rates from a thousand commits to millions of reads a second share a workload.
/// Rows with a data-to-memory-limit ratio (W7) also get <c>W7-curve.png</c>: ops/s against that ratio, one line per
/// engine and operation, both axes logarithmic.
/// </summary>
internal static class Charts
{
    private const string Ours = "storageengine";
    private const int Width = 1400;
    private const float TickFontSize = 15;
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>
    /// Writes the workload's charts into <paramref name="directory"/> and returns the file names written. Never
    /// throws: a chart is a convenience, so a failure (a missing native library, no font) prints one warning and
    /// the benchmark carries on.
    /// </summary>
    internal static IReadOnlyList<string> Write(string directory, string workload, IEnumerable<PhaseResult> rows)
    {
        var written = new List<string>();
        try
        {
            if (ChartFont.Problem is { } problem)
            {
                Console.Error.WriteLine($"warning: no {workload} charts: {problem}");
                return written;
            }
            var selected = rows.Where(r => r.Workload == workload && r.OpsPerSecond > 0).ToList();
            if (selected.Count == 0) return written;
            var groups = Groups(selected);
            string title = Report.Titles.GetValueOrDefault(workload, workload);

            // A phase only ours runs (pipelined commits) has nothing to compare.
            var compared = groups.Where(g => g.Any(IsComparedPeer)).ToList();
            if (compared.Count > 0)
            {
                string file = workload + ".png";
                RatioChart(title, compared).SavePng(Path.Combine(directory, file), Width, Height(compared, peersOnly: true));
                written.Add(file);
            }
            string opsFile = workload + "-ops.png";
            OpsChart(title, groups).SavePng(Path.Combine(directory, opsFile), Width, Height(groups, peersOnly: false));
            written.Add(opsFile);

            var curve = selected.Where(r => !double.IsNaN(r.DataOverMemoryLimit) && r.DataOverMemoryLimit > 0).ToList();
            if (curve.Count > 0)
            {
                string curveFile = workload + "-curve.png";
                CurveChart(title, curve).SavePng(Path.Combine(directory, curveFile), Width, 900);
                written.Add(curveFile);
            }
        }
        catch (Exception e)
        {
            Console.Error.WriteLine($"warning: no {workload} charts: {e.GetType().Name}: {e.Message}");
        }
        return written;
    }

    /// <summary>
    /// The rows grouped the way <see cref="Report.Summarise"/> pairs them with ours (phase, tier, threads), in the
    /// order the workload ran them.
    /// </summary>
    private static List<PhaseGroup> Groups(List<PhaseResult> rows) =>
        rows.GroupBy(r => (r.Phase, r.Tier, r.Threads)).ToList();

    private static Plot RatioChart(string title, List<PhaseGroup> groups)
    {
        var plot = NewPlot(Wrap(title) + "\neach engine's ops/s over StorageEngine's in the same phase, durability tier and thread count (> 1×: faster than ours)");
        var engines = EnginesOf(groups, includeOurs: false);
        var bars = new List<Bar>();
        double lowest = 0, highest = 0;
        for (int g = 0; g < groups.Count; g++)
        {
            foreach (var row in groups[g])
            {
                if (!IsComparedPeer(row)) continue;
                int slot = engines.IndexOf(row.Engine);
                double log = Math.Log10(row.RatioToStorageEngine);
                lowest = Math.Min(lowest, log);
                highest = Math.Max(highest, log);
                bars.Add(HorizontalBar(Position(groups.Count, g, slot, engines.Count), engines.Count, log, 0, ColorOf(row.Engine),
                    row.RatioToStorageEngine.ToString(row.RatioToStorageEngine < 10 ? "0.00" : "0", Invariant) + "×"));
            }
        }
        AddBars(plot, bars);
        var one = plot.Add.VerticalLine(0, 2, Colors.Black);
        one.LinePattern = LinePattern.Dashed;
        one.LegendText = "StorageEngine (1×)";
        // Room to the right of the longest bar for its label.
        double span = Math.Max(highest - lowest, 0.3);
        double left = lowest - span * 0.08, right = highest + span * 0.12;
        plot.Axes.SetLimitsX(left, right);
        plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericManual(LogTicks(left, right, RatioSteps, v => v.ToString(v < 0.1 ? "0.###" : "0.#", Invariant) + "×"));
        plot.XLabel("× ours (log scale)");
        FinishGroups(plot, groups, engines, unit: false);
        return plot;
    }

    private static Plot OpsChart(string title, List<PhaseGroup> groups)
    {
        var plot = NewPlot(Wrap(title) + "\noperations per second (unit after each phase); compare engines only within a phase's tier and thread count");
        var engines = EnginesOf(groups, includeOurs: true);
        double lowest = Math.Floor(Math.Log10(groups.SelectMany(g => g).Min(r => r.OpsPerSecond)));
        double highest = lowest;
        var bars = new List<Bar>();
        for (int g = 0; g < groups.Count; g++)
        {
            foreach (var row in groups[g])
            {
                double log = Math.Log10(row.OpsPerSecond);
                highest = Math.Max(highest, log);
                bars.Add(HorizontalBar(Position(groups.Count, g, engines.IndexOf(row.Engine), engines.Count), engines.Count, log, lowest,
                    ColorOf(row.Engine), Rate(row.OpsPerSecond)));
            }
        }
        AddBars(plot, bars);
        double span = Math.Max(highest - lowest, 1);
        plot.Axes.SetLimitsX(lowest, highest + span * 0.1);
        plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericManual(LogTicks(lowest, highest + span * 0.1, [1, 2, 5], Rate));
        plot.XLabel("ops/s (log scale)");
        FinishGroups(plot, groups, engines, unit: true);
        return plot;
    }

    private static readonly double[] RatioSteps = [1, 2, 5];

    /// <summary>
    /// Ops/s (log10) against the data's size over the memory limit (log2), one line per engine and operation (the
    /// phase name without its step, <see cref="LargerThanMemorySteps.Operation"/>): the engine's colour, a marker and
    /// dash pattern per operation.
    /// </summary>
    private static Plot CurveChart(string title, List<PhaseResult> rows)
    {
        var plot = NewPlot(Wrap(title) + "\nops/s as the data grows past the memory limit: one line per engine and operation");
        LinePattern[] patterns = [LinePattern.Solid, LinePattern.Dashed, LinePattern.Dotted, LinePattern.DenselyDashed];
        MarkerShape[] markers = [MarkerShape.FilledCircle, MarkerShape.FilledSquare, MarkerShape.FilledTriangleUp, MarkerShape.FilledDiamond];
        var operations = rows.Select(r => LargerThanMemorySteps.Operation(r.Phase)).Distinct().ToList();
        double lowest = double.MaxValue, highest = double.MinValue;
        foreach (var series in rows
            .GroupBy(r => (r.Engine, Operation: LargerThanMemorySteps.Operation(r.Phase), r.Unit, r.Tier))
            .OrderBy(g => EngineIndex(g.Key.Engine)).ThenBy(g => operations.IndexOf(g.Key.Operation)))
        {
            var points = series.OrderBy(r => r.DataOverMemoryLimit).ToList();
            double[] xs = points.Select(r => Math.Log2(r.DataOverMemoryLimit)).ToArray();
            double[] ys = points.Select(r => Math.Log10(r.OpsPerSecond)).ToArray();
            lowest = Math.Min(lowest, ys.Min());
            highest = Math.Max(highest, ys.Max());
            int op = operations.IndexOf(series.Key.Operation);
            var line = plot.Add.Scatter(xs, ys, ColorOf(series.Key.Engine));
            line.LineWidth = 2;
            line.LinePattern = patterns[op % patterns.Length];
            line.MarkerShape = markers[op % markers.Length];
            line.MarkerSize = 9;
            line.LegendText = $"{series.Key.Engine}: {series.Key.Operation} ({series.Key.Unit})";
        }
        var steps = rows.Select(r => r.DataOverMemoryLimit).Distinct().Order().ToList();
        plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericManual(
            steps.Select(x => new Tick(Math.Log2(x), x.ToString("0.##", Invariant) + "x")).ToArray());
        plot.Axes.SetLimitsX(Math.Log2(steps[0]) - 0.25, Math.Log2(steps[^1]) + 0.25);
        lowest = Math.Floor(lowest * 10) / 10;
        highest = Math.Ceiling(highest * 10) / 10;
        plot.Axes.SetLimitsY(lowest - 0.05, highest + 0.05);
        plot.Axes.Left.TickGenerator = new ScottPlot.TickGenerators.NumericManual(LogTicks(lowest, highest, [1, 2, 5], Rate));
        plot.Axes.Left.MajorTickStyle.Length = 4;
        plot.Grid.YAxisStyle.IsVisible = true;
        plot.XLabel("data (keys and values loaded) over the memory limit (log scale)");
        plot.YLabel("ops/s (log scale)");
        plot.Axes.Left.Label.FontSize = TickFontSize;
        plot.Legend.FontSize = 13;
        plot.ShowLegend(Edge.Right);
        return plot;
    }

    /// <summary>A peer's row with a ratio to ours in the same phase, tier and thread count.</summary>
    private static bool IsComparedPeer(PhaseResult row) =>
        row.Engine != Ours && !double.IsNaN(row.RatioToStorageEngine) && row.RatioToStorageEngine > 0;

    private static Plot NewPlot(string title)
    {
        var plot = new Plot();
        plot.Title(title, size: 17);
        plot.Axes.Left.TickLabelStyle.FontSize = TickFontSize;
        plot.Axes.Bottom.TickLabelStyle.FontSize = TickFontSize;
        plot.Axes.Bottom.Label.FontSize = TickFontSize;
        plot.Axes.Left.MajorTickStyle.Length = 0;
        plot.Grid.YAxisStyle.IsVisible = false;
        return plot;
    }

    private static void AddBars(Plot plot, List<Bar> bars)
    {
        var plottable = plot.Add.Bars(bars);
        plottable.Horizontal = true;
        plottable.ValueLabelStyle.FontSize = 12;
    }

    /// <summary>Group labels on the left, top to bottom in run order; a legend of the engines below the chart.</summary>
    private static void FinishGroups(Plot plot, List<PhaseGroup> groups,
        List<string> engines, bool unit)
    {
        var ticks = new List<Tick>();
        for (int g = 0; g < groups.Count; g++)
        {
            var (phase, tier, threads) = groups[g].Key;
            string label = $"{phase}{(unit ? " (" + groups[g].First().Unit + ")" : "")}\n{tier} tier, {threads} thr";
            ticks.Add(new Tick(Position(groups.Count, g, (engines.Count - 1) / 2.0, engines.Count), label));
        }
        plot.Axes.Left.TickGenerator = new ScottPlot.TickGenerators.NumericManual(ticks.ToArray());
        plot.Axes.SetLimitsY(-0.6, groups.Count - 0.4);
        foreach (var engine in engines)
            plot.Legend.ManualItems.Add(new LegendItem { LabelText = engine, FillColor = ColorOf(engine) });
        plot.Legend.FontSize = TickFontSize;
        plot.ShowLegend(Edge.Bottom);
    }

    private static Bar HorizontalBar(double position, int slots, double value, double valueBase, Color color, string label) => new()
    {
        Position = position,
        Value = value,
        ValueBase = valueBase,
        FillColor = color,
        LineWidth = 0,
        Label = label,
        // Bar sizes are in axis units: a share of the group's height, with a gap between neighbours.
        Size = GroupHeight / slots * 0.85,
    };

    private const double GroupHeight = 0.8;

    /// <summary>
    /// Where a bar sits on the vertical axis: group <paramref name="group"/> counted from the top, each group one
    /// unit tall, its engines' bars stacked top to bottom in legend order within <see cref="GroupHeight"/>.
    /// </summary>
    private static double Position(int groups, int group, double slot, int slots)
    {
        double bar = GroupHeight / slots;
        return groups - 1 - group + GroupHeight / 2 - bar * (slot + 0.5);
    }

    /// <summary>Pixels: enough for a readable bar per engine in each group, plus title, axis and legend.</summary>
    private static int Height(List<PhaseGroup> groups, bool peersOnly)
    {
        int engines = EnginesOf(groups, includeOurs: !peersOnly).Count;
        return 260 + groups.Count * Math.Max(56, engines * 22 + 16);
    }

    private static List<string> EnginesOf(List<PhaseGroup> groups, bool includeOurs) =>
        groups.SelectMany(g => g).Select(r => r.Engine).Distinct()
            .Where(e => includeOurs || e != Ours)
            .OrderBy(EngineIndex).ToList();

    private static int EngineIndex(string engine)
    {
        for (int i = 0; i < PeerEngines.All.Count; i++)
            if (PeerEngines.All[i].Name == engine) return i;
        return PeerEngines.All.Count;
    }

    /// <summary>One colour per engine whatever the selection, so an engine looks the same in every chart.</summary>
    private static Color ColorOf(string engine)
    {
        var palette = new ScottPlot.Palettes.Category10();
        int index = EngineIndex(engine);
        return palette.GetColor(index < PeerEngines.All.Count ? index : PeerEngines.All.Count + Math.Abs(engine.GetHashCode() % 5));
    }

    /// <summary>
    /// Ticks at <paramref name="steps"/> times each power of ten inside [lowest, highest] (log10 values); at every
    /// integer multiple where that leaves fewer than three, as on a narrow range.
    /// </summary>
    private static Tick[] LogTicks(double lowest, double highest, double[] steps, Func<double, string> format)
    {
        var ticks = LogTicksAt(lowest, highest, steps, format);
        return ticks.Length >= 3 ? ticks : LogTicksAt(lowest, highest, [1, 2, 3, 4, 5, 6, 7, 8, 9], format);
    }

    private static Tick[] LogTicksAt(double lowest, double highest, double[] steps, Func<double, string> format)
    {
        var ticks = new List<Tick>();
        for (int power = (int)Math.Floor(lowest); power <= (int)Math.Ceiling(highest); power++)
        {
            foreach (double step in steps)
            {
                double value = step * Math.Pow(10, power);
                double log = Math.Log10(value);
                if (log >= lowest - 1e-9 && log <= highest + 1e-9) ticks.Add(new Tick(log, format(value)));
            }
        }
        return ticks.ToArray();
    }

    /// <summary>Breaks a long workload title after a comma or semicolon so that it fits the figure's width.</summary>
    private static string Wrap(string title)
    {
        const int MaxLine = 100;
        var lines = new List<string>();
        string rest = title;
        while (rest.Length > MaxLine)
        {
            int cut = rest.LastIndexOfAny([';', ','], MaxLine - 1);
            if (cut <= 0) cut = rest.LastIndexOf(' ', MaxLine - 1);
            if (cut <= 0) break;
            lines.Add(rest[..(cut + 1)].TrimEnd());
            rest = rest[(cut + 1)..].TrimStart();
        }
        lines.Add(rest);
        return string.Join('\n', lines);
    }

    private static string Rate(double perSecond) => perSecond switch
    {
        >= 1e6 => (perSecond / 1e6).ToString(perSecond >= 1e7 ? "0" : "0.#", Invariant) + "M",
        >= 1e3 => (perSecond / 1e3).ToString(perSecond >= 1e4 ? "0" : "0.#", Invariant) + "k",
        _ => perSecond.ToString("0", Invariant),
    };
}
