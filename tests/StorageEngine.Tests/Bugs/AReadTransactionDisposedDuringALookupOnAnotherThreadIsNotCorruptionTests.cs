using System.Buffers.Binary;
using System.Diagnostics;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Disposing a read transaction while another thread was inside one of its lookups gave back its reader slot under
/// the lookup; the writer then reused the pages being read, and the lookup reported a <see cref="CorruptionException"/>
/// on a healthy store (or could return a value of another key). Such a lookup now throws ObjectDisposedException
/// saying that the transaction was disposed during it, whatever it read.
/// </summary>
public sealed class AReadTransactionDisposedDuringALookupOnAnotherThreadIsNotCorruptionTests
{
    private const int Keys = 4_000;
    private const int ValueSize = 200;

    [Fact]
    public void Lookups_racing_the_dispose_either_return_the_right_value_or_say_the_transaction_was_disposed() =>
        RaceTheDispose((tree, cursor, k, problems) =>
        {
            // Get copies the value inside the lookup: a span from TryGet is valid only until the dispose.
            if (tree.Get(Key(k)) is not { } value) lock (problems) problems.Add($"key {k} missing");
            else if (!IsValueOf(k, value)) lock (problems) problems.Add($"key {k} read a value of another key");
        });

    [Fact]
    public void Cursor_moves_racing_the_dispose_find_their_entries_or_say_the_transaction_was_disposed() =>
        RaceTheDispose((tree, cursor, k, problems) =>
        {
            if (!cursor.Seek(Key(k))) lock (problems) problems.Add($"key {k} missing");
            // The key is read after the move, when the dispose may have come: only its failure is checked.
            _ = cursor.Key.Length;
            if (k + 1 < Keys && !cursor.Next()) lock (problems) problems.Add($"nothing after key {k}");
        });

    private delegate void Lookup(Tree tree, Cursor cursor, int k, List<string> problems);

    private static void RaceTheDispose(Lookup lookup)
    {
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        using (var write = environment.BeginWrite())
        {
            var tree = write.CreateTree("t");
            for (int k = 0; k < Keys; k++) tree.Put(Key(k), Value(k, 0));
            write.Commit();
        }
        using var stop = new CancellationTokenSource();
        // Rewrites every value again and again, so that pages freed by one commit are reused by the next ones.
        Exception? writerFailed = null;
        var writer = new Thread(() =>
        {
            try
            {
                for (int version = 1; !stop.IsCancellationRequested; version++)
                {
                    using var write = environment.BeginWrite();
                    var tree = write.OpenTree("t");
                    for (int k = version % 7; k < Keys; k += 7) tree.Put(Key(k), Value(k, version));
                    write.Commit();
                }
            }
            catch (Exception e)
            {
                writerFailed = e;
            }
        });
        writer.Start();

        var problems = new List<string>();
        int disposedDuring = 0;
        var clock = Stopwatch.StartNew();
        for (int round = 0; clock.Elapsed < TimeSpan.FromSeconds(2) || round < 50; round++)
        {
            var read = environment.BeginRead();
            var tree = read.OpenTree("t");
            var cursor = tree.CreateCursor();
            using var started = new ManualResetEventSlim();
            var lookups = new Thread(() =>
            {
                int k = round;
                try
                {
                    while (true)
                    {
                        k = (k * 7 + 13) % Keys;
                        lookup(tree, cursor, k, problems);
                        started.Set();
                    }
                }
                catch (ObjectDisposedException)
                {
                    Interlocked.Increment(ref disposedDuring);
                }
                catch (Exception e)
                {
                    lock (problems) problems.Add(e.ToString());
                }
                finally
                {
                    started.Set();
                }
            });
            lookups.Start();
            started.Wait();
            Thread.SpinWait(round % 50 * 100);
            read.Dispose();
            Assert.True(lookups.Join(TimeSpan.FromMinutes(1)), "the lookups never saw their transaction end");
            if (problems.Count > 0) break;
        }
        stop.Cancel();
        Assert.True(writer.Join(TimeSpan.FromMinutes(1)), "the writer never stopped");
        Assert.Null(writerFailed);
        Assert.Empty(problems);
        Assert.True(disposedDuring > 0);
        Assert.True(environment.Check().IsHealthy);
    }

    private static byte[] Key(int k)
    {
        var key = new byte[8];
        BinaryPrimitives.WriteInt64BigEndian(key, k);
        return key;
    }

    /// <summary>The key's number in every 4 bytes but the last 4, which hold the version.</summary>
    private static byte[] Value(int k, int version)
    {
        var value = new byte[ValueSize];
        for (int at = 0; at + 8 <= ValueSize; at += 4) BinaryPrimitives.WriteInt32LittleEndian(value.AsSpan(at), k);
        BinaryPrimitives.WriteInt32LittleEndian(value.AsSpan(ValueSize - 4), version);
        return value;
    }

    private static bool IsValueOf(int k, ReadOnlySpan<byte> value)
    {
        if (value.Length != ValueSize) return false;
        for (int at = 0; at + 8 <= ValueSize; at += 4)
            if (BinaryPrimitives.ReadInt32LittleEndian(value[at..]) != k) return false;
        return true;
    }
}
