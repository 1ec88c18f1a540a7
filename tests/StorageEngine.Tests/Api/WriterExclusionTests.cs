namespace StorageEngine.Tests.Api;

/// <summary>One write transaction at a time: a second writer waits, times out, or proceeds once the first ends.</summary>
public sealed class WriterExclusionTests : IDisposable
{
    private readonly StorageEnvironment _env = StorageEnvironment.CreateInMemory();

    public void Dispose() => _env.Dispose();

    [Fact]
    public void A_second_BeginWrite_times_out_while_the_first_writer_is_open()
    {
        using var first = _env.BeginWrite();
        var started = System.Diagnostics.Stopwatch.StartNew();

        // From another thread: on this one a second BeginWrite is refused as nested (NestedBeginWriteTests).
        var e = Assert.Throws<TimeoutException>(() => Task.Factory.StartNew(() => _env.BeginWrite(TimeSpan.FromMilliseconds(100)), TaskCreationOptions.LongRunning).GetAwaiter().GetResult());

        Assert.True(started.ElapsedMilliseconds >= 90, $"gave up after {started.ElapsedMilliseconds} ms");
        Assert.Contains("write transaction", e.Message);
    }

    [Fact]
    public void The_timeout_leaves_the_environment_usable_once_the_first_writer_ends()
    {
        using (var first = _env.BeginWrite())
        {
            Assert.Throws<TimeoutException>(() => Task.Factory.StartNew(() => _env.BeginWrite(TimeSpan.FromMilliseconds(10)), TaskCreationOptions.LongRunning).GetAwaiter().GetResult());
            first.CreateTree("t").Put("k"u8, "v"u8);
            first.Commit();
        }
        using var second = _env.BeginWrite(TimeSpan.FromMilliseconds(10));
        Assert.Equal("v"u8.ToArray(), second.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public async Task BeginWriteAsync_waits_for_the_running_writer_and_sees_its_commit()
    {
        var first = _env.BeginWrite();
        var waiting = _env.BeginWriteAsync().AsTask();
        await Task.Delay(100);
        Assert.False(waiting.IsCompleted, "the second writer started while the first was open");

        first.CreateTree("t").Put("k"u8, "from first"u8);
        first.Commit();

        using var second = await waiting.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal("from first"u8.ToArray(), second.OpenTree("t").Get("k"u8));
        Assert.Equal(first.TransactionId + 1, second.TransactionId);
        second.OpenTree("t").Put("k"u8, "from second"u8);
        second.Commit();

        using var rtx = _env.BeginRead();
        Assert.Equal("from second"u8.ToArray(), rtx.OpenTree("t").Get("k"u8));
    }

    [Fact]
    public async Task BeginWriteAsync_can_be_cancelled_while_waiting()
    {
        using var first = _env.BeginWrite();
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(50));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await _env.BeginWriteAsync(cancel.Token));
    }

    [Fact]
    public void Readers_do_not_block_the_writer_and_the_writer_does_not_block_readers()
    {
        using var reader = _env.BeginRead();
        using var writer = _env.BeginWrite(TimeSpan.FromMilliseconds(100));
        using var another = _env.BeginRead();
        writer.CreateTree("t");
        writer.Commit();
        Assert.Empty(reader.GetTreeNames());
        Assert.Empty(another.GetTreeNames());
    }
}
