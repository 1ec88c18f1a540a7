namespace StorageEngine.Tests.Unit;

/// <summary>A fresh, uniquely named directory under the system temp directory, deleted on dispose.</summary>
internal sealed class TempDirectory : IDisposable
{
    public TempDirectory(string purpose = "unit")
    {
        Path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"se-{purpose}-{Guid.NewGuid():N}");
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
        catch (UnauthorizedAccessException)
        {
        }
    }
}
