namespace StorageEngine.Tests.Platform;

/// <summary>
/// A fact that runs only on macOS and is reported skipped, with the reason, everywhere else. The GitHub
/// workflow (.github/workflows/ci.yml) runs it on its macOS machines.
/// </summary>
public sealed class MacOSFactAttribute : FactAttribute
{
    public MacOSFactAttribute()
    {
        if (!OperatingSystem.IsMacOS())
        {
            Skip = "macOS only: it checks the F_FULLFSYNC syncs of macOS; the GitHub workflow runs it on macOS.";
        }
    }
}
