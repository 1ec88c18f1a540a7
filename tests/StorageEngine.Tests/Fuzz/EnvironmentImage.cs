using StorageEngine.Platform;

namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// The bytes of every file of an environment directory, detached from any file system, so that a case can
/// damage a copy and materialize it on a fresh <see cref="MemoryFileSystem"/> with nothing stale left over.
/// </summary>
internal sealed class EnvironmentImage
{
    public const string Directory = "/db";
    public const string DataFileName = "data.sedb";

    private EnvironmentImage(SortedDictionary<string, byte[]> files) => Files = files;

    /// <summary>File name (not path) to content, ordinally sorted so that seeded choices are stable.</summary>
    public SortedDictionary<string, byte[]> Files { get; }

    public byte[] DataFile => Files[DataFileName];

    /// <summary>Names of the journal files, in use and recycled, in name order.</summary>
    public IReadOnlyList<string> JournalFiles => Files.Keys.Where(n => n.StartsWith("journal", StringComparison.Ordinal)).ToList();

    /// <summary>Reads every file of <see cref="Directory"/> through the engine's own file API.</summary>
    public static EnvironmentImage Capture(IFileSystem fileSystem)
    {
        var files = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (string name in fileSystem.ListFiles(Directory))
        {
            using var file = fileSystem.Open(Path.Combine(Directory, name), StorageFileMode.Buffered);
            var bytes = new byte[file.Length];
            int read = file.Read(0, bytes);
            if (read != bytes.Length) throw new InvalidOperationException($"Short read of '{name}': {read} of {bytes.Length} bytes.");
            files.Add(name, bytes);
        }
        return new EnvironmentImage(files);
    }

    /// <summary>A deep copy that can be damaged without touching this one.</summary>
    public EnvironmentImage Clone()
    {
        var files = new SortedDictionary<string, byte[]>(StringComparer.Ordinal);
        foreach (var (name, bytes) in Files) files.Add(name, (byte[])bytes.Clone());
        return new EnvironmentImage(files);
    }

    /// <summary>A new file system holding exactly these files, durably.</summary>
    public MemoryFileSystem ToFileSystem()
    {
        var fileSystem = new MemoryFileSystem();
        fileSystem.CreateDirectory(Directory);
        foreach (var (name, bytes) in Files)
        {
            using var file = fileSystem.Open(Path.Combine(Directory, name), StorageFileMode.Buffered);
            file.SetLength(bytes.Length);
            file.Write(0, bytes);
            file.Flush();
        }
        return fileSystem;
    }

    /// <summary>Length of the file up to its last non-zero byte: where the written part of a preallocated journal ends.</summary>
    public static int WrittenLength(byte[] bytes)
    {
        int last = bytes.AsSpan().LastIndexOfAnyExcept((byte)0);
        return last + 1;
    }
}
