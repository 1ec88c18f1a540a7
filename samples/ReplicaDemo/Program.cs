// ReplicaDemo: a primary ships its journal to a read replica over a local TCP socket (127.0.0.1 only).
// Usage: dotnet run -c Release --project samples/ReplicaDemo [directory]
// The directory (default: a new temporary one) gets primary/, replica/ and backup.sebak. The demo seeds the
// primary, takes a hot backup while a writer commits, restores it as the replica, then lets the replica follow
// the primary over TCP, cuts the connection, resumes from the replica's last transaction, and at the end checks
// that the replica holds exactly what the primary holds. Exit code 0 when it does.

using System.Diagnostics;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using System.Text;
using StorageEngine;

string root = args.Length > 0 ? Path.GetFullPath(args[0]) : Path.Combine(Path.GetTempPath(), $"replica-demo-{Guid.NewGuid():N}");
bool removeRoot = args.Length == 0;
if (Directory.Exists(root)) Directory.Delete(root, recursive: true);
string primaryPath = Path.Combine(root, "primary"), replicaPath = Path.Combine(root, "replica"), backupPath = Path.Combine(root, "backup.sebak");
var clock = Stopwatch.StartNew();
void Say(string text) => Console.WriteLine($"[{clock.Elapsed.TotalSeconds,5:0.00}s] {text}");

try
{
    using var primary = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = primaryPath, JournalFileSize = 4 << 20 });
    long orders = 0;
    void CommitOrders(int count)
    {
        using var tx = primary.BeginWrite();
        var tree = tx.CreateTree("orders", TreeOptions.Int64Keys);
        for (int i = 0; i < count; i++)
        {
            long id = ++orders;
            tree.Put(id, Encoding.UTF8.GetBytes($"order {id}: {id % 7 + 1} x item-{id * 31 % 1000:D4}"));
        }
        tx.CreateTree("meta").Put("orders"u8, BitConverter.GetBytes(orders));
        tx.Commit();
    }
    for (int i = 0; i < 50; i++) CommitOrders(100);
    Say($"primary seeded: {orders} orders, transaction {primary.LastCommittedTransactionId}");

    // 1. Hot backup while a writer keeps committing, restored as the replica.
    using var stopWriting = new CancellationTokenSource();
    var writer = Task.Run(async () =>
    {
        while (!stopWriting.IsCancellationRequested)
        {
            CommitOrders(20);
            await Task.Delay(2);
        }
    });
    BackupSummary backup;
    await using (var file = File.Create(backupPath)) backup = await primary.BackupAsync(file);
    Say($"backup of transaction {backup.TransactionId}: {backup.PagesCopied} pages, {backup.StreamBytes / 1024} KiB, while the writer went on to {primary.LastCommittedTransactionId}");
    await using (var file = File.OpenRead(backupPath)) await StorageEnvironment.RestoreAsync(file, replicaPath);
    using var replica = StorageEnvironment.OpenReplica(new StorageEnvironmentOptions { Path = replicaPath });
    Say($"replica restored at transaction {replica.LastCommittedTransactionId}");

    // 2. The primary serves its journal: a replica connects, says where it stands, and receives what follows.
    using var stopServing = new CancellationTokenSource();
    var listener = new TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    int port = ((IPEndPoint)listener.LocalEndpoint).Port;
    var server = Task.Run(async () =>
    {
        while (!stopServing.IsCancellationRequested)
        {
            TcpClient client;
            try
            {
                client = await listener.AcceptTcpClientAsync(stopServing.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }
            using (client)
            {
                var stream = client.GetStream();
                try
                {
                    var position = new byte[8];
                    await stream.ReadExactlyAsync(position, stopServing.Token);
                    long after = BitConverter.ToInt64(position);
                    Say($"primary: replica connected, shipping after transaction {after}");
                    var pipe = PipeWriter.Create(stream, new StreamPipeWriterOptions(leaveOpen: true));
                    long last = await primary.ShipJournalAsync(after, pipe, follow: true, stopServing.Token);
                    Say($"primary: replica stopped reading after transaction {last}");
                }
                catch (Exception e) when (e is IOException or OperationCanceledException or SocketException)
                {
                    Say($"primary: connection ended ({e.GetType().Name})");
                }
            }
        }
    });

    // 3. The replica follows over TCP; the demo cuts the connection once, and the replica resumes.
    async Task FollowAsync(TimeSpan duration)
    {
        using var client = new TcpClient();
        await client.ConnectAsync(IPAddress.Loopback, port);
        var stream = client.GetStream();
        await stream.WriteAsync(BitConverter.GetBytes(replica.LastCommittedTransactionId));
        Say($"replica: connected at transaction {replica.LastCommittedTransactionId}");
        using var cut = new CancellationTokenSource(duration);
        try
        {
            await replica.ApplyReplicationStreamAsync(PipeReader.Create(stream), cut.Token);
        }
        catch (OperationCanceledException)
        {
            // The cut: whatever record was arriving is not applied; the replica stays at a whole transaction.
        }
        Say($"replica: disconnected at transaction {replica.LastCommittedTransactionId} (primary at {primary.LastCommittedTransactionId})");
    }

    await FollowAsync(TimeSpan.FromSeconds(1.5));
    await Task.Delay(500);
    using (var reader = replica.BeginRead())
        Say($"replica serves reads while disconnected: {reader.OpenTree("orders").Count} orders at snapshot {reader.SnapshotId}");
    try
    {
        replica.BeginWrite().Dispose();
    }
    catch (InvalidOperationException e)
    {
        Say($"replica refuses local writes: {e.Message[..e.Message.IndexOf(':')]}");
    }
    var resumed = FollowAsync(TimeSpan.FromSeconds(6));
    await Task.Delay(1500);
    stopWriting.Cancel();
    await writer;
    long target = primary.LastCommittedTransactionId;
    Say($"primary stopped writing at transaction {target} with {orders} orders");
    var waited = Stopwatch.StartNew();
    while (replica.LastCommittedTransactionId < target && waited.Elapsed < TimeSpan.FromSeconds(4)) await Task.Delay(10);
    stopServing.Cancel();
    await resumed;
    listener.Stop();
    await server;

    // 4. The replica must equal the primary, entry for entry.
    bool equal = SameContents(primary, replica, out string difference);
    Say(equal
        ? $"replica equals primary at transaction {replica.LastCommittedTransactionId}: {orders} orders"
        : $"replica differs from primary: {difference}");
    return equal && replica.LastCommittedTransactionId == target ? 0 : 1;
}
finally
{
    if (removeRoot && Directory.Exists(root)) Directory.Delete(root, recursive: true);
}

static bool SameContents(StorageEnvironment left, StorageEnvironment right, out string difference)
{
    using var a = left.BeginRead();
    using var b = right.BeginRead();
    difference = "";
    if (a.SnapshotId != b.SnapshotId)
    {
        difference = $"primary at transaction {a.SnapshotId}, replica at {b.SnapshotId}";
        return false;
    }
    var names = a.GetTreeNames();
    if (!names.SequenceEqual(b.GetTreeNames()))
    {
        difference = "the tree names differ";
        return false;
    }
    foreach (var name in names)
    {
        using var x = a.OpenTree(name).CreateCursor();
        using var y = b.OpenTree(name).CreateCursor();
        bool more = x.First();
        if (more != y.First())
        {
            difference = $"tree {name}: one is empty";
            return false;
        }
        while (more)
        {
            if (!x.Key.SequenceEqual(y.Key) || !x.Value.SequenceEqual(y.Value))
            {
                difference = $"tree {name} differs at key {Convert.ToHexString(x.Key)}";
                return false;
            }
            more = x.Next();
            if (more != y.Next())
            {
                difference = $"tree {name}: one has more entries";
                return false;
            }
        }
    }
    return true;
}
