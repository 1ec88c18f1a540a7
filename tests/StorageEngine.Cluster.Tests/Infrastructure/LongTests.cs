namespace StorageEngine.Cluster.Tests.Infrastructure;

/// <summary>STORAGEENGINE_LONG_TESTS=1 runs more seeds for longer; the default run stays short.</summary>
internal static class LongTests
{
    public static bool Enabled => Environment.GetEnvironmentVariable("STORAGEENGINE_LONG_TESTS") == "1";
}
