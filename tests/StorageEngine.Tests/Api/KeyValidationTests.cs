namespace StorageEngine.Tests.Api;

/// <summary>Keys outside 1 to MaxKeySize bytes are rejected by every operation that takes a key.</summary>
public sealed class KeyValidationTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();
    private readonly WriteTransaction _tx;
    private readonly Tree _tree;

    public KeyValidationTests()
    {
        _tx = _env.BeginWrite();
        _tree = _tx.CreateTree("t");
    }

    public void Dispose()
    {
        _tx.Dispose();
        _env.Dispose();
    }

    [Fact]
    public void A_key_over_MaxKeySize_throws_ArgumentException_stating_the_limit()
    {
        var key = new byte[_env.MaxKeySize + 1];
        var e = Assert.Throws<ArgumentException>(() => _tree.Put(key, "v"u8));
        Assert.Contains(_env.MaxKeySize.ToString(), e.Message);
        Assert.Equal("key", e.ParamName);
        Assert.Throws<ArgumentException>(() => _tree.TryGet(key, out _));
        Assert.Throws<ArgumentException>(() => _tree.Delete(key));
        Assert.Throws<ArgumentException>(() => _tree.ContainsKey(key));
        Assert.Equal(0, _tree.Count);
    }

    [Fact]
    public void A_key_of_exactly_MaxKeySize_is_accepted()
    {
        var key = new byte[_env.MaxKeySize];
        key[^1] = 1;
        _tree.Put(key, "v"u8);
        Assert.Equal("v"u8.ToArray(), _tree.Get(key));
    }

    [Fact]
    public void An_empty_key_throws_ArgumentException()
    {
        var e = Assert.Throws<ArgumentException>(() => _tree.Put(ReadOnlySpan<byte>.Empty, "v"u8));
        Assert.Contains("at least one byte", e.Message);
        Assert.Throws<ArgumentException>(() => _tree.TryGet(ReadOnlySpan<byte>.Empty, out _));
        Assert.Throws<ArgumentException>(() => _tree.Delete(ReadOnlySpan<byte>.Empty));
    }
}
