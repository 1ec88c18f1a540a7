using StorageEngine.Platform;

namespace StorageEngine.Tests.Faults;

/// <summary>
/// A short, deterministic workload for fault sweeps: <see cref="Commits"/> commits of mixed sizes into integer-key
/// trees (small and overflow values, deletes, a value of ~400 KB that grows the data file and moves the journal to
/// its next file, a tree created and later deleted), with a checkpoint along the way. Commit k's changes depend
/// only on k, so the model can follow whichever commits actually happened.
/// </summary>
internal sealed class FaultWorkload
{
    public const string MainTree = "main";
    public const string BlobTree = "blobs";
    public const string TemporaryTree = "temp";

    public FaultWorkload(int commits)
    {
        Commits = commits;
        BigValueAt = Math.Max(2, commits * 2 / 5);
        TemporaryTreeCreatedAt = Math.Max(1, commits / 4);
        TemporaryTreeDeletedAt = Math.Max(TemporaryTreeCreatedAt + 1, commits * 3 / 5);
        CheckpointAfter = Math.Max(1, commits / 2);
    }

    public int Commits { get; }

    public int BigValueAt { get; }

    public int TemporaryTreeCreatedAt { get; }

    public int TemporaryTreeDeletedAt { get; }

    /// <summary>The checkpoint (and spare journal file) comes after this commit.</summary>
    public int CheckpointAfter { get; }

    /// <summary>Options that checkpoint only when asked, with 1 MiB journal files so the workload fills one.</summary>
    /// <remarks><paramref name="valuesInPlaceFrom"/>: see <c>NumberedTransactions.Options</c>.</remarks>
    public static StorageEnvironmentOptions Options(IFileSystem fileSystem, DurabilityMode durability = DurabilityMode.Safe, long? valuesInPlaceFrom = null) => new()
    {
        Path = "/db",
        Durability = durability,
        FileSystem = fileSystem,
        JournalFileSize = 1 << 20,
        CheckpointThreshold = long.MaxValue,
        CheckpointInterval = TimeSpan.FromHours(1),
        ValuesInPlaceFrom = valuesInPlaceFrom,
    };

    /// <summary>Makes commit <paramref name="k"/>'s changes in <paramref name="transaction"/> (the caller commits).</summary>
    public void Apply(WriteTransaction transaction, int k)
    {
        foreach (var change in Changes(k))
        {
            switch (change.Kind)
            {
                case ChangeKind.Put:
                    transaction.CreateTree(change.Tree, TreeOptions.Int64Keys).Put(change.Key, Value(k, change.Key, change.Length));
                    break;
                case ChangeKind.Delete:
                    if (transaction.TryOpenTree(change.Tree, out var tree)) tree.Delete(change.Key);
                    break;
                case ChangeKind.CreateTree:
                    transaction.CreateTree(change.Tree, TreeOptions.Int64Keys);
                    break;
                case ChangeKind.DeleteTree:
                    transaction.DeleteTree(change.Tree);
                    break;
            }
        }
    }

    /// <summary>The model after commit <paramref name="k"/> on top of <paramref name="model"/>.</summary>
    public EnvironmentModel Apply(EnvironmentModel model, int k) => model.With(trees =>
    {
        foreach (var change in Changes(k))
        {
            switch (change.Kind)
            {
                case ChangeKind.Put:
                    if (!trees.TryGetValue(change.Tree, out var entries)) trees.Add(change.Tree, entries = new());
                    entries[change.Key] = Value(k, change.Key, change.Length);
                    break;
                case ChangeKind.Delete:
                    if (trees.TryGetValue(change.Tree, out var existing)) existing.Remove(change.Key);
                    break;
                case ChangeKind.CreateTree:
                    trees.TryAdd(change.Tree, new());
                    break;
                case ChangeKind.DeleteTree:
                    trees.Remove(change.Tree);
                    break;
            }
        }
    });

    private IEnumerable<Change> Changes(int k)
    {
        yield return new Change(ChangeKind.Put, MainTree, k * 7 % 61, k * 37 % 300);
        yield return new Change(ChangeKind.Put, MainTree, 1000 + k, 24);
        if (k % 3 == 0) yield return new Change(ChangeKind.Delete, MainTree, k * 13 % 61, 0);
        if (k % 7 == 0) yield return new Change(ChangeKind.Put, BlobTree, k, 6000 + k);
        // Over a megabyte: its durable journal write extends a file rather than fill preallocated space.
        if (k == BigValueAt) yield return new Change(ChangeKind.Put, BlobTree, 0, 1_200_000);
        if (k == TemporaryTreeDeletedAt + 2) yield return new Change(ChangeKind.Delete, BlobTree, 0, 0);
        if (k == TemporaryTreeCreatedAt)
        {
            yield return new Change(ChangeKind.CreateTree, TemporaryTree, 0, 0);
            for (int key = 1; key <= 60; key++) yield return new Change(ChangeKind.Put, TemporaryTree, key, 40);
        }
        if (k == TemporaryTreeDeletedAt) yield return new Change(ChangeKind.DeleteTree, TemporaryTree, 0, 0);
    }

    private static byte[] Value(int k, long key, int length)
    {
        var value = new byte[length];
        for (int i = 0; i < length; i++) value[i] = (byte)(k * 131 + key * 17 + i * 7 + (i >> 9));
        return value;
    }

    private enum ChangeKind
    {
        Put,
        Delete,
        CreateTree,
        DeleteTree,
    }

    private readonly record struct Change(ChangeKind Kind, string Tree, long Key, int Length);
}
