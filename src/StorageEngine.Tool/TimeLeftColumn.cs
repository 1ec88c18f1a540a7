using System.Globalization;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace StorageEngine.Tool;

/// <summary>
/// A progress column with the time left at the rate <paramref name="rate"/> gives (see
/// <see cref="ProgressBarDisplay.Rate"/>), "00:01:23"; "--:--:--" while there is no rate or it is zero.
/// </summary>
internal sealed class TimeLeftColumn(Func<double?> rate) : ProgressColumn
{
    /// <inheritdoc />
    protected override bool NoWrap => true;

    /// <inheritdoc />
    public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime)
    {
        if (rate() is not { } perSecond || perSecond <= 0) return new Text("--:--:--");
        double seconds = Math.Min((task.MaxValue - task.Value) / perSecond, TimeSpan.MaxValue.TotalSeconds / 2);
        var left = TimeSpan.FromSeconds(Math.Max(0, seconds));
        return new Text(string.Create(CultureInfo.InvariantCulture, $"{(int)left.TotalHours:00}:{left.Minutes:00}:{left.Seconds:00}"));
    }
}
