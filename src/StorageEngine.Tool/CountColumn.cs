using System.Globalization;
using Spectre.Console;
using Spectre.Console.Rendering;

namespace StorageEngine.Tool;

/// <summary>A progress column with how many units of the total are done: "2,048/4,096 entries".</summary>
internal sealed class CountColumn(string unit) : ProgressColumn
{
    /// <inheritdoc />
    protected override bool NoWrap => true;

    /// <inheritdoc />
    public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime) =>
        new Text(string.Create(CultureInfo.InvariantCulture, $"{task.Value:N0}/{task.MaxValue:N0} {unit}"));
}
