using System.Globalization;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace StorageEngine.Tool;

/// <summary>
/// A progress column with the rate in the work's own unit, "12,345 entries/s" (Spectre's TransferSpeedColumn
/// speaks only of bytes), as <paramref name="rate"/> gives it (see <see cref="ProgressBarDisplay.Rate"/>); blank
/// while that is null.
/// </summary>
internal sealed class RateColumn(string unit, Func<double?> rate) : ProgressColumn
{
    /// <inheritdoc />
    protected override bool NoWrap => true;

    /// <inheritdoc />
    public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime) =>
        rate() is { } perSecond
            ? new Text(string.Create(CultureInfo.InvariantCulture, $"{perSecond:N0} {unit}/s"))
            : Text.Empty;
}
