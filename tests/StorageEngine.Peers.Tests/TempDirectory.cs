namespace StorageEngine.Peers.Tests;

/// <summary>A fresh, empty directory, deleted with everything in it on dispose.</summary>
public sealed class TempDirectory : IDisposable
{
    /// <summary>Creates the directory.</summary>
    public TempDirectory() => Directory.CreateDirectory(Path);

    /// <summary>Its full path.</summary>
    public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "peers-tests-" + Guid.NewGuid().ToString("N"));

    /// <inheritdoc />
    public void Dispose()
    {
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // A leftover temp directory is not worth failing a test for.
        }
    }
}
