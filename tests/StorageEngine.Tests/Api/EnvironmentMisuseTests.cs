namespace StorageEngine.Tests.Api;

/// <summary>A disposed environment refuses new work; open transactions keep it alive but cannot do more.</summary>
public sealed class EnvironmentMisuseTests
{
    [Fact]
    public async Task Using_a_disposed_environment_throws_ObjectDisposedException()
    {
        var env = StorageEnvironment.CreateInMemory();
        env.Dispose();

        var e = Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        Assert.Contains("disposed", e.Message);
        Assert.Throws<ObjectDisposedException>(() => env.BeginWrite());
        Assert.Throws<ObjectDisposedException>(() => env.Check());
        Assert.Throws<ObjectDisposedException>(() => env.Checkpoint());
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await env.BeginWriteAsync());
        env.Dispose(); // a second dispose is harmless
    }

    [Fact]
    public void A_transaction_open_when_the_environment_is_disposed_can_no_longer_be_used()
    {
        var env = StorageEnvironment.CreateInMemory();
        using (var setup = env.BeginWrite())
        {
            setup.CreateTree("t").Put("k"u8, "v"u8);
            setup.Commit();
        }
        var tx = env.BeginRead();
        var tree = tx.OpenTree("t");
        env.Dispose();

        Assert.Throws<ObjectDisposedException>(() => tree.Get("k"u8));
        Assert.Throws<ObjectDisposedException>(() => env.BeginRead());
        tx.Dispose(); // closes the environment for good
    }

    [Fact]
    public void Options_without_a_path_are_rejected_for_durable_environments()
    {
        var e = Assert.Throws<ArgumentException>(() => StorageEnvironment.Open(new StorageEnvironmentOptions()));
        Assert.Contains("Path", e.Message);
    }

    [Theory]
    [InlineData(1000)]
    [InlineData(2048)]
    [InlineData(65536)]
    public void Invalid_page_sizes_are_rejected(int pageSize)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory, PageSize = pageSize }));
    }
}
