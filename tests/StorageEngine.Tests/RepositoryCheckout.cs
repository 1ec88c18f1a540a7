namespace StorageEngine.Tests;

/// <summary>
/// The checkout the tests were built from, for tests that read the repository's own files (docs, sources,
/// READMEs). Found by looking above the test assembly (bin/, or a published copy under the repository, as CI's
/// ARM64 and Windows legs run it), else above the working directory; never from compile-time source paths, which
/// a CI build maps to "/_/" (deterministic builds).
/// </summary>
internal static class RepositoryCheckout
{
    /// <summary>The directory that holds StorageEngine.sln and docs/.</summary>
    public static string Root { get; } = Find();

    private static string Find()
    {
        foreach (string start in new[] { AppContext.BaseDirectory, Environment.CurrentDirectory })
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
                if (File.Exists(Path.Combine(dir.FullName, "StorageEngine.sln")) && Directory.Exists(Path.Combine(dir.FullName, "docs"))) return dir.FullName;
        throw new InvalidOperationException($"No repository root (with StorageEngine.sln and docs/) above {AppContext.BaseDirectory} or {Environment.CurrentDirectory}.");
    }
}
