namespace StorageEngine.Peers.Tests;

/// <summary>A fact that runs only on Windows and is reported skipped, with the reason, everywhere else.</summary>
public sealed class WindowsFactAttribute : FactAttribute
{
    /// <summary>Sets <see cref="FactAttribute.Skip"/> off Windows.</summary>
    public WindowsFactAttribute()
    {
        if (!OperatingSystem.IsWindows()) Skip = "needs Windows (esent.dll exists only there)";
    }
}
