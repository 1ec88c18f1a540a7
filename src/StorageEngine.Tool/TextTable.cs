namespace StorageEngine.Tool;

/// <summary>Left-aligned first column, right-aligned numbers, two spaces between columns.</summary>
internal sealed class TextTable(params string[] headers)
{
    private readonly List<string[]> _rows = [headers];

    public void Add(params string[] cells) => _rows.Add(cells);

    public void WriteTo(TextWriter writer, string indent = "  ")
    {
        int columns = _rows[0].Length;
        var widths = Enumerable.Range(0, columns).Select(c => _rows.Max(r => r[c].Length)).ToArray();
        foreach (var row in _rows)
        {
            var cells = row.Select((cell, c) => c == 0 ? cell.PadRight(widths[c]) : cell.PadLeft(widths[c]));
            writer.WriteLine(indent + string.Join("  ", cells).TrimEnd());
        }
    }
}
