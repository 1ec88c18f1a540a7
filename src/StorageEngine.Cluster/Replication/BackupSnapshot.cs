using System.Globalization;
using DotNext.IO;
using DotNext.Net.Cluster.Consensus.Raft.StateMachine;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// A Raft snapshot: a file holding the engine's backup stream (<see cref="StorageEnvironment.BackupAsync(Stream, IProgress{BackupProgress}?, CancellationToken)"/>)
/// of the environment as it was right after the entry at <see cref="Index"/> was applied. Named
/// <c>{index}-{term}.snapshot</c>; written under a temporary name and renamed once complete and synced.
/// </summary>
internal sealed class BackupSnapshot : ISnapshot
{
    public const string Extension = ".snapshot";

    public BackupSnapshot(string path, long index, long term)
    {
        Path = path;
        Index = index;
        Term = term;
    }

    public string Path { get; }

    public long Index { get; }

    public long Term { get; }

    long? IDataTransferObject.Length => new FileInfo(Path).Length;

    bool IDataTransferObject.IsReusable => true;

    public static string FileName(long index, long term) =>
        string.Create(CultureInfo.InvariantCulture, $"{index:D20}-{term:D20}{Extension}");

    /// <summary>Reads index and term from a file name; null for anything that is not a complete snapshot.</summary>
    public static BackupSnapshot? FromPath(string path)
    {
        string name = System.IO.Path.GetFileName(path);
        if (!name.EndsWith(Extension, StringComparison.Ordinal)) return null;
        var parts = name[..^Extension.Length].Split('-');
        return parts.Length == 2
            && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out long index)
            && long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out long term)
            ? new BackupSnapshot(path, index, term)
            : null;
    }

    async ValueTask IDataTransferObject.WriteToAsync<TWriter>(TWriter writer, CancellationToken token)
    {
        var stream = new FileStream(Path, new FileStreamOptions
        {
            Mode = FileMode.Open,
            Access = FileAccess.Read,
            Share = FileShare.Read | FileShare.Delete,
            Options = FileOptions.Asynchronous | FileOptions.SequentialScan,
            BufferSize = 0,
        });
        await using (stream.ConfigureAwait(false))
            await writer.CopyFromAsync(stream, count: null, token).ConfigureAwait(false);
    }
}
