namespace StorageEngine.Benchmarks;

/// <summary>The integer-key tree of the batch benchmarks: keys 0, 2, 4, ... loaded in order, on disk.</summary>
public static class BatchData
{
    public const string TreeName = "ints";

    /// <summary>Creates a tree of <paramref name="keys"/> even keys with values of <paramref name="valueSize"/> bytes and opens its environment again.</summary>
    public static (string Directory, StorageEnvironment Environment) OpenIntegerTree(string name, long keys, int valueSize)
    {
        string directory = BenchmarkData.NewDirectory(name);
        var options = new StorageEnvironmentOptions { Path = directory };
        using (var environment = StorageEnvironment.Open(options))
        {
            Span<byte> value = stackalloc byte[valueSize];
            for (long first = 0; first < keys; first += 100_000)
            {
                using var tx = environment.BeginWrite();
                var tree = tx.CreateTree(TreeName, TreeOptions.Int64Keys);
                for (long item = first; item < Math.Min(keys, first + 100_000); item++)
                {
                    BenchmarkData.WriteValue(item, value);
                    value[0] |= 1;
                    tree.Put(2 * item, value);
                }
                tx.Commit();
            }
        }
        var reopened = StorageEnvironment.Open(options);
        return (directory, reopened);
    }
}
