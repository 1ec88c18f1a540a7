using System.Globalization;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace StorageEngine.Tool;

/// <summary>
/// A progress column with the rate in the work's own unit, "12,345 entries/s" (Spectre's TransferSpeedColumn
/// speaks only of bytes); blank until Spectre has two samples to measure it from.
/// </summary>
internal sealed class RateColumn(string unit) : ProgressColumn
{
    /// <inheritdoc />
    protected override bool NoWrap => true;

    /// <inheritdoc />
    public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime) =>
        task.Speed is { } speed
            ? new Text(string.Create(CultureInfo.InvariantCulture, $"{speed:N0} {unit}/s"))
            : Text.Empty;
}
