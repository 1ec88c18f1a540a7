using System.Text;

namespace StorageEngine.Tests.Api;

/// <summary>Every tree of an environment, its options and entries, as one comparable text.</summary>
internal static class EnvironmentContents
{
    public static string Of(StorageEnvironment env)
    {
        using var tx = env.BeginRead();
        var text = new StringBuilder();
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name);
            text.Append("tree ").Append(name).Append(' ').Append(tree.Options).Append(' ').Append(tree.Count).AppendLine();
            using var cursor = tree.CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next())
                text.Append(Convert.ToHexString(cursor.Key)).Append('=').Append(Convert.ToHexString(cursor.Value)).AppendLine();
        }
        return text.ToString();
    }

    /// <summary>SHA-256 of every file in the directory, by name.</summary>
    public static SortedDictionary<string, string> FileHashes(string directory)
    {
        var hashes = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var file in Directory.GetFiles(directory))
            hashes[Path.GetFileName(file)] = Convert.ToHexString(System.Security.Cryptography.SHA256.HashData(File.ReadAllBytes(file)));
        return hashes;
    }

    /// <summary>
    /// An environment with a text tree that lost most of its entries (many free pages), an integer-key tree, an
    /// empty tree and a tree of overflow values.
    /// </summary>
    public static void FillFragmented(StorageEnvironment env, int entries = 20_000)
    {
        var value = new byte[200];
        using (var tx = env.BeginWrite())
        {
            var items = tx.CreateTree("items");
            for (int i = 0; i < entries; i++)
            {
                value[0] = (byte)i;
                items.Put(Encoding.ASCII.GetBytes($"item{i:D6}"), value);
            }
            var numbers = tx.CreateTree("numbers", TreeOptions.Int64Keys);
            for (long n = -500; n < 500; n++) numbers.Put(n * 1_000_003, BitConverter.GetBytes(n));
            tx.CreateTree("empty");
            var large = tx.CreateTree("large");
            for (int i = 0; i < 5; i++) large.Put([(byte)i], Unit.TestData.Value(i, 20_000 + i));
            tx.Commit();
        }
        using (var tx = env.BeginWrite())
        {
            var items = tx.OpenTree("items");
            for (int i = 0; i < entries; i++)
                if (i % 10 != 0) items.Delete(Encoding.ASCII.GetBytes($"item{i:D6}"));
            tx.Commit();
        }
    }
}
