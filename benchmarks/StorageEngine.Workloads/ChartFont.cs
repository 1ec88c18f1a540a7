using ScottPlot;

namespace StorageEngine.Workloads;

/// <summary>
/// The font every chart draws its text with (also linked into benchmarks/DocumentStore.Benchmarks).
/// </summary>
internal static class ChartFont
{
    private static readonly Lazy<string?> EnsuredProblem = new(Ensure);

    /// <summary>Why charts cannot have text here, or null when they can; the first call registers the font.</summary>
    public static string? Problem => EnsuredProblem.Value;

    /// <summary>
    /// SkiaSharp's NoDependencies build on Linux has no fontconfig: it finds typefaces only under /usr/share/fonts,
    /// every family name resolves to whichever it loaded first (a serif, here), and where it finds none every label
    /// silently renders empty. So registers a TrueType sans font from the usual places as ScottPlot's default, any
    /// font where no sans is found. Returns why charts cannot have text, or null when they can.
    /// </summary>
    private static string? Ensure()
    {
        string[] sans = ["DejaVuSans.ttf", "LiberationSans-Regular.ttf", "NotoSans-Regular.ttf", "FreeSans.ttf", "Arial.ttf", "arial.ttf"];
        string home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
        string[] roots = ["/usr/share/fonts", "/usr/local/share/fonts", Path.Combine(home, ".fonts"), Path.Combine(home, ".local/share/fonts"), "/System/Library/Fonts", @"C:\Windows\Fonts"];
        var files = roots.Where(Directory.Exists)
            .SelectMany(root => Directory.EnumerateFiles(root, "*.ttf", new EnumerationOptions { RecurseSubdirectories = true, IgnoreInaccessible = true }))
            .ToList();
        string? chosen = sans.Select(name => files.FirstOrDefault(f => Path.GetFileName(f) == name)).FirstOrDefault(f => f is not null);
        if (chosen is null && HasGlyphs(Fonts.Default)) return null;
        chosen ??= files.FirstOrDefault();
        if (chosen is null) return "no TrueType font found (install one, e.g. apt-get install fonts-dejavu-core)";
        const string Name = "ChartSans";
        Fonts.AddFontFile(Name, chosen);
        // Titles are bold: the family's bold face where it sits beside the regular one, else the regular again.
        string bold = Path.Combine(Path.GetDirectoryName(chosen)!, Path.GetFileNameWithoutExtension(chosen).Replace("-Regular", "", StringComparison.Ordinal) + "-Bold.ttf");
        Fonts.AddFontFile(Name, File.Exists(bold) ? bold : chosen, bold: true);
        Fonts.Default = Name;
        return HasGlyphs(Name) ? null : $"the font {chosen} has no glyphs";
    }

    private static bool HasGlyphs(string fontName)
    {
        var typeface = Fonts.GetTypeface(fontName, bold: false, italic: false);
        return typeface.GlyphCount > 0 && typeface.GetGlyph('x') != 0;
    }
}
