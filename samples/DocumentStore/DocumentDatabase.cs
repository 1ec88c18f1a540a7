using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using StorageEngine;

namespace DocumentStore;

/// <summary>
/// A small document database embedded on a <see cref="StorageEnvironment"/>: JSON documents in collections,
/// secondary indexes kept in the same transaction as the documents, ordered paging and a change feed.
/// Layout: documents in tree <c>docs/{collection}</c> keyed by id; each index in tree
/// <c>idx/{collection}/{field}</c> keyed by encoded value, 0x00 and id; the feed in tree <c>changes</c> keyed by
/// sequence number. Thread-safe: sessions are not, but any number of them may run at once (one writer).
/// </summary>
public sealed class DocumentDatabase : IDisposable
{
    internal const string ChangesTree = "changes";
    private const int MaxIdBytes = 512;
    private readonly bool _ownsEnvironment;
    private TaskCompletionSource _committed = NewSignal();
    private int _disposed;

    /// <summary>Uses an open environment; the database disposes it only when <paramref name="ownsEnvironment"/>.</summary>
    public DocumentDatabase(StorageEnvironment environment, JsonSerializerOptions? jsonOptions = null, bool ownsEnvironment = false)
    {
        Environment = environment ?? throw new ArgumentNullException(nameof(environment));
        JsonOptions = jsonOptions ?? new JsonSerializerOptions(JsonSerializerDefaults.Web);
        _ownsEnvironment = ownsEnvironment;
    }

    /// <summary>Opens (creating if needed) a database in a directory.</summary>
    public static DocumentDatabase Open(string path, JsonSerializerOptions? jsonOptions = null) =>
        new(StorageEnvironment.Open(path), jsonOptions, ownsEnvironment: true);

    /// <summary>The environment underneath.</summary>
    public StorageEnvironment Environment { get; }

    /// <summary>How documents are (de)serialized; web defaults (camelCase) unless given. Index paths use the JSON names.</summary>
    public JsonSerializerOptions JsonOptions { get; }

    /// <summary>Starts a read session on the latest commit.</summary>
    public ReadSession BeginRead() => new(this, Environment.BeginRead());

    /// <summary>Starts the write session, waiting while another one runs.</summary>
    public WriteSession BeginWrite(TimeSpan? timeout = null) => new(this, Environment.BeginWrite(timeout));

    /// <summary>Creates and fills an index in its own transaction; false when it exists.</summary>
    /// <remarks>
    /// An index that exists is found by a read transaction: an application that ensures its indexes at every start
    /// neither waits for the writer nor makes a write transaction to learn that nothing is to be done.
    /// </remarks>
    public bool EnsureIndex(string collection, string field)
    {
        ArgumentException.ThrowIfNullOrEmpty(field);
        using (var read = BeginRead())
        {
            if (read.Transaction.TryOpenTree(IndexTree(collection, field), out _)) return false;
        }
        using var session = BeginWrite();
        bool created = session.EnsureIndex(collection, field);
        if (created) session.Commit();
        return created;
    }

    /// <summary>
    /// The change feed from <paramref name="afterSequence"/> on, without end: it yields what is committed, then
    /// waits for the next commit. Holds no transaction while waiting.
    /// </summary>
    public async IAsyncEnumerable<Change> WatchChangesAsync(long afterSequence = 0, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        while (true)
        {
            // Take the signal before reading, so that a commit between the read and the wait is not missed.
            var next = Volatile.Read(ref _committed).Task;
            IReadOnlyList<Change> changes;
            using (var session = BeginRead()) changes = session.GetChanges(afterSequence);
            foreach (var change in changes)
            {
                yield return change;
                afterSequence = change.Sequence;
            }
            if (changes.Count == 0) await next.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    internal void OnCommitted() => Interlocked.Exchange(ref _committed, NewSignal()).TrySetResult();

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    internal static string DocumentsTree(string collection) => "docs/" + CheckCollection(collection);

    internal static string IndexTree(string collection, string field) => "idx/" + CheckCollection(collection) + "/" + field;

    internal static byte[] IdBytes(string id)
    {
        ArgumentException.ThrowIfNullOrEmpty(id);
        var bytes = Encoding.UTF8.GetBytes(id);
        if (bytes.Length > MaxIdBytes) throw new ArgumentException($"A document id is at most {MaxIdBytes} UTF-8 bytes; this one is {bytes.Length}.", nameof(id));
        return bytes;
    }

    private static string CheckCollection(string collection)
    {
        ArgumentException.ThrowIfNullOrEmpty(collection);
        if (collection.Contains('/')) throw new ArgumentException($"A collection name cannot contain '/': '{collection}'.", nameof(collection));
        return collection;
    }

    /// <summary>Wakes change-feed watchers with <see cref="ObjectDisposedException"/> and, if owned, closes the environment.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        Volatile.Read(ref _committed).TrySetException(new ObjectDisposedException(nameof(DocumentDatabase)));
        if (_ownsEnvironment) Environment.Dispose();
    }
}
