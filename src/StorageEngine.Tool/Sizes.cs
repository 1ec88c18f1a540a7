using System.Globalization;

namespace StorageEngine.Tool;

/// <summary>Human-readable numbers.</summary>
internal static class Sizes
{
    public static string Bytes(long bytes)
    {
        string[] units = ["B", "KiB", "MiB", "GiB", "TiB"];
        double value = bytes;
        int unit = 0;
        while (Math.Abs(value) >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? string.Create(CultureInfo.InvariantCulture, $"{bytes} B") : string.Create(CultureInfo.InvariantCulture, $"{value:0.0} {units[unit]}");
    }

    public static string Count(long count) => count.ToString("N0", CultureInfo.InvariantCulture);

    public static string Percent(double fraction) => (100 * fraction).ToString("0.0", CultureInfo.InvariantCulture) + "%";
}
