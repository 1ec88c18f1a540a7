using System.Text;

namespace StorageEngine.Tool.Tests;

/// <summary>A temporary directory per test, and the tool run in-process against it.</summary>
public abstract class ToolTestBase : IDisposable
{
    protected ToolTestBase()
    {
        Root = Path.Combine(Path.GetTempPath(), "se-tool-tests-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(Root);
    }

    protected string Root { get; }

    protected string PathOf(string name) => Path.Combine(Root, name);

    protected static ToolResult Run(params string[] args) => RunWithInput("", args);

    protected static ToolResult RunWithInput(string input, params string[] args)
    {
        var output = new StringWriter();
        var error = new StringWriter();
        int code = ToolApp.Run(args, new StringReader(input), output, error);
        return new ToolResult(code, output.ToString(), error.ToString());
    }

    /// <summary>An environment with a text tree, a binary tree, an integer-key tree and an empty tree.</summary>
    protected string CreateSampleEnvironment(string name, int textEntries = 500)
    {
        string path = PathOf(name);
        using var env = StorageEnvironment.Open(path);
        using var tx = env.BeginWrite();
        var text = tx.CreateTree("users");
        for (int i = 0; i < textEntries; i++) text.Put(Encoding.UTF8.GetBytes($"user{i:D5}"), Encoding.UTF8.GetBytes($"{{\"name\":\"Üser {i}\"}}"));
        var binary = tx.CreateTree("binary");
        binary.Put([0xFF, 0x00, 0xC3], [0x00, 0xFE, 0x80]);
        binary.Put([0x01], []);
        var numbers = tx.CreateTree("numbers", TreeOptions.Int64Keys);
        foreach (long n in new long[] { long.MinValue, -1, 0, 42, long.MaxValue }) numbers.Put(n, Encoding.UTF8.GetBytes(n.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        tx.CreateTree("empty");
        tx.Commit();
        return path;
    }

    /// <summary>Every tree, its options and entries, as a comparable text.</summary>
    protected static string Contents(string path)
    {
        using var env = StorageEnvironment.Open(path);
        using var tx = env.BeginRead();
        var text = new StringBuilder();
        foreach (var name in tx.GetTreeNames())
        {
            var tree = tx.OpenTree(name);
            text.Append("tree ").Append(name).Append(' ').Append(tree.Options).AppendLine();
            using var cursor = tree.CreateCursor();
            for (bool more = cursor.First(); more; more = cursor.Next())
                text.Append(Convert.ToHexString(cursor.Key)).Append('=').Append(Convert.ToHexString(cursor.Value)).AppendLine();
        }
        return text.ToString();
    }

    public void Dispose()
    {
        if (Directory.Exists(Root)) Directory.Delete(Root, recursive: true);
        GC.SuppressFinalize(this);
    }
}
