using System.Text;

namespace StorageEngine.Tool.Tests;

/// <summary>dump --salvage and check on an environment with one damaged leaf page.</summary>
public sealed class DamagedEnvironmentTests : ToolTestBase
{
    private const int Entries = 3_000;

    /// <summary>
    /// An environment with one tree of <see cref="Entries"/> entries whose leaf page holding "item001500" has a
    /// flipped byte (its checksum fails). Returns the path and the keys that page held.
    /// </summary>
    private (string Path, HashSet<string> LostKeys) CreateEnvironmentWithADamagedLeaf()
    {
        string path = PathOf("damaged");
        int pageSize;
        using (var env = StorageEnvironment.Open(path))
        {
            pageSize = env.PageSize;
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("items");
            for (int i = 0; i < Entries; i++) tree.Put(Encoding.UTF8.GetBytes($"item{i:D6}"), new byte[100]);
            tx.Commit();
        }
        string dataFile = Path.Combine(path, "data.sedb");
        var bytes = File.ReadAllBytes(dataFile);
        var target = Encoding.UTF8.GetBytes("item001500");
        // The page the tree reads the key from: a leaf holds it with its 100 zero bytes of value right after it
        // (a branch holds separators, a freed page a stale copy; damaging those would not hide the key).
        for (int at = bytes.AsSpan().IndexOf(target); at >= 0; at = NextOccurrence(bytes, target, at))
        {
            if (bytes.AsSpan(at + target.Length, 100).ContainsAnyExcept((byte)0)) continue;
            int page = at / pageSize;
            bytes[page * pageSize + pageSize / 2] ^= 0x5A;
            File.WriteAllBytes(dataFile, bytes);
            if (!Readable(path, target))
            {
                var lost = new HashSet<string>(StringComparer.Ordinal);
                var pageBytes = bytes.AsSpan(page * pageSize, pageSize);
                for (int i = 0; i < Entries; i++)
                    if (pageBytes.IndexOf(Encoding.UTF8.GetBytes($"item{i:D6}")) >= 0) lost.Add($"item{i:D6}");
                return (path, lost);
            }
            bytes[page * pageSize + pageSize / 2] ^= 0x5A;
        }
        throw new InvalidOperationException("No page whose damage hides the key was found.");
    }

    private static int NextOccurrence(byte[] bytes, byte[] target, int after) =>
        bytes.AsSpan(after + 1).IndexOf(target) is var next and >= 0 ? after + 1 + next : -1;

    private static bool Readable(string path, byte[] key)
    {
        using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, ReadOnly = true });
        using var tx = env.BeginRead();
        try
        {
            return tx.OpenTree("items").ContainsKey(key);
        }
        catch (CorruptionException)
        {
            return false;
        }
    }

    [Fact]
    public void Dump_stops_at_a_damaged_page_and_points_to_salvage()
    {
        var (path, _) = CreateEnvironmentWithADamagedLeaf();

        Run("dump", path, "--output", PathOf("dump.jsonl")).AssertCleanFailure("--salvage skips damaged pages");
    }

    [Fact]
    public void Dump_salvage_writes_every_entry_of_the_undamaged_pages_and_reports_the_damaged_one()
    {
        var (path, lost) = CreateEnvironmentWithADamagedLeaf();
        Assert.InRange(lost.Count, 1, Entries / 4);

        var result = Run("dump", path, "--salvage", "-e", "text", "--output", PathOf("dump.jsonl"));

        Assert.Equal(2, result.ExitCode);
        Assert.Contains("1 damaged page skipped", result.Error);
        Assert.Contains("tree 'items': page ", result.Error);
        Assert.Contains($"{Entries - lost.Count:N0} of {Entries:N0} entries recovered", result.Error);
        var keys = File.ReadAllLines(PathOf("dump.jsonl")).Where(l => l.Contains("\"key\"")).Select(l => l.Split('"')[7]).ToList();
        Assert.Equal(Entries - lost.Count, keys.Count);
        Assert.Empty(keys.Intersect(lost));
        Assert.Equal(keys.Order(StringComparer.Ordinal), keys);

        Run("load", PathOf("salvaged"), "-e", "text", "--input", PathOf("dump.jsonl")).AssertSuccess();
        Run("check", PathOf("salvaged")).AssertSuccess();
    }

    [Fact]
    public void Check_lists_the_damaged_page_as_the_cause_and_the_wrong_counts_and_leaked_page_under_it()
    {
        var (path, _) = CreateEnvironmentWithADamagedLeaf();

        var result = Run("check", path);

        Assert.Equal(2, result.ExitCode);
        var lines = result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.StartsWith("1 problem, with ", lines[0]);
        Assert.StartsWith("  tree 'items': ", lines[1]);
        Assert.All(lines.Skip(2), l => Assert.StartsWith("    then: ", l));
        Assert.Contains(lines, l => l.Contains("says it has 3000 entries but holds"));
        Assert.Contains(lines, l => l.Contains("(leaked)"));
    }

    [Fact]
    public void Salvage_of_an_undamaged_tree_reads_exactly_what_a_cursor_reads()
    {
        string path = CreateSampleEnvironment("sound");
        using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = path, ReadOnly = true });
        using var tx = env.BeginRead();
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name);
            var salvaged = new List<string>();
            var result = tree.Salvage((k, v) => salvaged.Add(Convert.ToHexString(k) + "=" + Convert.ToHexString(v)));
            var read = new List<string>();
            using var cursor = tree.CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next()) read.Add(Convert.ToHexString(cursor.Key) + "=" + Convert.ToHexString(cursor.Value));

            Assert.True(result.IsComplete);
            Assert.Equal(read, salvaged);
            Assert.Equal(tree.Count, result.EntriesRead);
        }
    }
}
