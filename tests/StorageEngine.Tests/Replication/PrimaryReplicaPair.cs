using StorageEngine.Platform;
using static StorageEngine.Tests.Durability.NumberedTransactions;
using static StorageEngine.Tests.Replication.ReplicationStreams;

namespace StorageEngine.Tests.Replication;

/// <summary>
/// A primary at <see cref="ReplicationStreams.PrimaryPath"/> and a replica at <see cref="ReplicationStreams.ReplicaPath"/>
/// on one memory file system: the primary commits the first <see cref="NumberedTransactions"/>, and the replica is
/// restored from its full backup and opened with <see cref="StorageEnvironment.OpenReplica"/>. Disposing closes
/// the replica, then the primary.
/// </summary>
internal sealed class PrimaryReplicaPair : IDisposable
{
    /// <summary>How long a test waits for shipping or applying before it fails.</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    private PrimaryReplicaPair(MemoryFileSystem fileSystem, StorageEnvironment primary, StorageEnvironmentOptions replicaOptions,
        StorageEnvironment replica)
    {
        FileSystem = fileSystem;
        Primary = primary;
        ReplicaOptions = replicaOptions;
        Replica = replica;
    }

    public MemoryFileSystem FileSystem { get; }

    public StorageEnvironment Primary { get; }

    /// <summary>The replica's options, for opening it again after a crash.</summary>
    public StorageEnvironmentOptions ReplicaOptions { get; }

    public StorageEnvironment Replica { get; }

    /// <summary>
    /// Opens a primary on a new memory file system, commits transactions 1 to <paramref name="committedBeforeBackup"/>
    /// and restores the replica from a backup taken then.
    /// </summary>
    public static async Task<PrimaryReplicaPair> CreateAsync(long committedBeforeBackup)
    {
        var fileSystem = new MemoryFileSystem();
        var primary = StorageEnvironment.Open(Options(fileSystem));
        try
        {
            Commit(primary, 1, committedBeforeBackup);
            var replicaOptions = ReplicationStreams.ReplicaOptions(fileSystem);
            var replica = await CreateReplicaAsync(primary, replicaOptions);
            return new PrimaryReplicaPair(fileSystem, primary, replicaOptions, replica);
        }
        catch
        {
            primary.Dispose();
            throw;
        }
    }

    /// <summary>Waits until <paramref name="condition"/> holds, failing the test after <see cref="Patience"/>.</summary>
    public static async Task WaitUntil(Func<bool> condition)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            if (waited.Elapsed > Patience) Assert.Fail("timed out waiting for the replica");
            await Task.Delay(2);
        }
    }

    public void Dispose()
    {
        Replica.Dispose();
        Primary.Dispose();
    }
}
