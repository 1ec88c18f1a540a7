namespace StorageEngine.Tests.Batch;

/// <summary>
/// Two batch lookups of the same keys agree: the same count, the same found count, and key by key the same
/// verdict and value. Linked into StorageEngine.Gpu.Tests, which compares the device path with the CPU one.
/// </summary>
internal static class BatchResultsAssert
{
    public static void Same(BatchLookupResults expected, BatchLookupResults actual)
    {
        Assert.Equal(expected.Count, actual.Count);
        Assert.Equal(expected.FoundCount, actual.FoundCount);
        for (int i = 0; i < expected.Count; i++)
        {
            Assert.Equal(expected.TryGetValue(i, out var e), actual.TryGetValue(i, out var a));
            Assert.True(e.SequenceEqual(a), $"value {i}");
        }
    }
}
