using System.Buffers;
using System.Collections.Concurrent;
using System.Reflection;
using FASTER.core;

namespace StorageEngine.Peers;

/// <summary>
/// Microsoft FASTER's FasterKV with <see cref="SpanByte"/> keys and values, point operations only. Tier None
/// only: its hybrid log spills to a file, but nothing is recoverable until a checkpoint is taken, and a
/// checkpoint per write is no commit mode FASTER offers. FasterKV is a hash index: it has no key order, so
/// <see cref="Scan"/> throws <see cref="NotSupportedException"/>, and it has no multi-key transactions, so a batch
/// is a series of individually atomic upserts (readers may see part of it) and a <see cref="GetBatch"/> reads
/// each key at its own moment rather than from one snapshot. Sessions are single-threaded, so calls take one
/// from a pool.
/// </summary>
public sealed unsafe class FasterStore : IKeyValueStore
{
    private const string Engine = "faster";

    private readonly IDevice _log;
    private readonly FasterKV<SpanByte, SpanByte> _store;
    private readonly SpanByteFunctions<Empty> _functions = new(MemoryPool<byte>.Shared);
    private readonly ConcurrentBag<ClientSession<SpanByte, SpanByte, SpanByte, SpanByteAndMemory, Empty, SpanByteFunctions<Empty>>> _sessions = [];
    private int _disposed;

    /// <summary>Creates the store with its log file in <paramref name="directory"/> (deleted on dispose).</summary>
    public FasterStore(string directory, DurabilityTier tier)
    {
        if (tier != DurabilityTier.None)
            throw new NotSupportedException($"{Engine}: only the None tier is offered; FASTER persists through checkpoints, not per write.");
        Tier = tier;
        _log = Devices.CreateLogDevice(Path.Combine(directory, "hlog.log"), deleteOnClose: true);
        try
        {
            // 2^26 bytes of hash index is 2^20 buckets of 7 entries, room for the runner's largest key sets without
            // overflow chains; 1 GiB of log in memory, the rest spills to the log file.
            _store = new FasterKV<SpanByte, SpanByte>(new FasterKVSettings<SpanByte, SpanByte>
            {
                IndexSize = 1L << 26,
                LogDevice = _log,
                MemorySize = 1L << 30,
                PageSize = 1L << 25,
            });
        }
        catch (Exception e) when (e is FasterException or IOException)
        {
            _log.Dispose();
            throw new InvalidOperationException($"{Engine}: open in '{directory}' failed: {e.Message}", e);
        }
    }

    /// <summary>The FASTER assembly that runs.</summary>
    public static string LibraryVersion =>
        // The assembly carries no package version (1.0.0.0 in every release); its informational version at least
        // names the source commit it was built from.
        "FASTER.core " + (typeof(FasterKV<,>).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion
            ?? typeof(FasterKV<,>).Assembly.GetName().Version?.ToString());

    /// <inheritdoc />
    public string EngineName => Engine;

    /// <inheritdoc />
    public DurabilityTier Tier { get; }

    /// <inheritdoc />
    public void WriteBatch(ReadOnlySpan<KeyValue> puts)
    {
        var session = Rent();
        try
        {
            foreach (ref readonly var put in puts)
            {
                fixed (byte* k = put.Key.Span)
                fixed (byte* v = put.Value.Span)
                {
                    var key = SpanByte.FromPointer(k, put.Key.Length);
                    var value = SpanByte.FromPointer(v, put.Value.Length);
                    Check(session.Upsert(ref key, ref value), session, nameof(WriteBatch));
                }
            }
        }
        finally
        {
            _sessions.Add(session);
        }
    }

    /// <inheritdoc />
    public void DeleteBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys)
    {
        var session = Rent();
        try
        {
            foreach (ref readonly var k in keys)
            {
                fixed (byte* p = k.Span)
                {
                    var key = SpanByte.FromPointer(p, k.Length);
                    Check(session.Delete(ref key), session, nameof(DeleteBatch));
                }
            }
        }
        finally
        {
            _sessions.Add(session);
        }
    }

    // Upserts and deletes complete in memory; should one go pending (record on disk being locked), finish it here.
    private static void Check(Status status, ClientSession<SpanByte, SpanByte, SpanByte, SpanByteAndMemory, Empty, SpanByteFunctions<Empty>> session, string call)
    {
        if (status.IsPending) session.CompletePending(wait: true);
        else if (status.IsFaulted || status.IsCanceled) throw new InvalidOperationException($"{Engine}: {call} failed with status {status}.");
    }

    /// <inheritdoc />
    public int Get(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        var session = Rent();
        try
        {
            return GetWith(session, key, destination, nameof(Get));
        }
        finally
        {
            _sessions.Add(session);
        }
    }

    /// <inheritdoc />
    public int GetBatch(ReadOnlySpan<ReadOnlyMemory<byte>> keys, Span<byte> scratch)
    {
        var session = Rent();
        try
        {
            int found = 0;
            foreach (ref readonly var key in keys)
                if (GetWith(session, key.Span, scratch, nameof(GetBatch)) >= 0) found++;
            return found;
        }
        finally
        {
            _sessions.Add(session);
        }
    }

    private static int GetWith(ClientSession<SpanByte, SpanByte, SpanByte, SpanByteAndMemory, Empty, SpanByteFunctions<Empty>> session,
        ReadOnlySpan<byte> key, Span<byte> destination, string call)
    {
        fixed (byte* k = key)
        fixed (byte* d = destination)
        {
            var keyBytes = SpanByte.FromPointer(k, key.Length);
            // The value lands in the caller's buffer; FASTER falls back to pooled memory only when it does not fit.
            var output = new SpanByteAndMemory(SpanByte.FromPointer(d, destination.Length));
            var status = session.Read(ref keyBytes, ref output);
            if (status.IsPending)
            {
                // The record is on the log file: wait for the read, which still writes through the fixed pointer.
                session.CompletePendingWithOutputs(out var completed, wait: true);
                using (completed)
                {
                    if (!completed.Next()) throw new InvalidOperationException($"{Engine}: {call}: a pending read completed without output.");
                    status = completed.Current.Status;
                    output = completed.Current.Output;
                }
            }
            if (status.IsFaulted || status.IsCanceled) throw new InvalidOperationException($"{Engine}: {call} failed with status {status}.");
            if (!status.Found) return -1;
            if (output.IsSpanByte) return output.SpanByte.Length;
            using var memory = output.Memory;
            return ValueReads.CopyOut(memory.Memory.Span[..output.Length], destination);
        }
    }

    private ClientSession<SpanByte, SpanByte, SpanByte, SpanByteAndMemory, Empty, SpanByteFunctions<Empty>> Rent()
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        // A session per concurrent caller: sessions are not thread-safe, and opening one per call would register
        // a session with the epoch system inside the timed region.
        return _sessions.TryTake(out var session) ? session : _store.For(_functions).NewSession<SpanByteFunctions<Empty>>();
    }

    /// <summary>Always throws: FasterKV is a hash index and keeps no key order to scan.</summary>
    /// <exception cref="NotSupportedException">Always.</exception>
    public int Scan(ReadOnlySpan<byte> start, int count, bool backward = false) =>
        throw new NotSupportedException($"{Engine}: FasterKV is a hash index with no key order, so it has no ordered scan.");

    /// <inheritdoc />
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        while (_sessions.TryTake(out var session)) session.Dispose();
        _store.Dispose();
        _log.Dispose();
    }
}
