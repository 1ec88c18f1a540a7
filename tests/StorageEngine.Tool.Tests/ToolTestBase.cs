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

    /// <summary>Runs the tool with standard output (text and bytes) and standard input (bytes) given.</summary>
    protected static ToolResult RunWithStreams(TextWriter output, Stream? binaryOutput, Stream? binaryInput, params string[] args)
    {
        var error = new StringWriter();
        int code = ToolApp.Run(args, new StringReader(""), output, error,
            standardOutput: binaryOutput is null ? null : () => binaryOutput, standardInput: binaryInput is null ? null : () => binaryInput);
        return new ToolResult(code, output.ToString() ?? "", error.ToString());
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

    /// <summary>
    /// Copies the files of an open environment after a commit that no checkpoint covers yet: what a crash leaves,
    /// an environment whose journal must be replayed.
    /// </summary>
    protected string CreateEnvironmentNeedingRecovery(string name)
    {
        string live = PathOf(name + "-live");
        string copy = PathOf(name);
        Directory.CreateDirectory(copy);
        using var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = live, CheckpointInterval = TimeSpan.FromHours(1) });
        using (var tx = env.BeginWrite())
        {
            tx.CreateTree("t").Put("k"u8, "v"u8);
            tx.Commit();
        }
        // The live LOCK file is held; a crashed environment keeps an empty one.
        foreach (var file in Directory.GetFiles(live))
            if (Path.GetFileName(file) != "LOCK") File.Copy(file, Path.Combine(copy, Path.GetFileName(file)));
        File.WriteAllBytes(Path.Combine(copy, "LOCK"), []);
        return copy;
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
