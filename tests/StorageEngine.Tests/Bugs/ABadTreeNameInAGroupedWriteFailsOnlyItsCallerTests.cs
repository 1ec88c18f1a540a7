namespace StorageEngine.Tests.Bugs;

/// <summary>
/// StorageEnvironment.Write checked only that the tree name was not null; the group's leader then opened the tree
/// outside the handler that refuses one batch alone, so an invalid name (empty, too long) threw in the leader and
/// failed every batch grouped with it. The name is now checked before the batch is queued: only its caller fails.
/// </summary>
public sealed class ABadTreeNameInAGroupedWriteFailsOnlyItsCallerTests
{
    // By index: the test runner writes a theory's string arguments as UTF-8 itself, which would turn "\uD800" into U+FFFD.
    private static readonly string[] InvalidNames = ["", new string('x', 256), "\uD800"];

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    public void Write_and_WriteAsync_refuse_the_name_before_queuing_the_batch(int which)
    {
        string name = InvalidNames[which];
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        var batch = new WriteBatch();
        batch.Put("k"u8, "v"u8);
        Assert.Equal("treeName", Assert.Throws<ArgumentException>(() => environment.Write(name, batch)).ParamName);
        Assert.Equal("treeName", Assert.Throws<ArgumentException>(() => environment.WriteAsync(name, batch)).ParamName);
        Assert.Equal(0, environment.GroupedWriteQueue.Outstanding);
    }

    [Fact]
    public void Callers_grouped_with_bad_names_all_commit()
    {
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        using (var write = environment.BeginWrite())
        {
            write.CreateTree("t");
            write.Commit();
        }
        const int Writers = 8, Each = 200;
        int refused = 0;
        Parallel.For(0, Writers, new ParallelOptions { MaxDegreeOfParallelism = Writers }, writer =>
        {
            var batch = new WriteBatch();
            for (int i = 0; i < Each; i++)
            {
                batch.Clear();
                batch.Put(BitConverter.GetBytes(writer * Each + i), "v"u8);
                if (writer % 2 == 1 && i % 3 == 0)
                {
                    try
                    {
                        environment.Write("", batch);
                    }
                    catch (ArgumentException)
                    {
                        Interlocked.Increment(ref refused);
                    }
                }
                environment.Write("t", batch);
            }
        });
        using var read = environment.BeginRead();
        var tree = read.OpenTree("t");
        for (int key = 0; key < Writers * Each; key++) Assert.True(tree.TryGet(BitConverter.GetBytes(key), out _), $"key {key} is missing");
        Assert.Equal(4 * 67, refused);
    }
}
