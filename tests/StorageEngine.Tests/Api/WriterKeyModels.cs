using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Api;

/// <summary>
/// The model of concurrent writers that each own their keys (writer w: keys w, w + writers, ...), so that each one's
/// own model decides them: random batches of puts and deletes, mirrored into the writer's model, and what a tree
/// must hold once every batch is applied.
/// </summary>
internal sealed class WriterKeyModels(int writers, int keysPerWriter, int maxOperations)
{
    private readonly SortedDictionary<byte[], byte[]>[] _models =
        Enumerable.Range(0, writers).Select(_ => new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance)).ToArray();

    /// <summary>Adds 1 to <c>maxOperations - 1</c> random puts and deletes of <paramref name="writer"/>'s keys to <paramref name="batch"/>.</summary>
    public void AddRandomOperations(WriteBatch batch, int writer, Random random)
    {
        int operations = random.Next(1, maxOperations);
        for (int j = 0; j < operations; j++)
        {
            var key = TestData.Key(writer + writers * random.Next(0, keysPerWriter));
            if (random.Next(3) == 0)
            {
                batch.Delete(key);
                _models[writer].Remove(key);
            }
            else
            {
                var value = TestData.Value(random.Next(), random.Next(0, 200));
                batch.Put(key, value);
                _models[writer][key] = value;
            }
        }
    }

    /// <summary>Asserts that <paramref name="tree"/> holds exactly what every writer's batches left.</summary>
    public void AssertHeldBy(Tree tree)
    {
        var expected = new SortedDictionary<byte[], byte[]>(ByteArrayComparer.Instance);
        foreach (var model in _models)
            foreach (var (key, value) in model) expected[key] = value;
        var scanned = TestData.Scan(tree);
        TestData.AssertSameBytes(expected.Keys, scanned.Select(e => e.Key));
        TestData.AssertSameBytes(expected.Values, scanned.Select(e => e.Value));
    }
}
