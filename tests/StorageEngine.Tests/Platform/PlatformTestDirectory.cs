namespace StorageEngine.Tests.Platform;

/// <summary>A fresh directory under the system temp directory, deleted on dispose.</summary>
internal sealed class PlatformTestDirectory : IDisposable
{
    public PlatformTestDirectory()
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "se-platform-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Path);
    }

    public string Path { get; }

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // Best effort: a leftover temp directory must not fail the test.
        }
    }
}
