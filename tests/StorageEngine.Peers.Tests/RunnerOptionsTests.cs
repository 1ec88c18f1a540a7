using StorageEngine.Workloads;

namespace StorageEngine.Peers.Tests;

/// <summary>
/// The workload runner's options for W6 and W7: W7's memory limit reads as binary multiples, and W6's sizes are
/// whole batches. The command line that sets them is tested in <see cref="RunnerCommandLineTests"/>.
/// </summary>
public sealed class RunnerOptionsTests
{
    [Theory]
    [InlineData("268435456", 268435456L)]
    [InlineData("256M", 256L << 20)]
    [InlineData("256m", 256L << 20)]
    [InlineData("256MiB", 256L << 20)]
    [InlineData("256MB", 256L << 20)]
    [InlineData("512K", 512L << 10)]
    [InlineData("1G", 1L << 30)]
    [InlineData("1.5g", 3L << 29)]
    public void MemoryLimitSizesAreBinaryMultiples(string text, long bytes) =>
        Assert.Equal(bytes, RunnerOptions.ParseSize(text));

    [Theory]
    [InlineData("")]
    [InlineData("M")]
    [InlineData("-1G")]
    [InlineData("0")]
    [InlineData("12 parsecs")]
    public void NonSizesAreRefused(string text) =>
        Assert.Throws<FormatException>(() => RunnerOptions.ParseSize(text));

    [Fact]
    public void SweepItemsAreWholeBatchesOfTheByteBudgetOrTheFloor()
    {
        var sizes = WorkloadSizes.Quick;
        Assert.Equal(128L << 20, sizes.W6ValueBytes);
        Assert.Equal(1_341_952, sizes.W6Items(100));
        Assert.Equal(131_072, sizes.W6Items(1024));
        // 4 KiB values: the item floor, not 32,768 items of the byte budget.
        Assert.Equal(131_072, sizes.W6Items(4096));
        Assert.Equal(0, sizes.W6Items(100) % sizes.W6Batch);
        // A tiny scale still writes one batch.
        Assert.Equal(sizes.W6Batch, sizes.Scale(0.0001).W6Items(4096));
    }
}
