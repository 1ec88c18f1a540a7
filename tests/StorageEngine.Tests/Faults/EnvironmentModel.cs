namespace StorageEngine.Tests.Faults;

/// <summary>
/// What an environment should hold: tree name → key → value, with the integer keys the fault workloads use.
/// Immutable in use: <see cref="With"/> returns a changed copy, so a commit in doubt keeps both outcomes.
/// </summary>
internal sealed class EnvironmentModel
{
    private readonly SortedDictionary<string, SortedDictionary<long, byte[]>> _trees;

    public EnvironmentModel() => _trees = new(StringComparer.Ordinal);

    private EnvironmentModel(SortedDictionary<string, SortedDictionary<long, byte[]>> trees) => _trees = trees;

    /// <summary>Commits applied to it (a label for messages).</summary>
    public int Commits { get; private init; }

    /// <summary>A copy with <paramref name="change"/> applied to its trees, counted as one more commit.</summary>
    public EnvironmentModel With(Action<SortedDictionary<string, SortedDictionary<long, byte[]>>> change)
    {
        var copy = new SortedDictionary<string, SortedDictionary<long, byte[]>>(StringComparer.Ordinal);
        foreach (var (name, entries) in _trees) copy.Add(name, new SortedDictionary<long, byte[]>(entries));
        change(copy);
        return new EnvironmentModel(copy) { Commits = Commits + 1 };
    }

    /// <summary>Null when the environment's newest snapshot holds exactly this; otherwise the first difference.</summary>
    public string? Difference(StorageEnvironment environment)
    {
        using var transaction = environment.BeginRead();
        return Difference(transaction);
    }

    /// <summary>Null when the transaction sees exactly this; otherwise the first difference.</summary>
    public string? Difference(Transaction transaction)
    {
        var names = transaction.GetTreeNames();
        if (!names.SequenceEqual(_trees.Keys))
            return $"trees [{string.Join(", ", names)}], expected [{string.Join(", ", _trees.Keys)}]";
        foreach (var (name, expected) in _trees)
        {
            var tree = transaction.OpenTree(name);
            if (tree.Count != expected.Count) return $"tree '{name}' has {tree.Count} entries, expected {expected.Count}";
            using var cursor = tree.CreateCursor();
            bool on = cursor.First();
            foreach (var (key, value) in expected)
            {
                if (!on) return $"tree '{name}' ends before key {key}";
                if (cursor.Int64Key != key) return $"tree '{name}' has key {cursor.Int64Key} where {key} belongs";
                if (!cursor.Value.SequenceEqual(value)) return $"tree '{name}' key {key}: {cursor.Value.Length} bytes, expected {value.Length}";
                on = cursor.Next();
            }
        }
        return null;
    }

    public override string ToString() => $"model after {Commits} commits";
}
