namespace StorageEngine.Tool;

/// <summary>
/// One dump of some trees from one read transaction: reads each with a cursor, or with
/// <see cref="TreeSalvage.Salvage"/> (skipping damaged pages) when salvaging, and counts what it wrote.
/// </summary>
internal sealed class DumpRun
{
    private readonly ReadTransaction _tx;
    private readonly string[] _trees;
    private readonly bool _salvage;
    private readonly Dictionary<string, Tree?> _opened = new(StringComparer.Ordinal);

    public DumpRun(ReadTransaction tx, string[] trees, bool salvage)
    {
        _tx = tx;
        _trees = trees;
        _salvage = salvage;
        foreach (var name in trees)
        {
            var tree = Open(name);
            _opened[name] = tree;
            if (tree is not null) Total += tree.Count;
        }
    }

    /// <summary>The entries the selected trees' headers record.</summary>
    public long Total { get; }

    /// <summary>Entries handed to the writer so far.</summary>
    public long Done { get; private set; }

    /// <summary>What a salvage skipped and what it recovered of each damaged tree, one line each.</summary>
    public List<string> Damaged { get; } = [];

    /// <summary>Damaged pages (and unopenable trees) a salvage skipped.</summary>
    public int DamagedCount { get; private set; }

    public void WriteAll(DumpWriter dump, ProgressReporter progress, CancellationToken cancel)
    {
        foreach (var name in _trees)
        {
            if (_opened[name] is not { } tree) continue;
            bool int64Keys = tree.Options == TreeOptions.Int64Keys;
            dump.WriteTree(name, tree.Options);
            if (_salvage)
            {
                var salvaged = tree.Salvage((key, value) =>
                {
                    dump.WriteEntry(name, int64Keys, key, value);
                    progress.Report(++Done);
                }, cancel);
                DamagedCount += salvaged.DamagedPages.Count;
                foreach (var page in salvaged.DamagedPages)
                    Damaged.Add($"tree '{name}': page {page.PageNumber}: {page.Problem}; skipped {page.Skipped}");
                if (!salvaged.IsComplete)
                    Damaged.Add($"tree '{name}': {Sizes.Count(salvaged.EntriesRead)} of {Sizes.Count(salvaged.EntriesExpected)} entries recovered");
                continue;
            }
            using var cursor = tree.CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next())
            {
                dump.WriteEntry(name, int64Keys, cursor.Key, cursor.Value);
                progress.Report(++Done);
                if ((Done & 4095) == 0) cancel.ThrowIfCancellationRequested();
            }
        }
    }

    private Tree? Open(string name)
    {
        if (!_salvage) return _tx.OpenTree(name);
        try
        {
            return _tx.OpenTree(name);
        }
        catch (CorruptionException e)
        {
            Damaged.Add($"tree '{name}': cannot be opened ({e.Problem}); skipped whole");
            DamagedCount++;
            return null;
        }
    }
}
