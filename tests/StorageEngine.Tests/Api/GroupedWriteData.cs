using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>What the grouped-write tests start from: an environment with tree "t", and one-put batches.</summary>
internal static class GroupedWriteData
{
    /// <summary>An environment (in memory unless <paramref name="options"/> are given) with an empty tree "t".</summary>
    public static StorageEnvironment WithTree(StorageEnvironmentOptions? options = null)
    {
        var environment = options is null ? StorageEnvironment.CreateInMemory() : StorageEnvironment.Open(options);
        using var transaction = environment.BeginWrite();
        transaction.CreateTree("t");
        transaction.Commit();
        return environment;
    }

    /// <summary>A batch that puts key <paramref name="key"/> with a value of <paramref name="valueLength"/> bytes.</summary>
    public static WriteBatch PutOf(int key, int valueLength = 20)
    {
        var batch = new WriteBatch();
        batch.Put(TestData.Key(key), TestData.Value(key, valueLength));
        return batch;
    }
}
