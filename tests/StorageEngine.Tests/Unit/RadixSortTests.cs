using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>The radix sort of batch keys orders like Array.Sort and keeps equal keys' items in input order.</summary>
public sealed class RadixSortTests
{
    [Theory]
    [InlineData(0, 64)]
    [InlineData(1, 64)]
    [InlineData(100, 64)]      // below the introsort threshold
    [InlineData(10_000, 64)]   // every digit differs
    [InlineData(10_000, 20)]   // high digits all equal: their passes are skipped
    [InlineData(10_000, 4)]    // many duplicates
    public void Sorts_like_Array_Sort_and_is_stable(int count, int bits)
    {
        var random = new Random(count + bits);
        var keys = new ulong[count];
        for (int i = 0; i < count; i++) keys[i] = bits == 64 ? (ulong)random.NextInt64() * 2 + (ulong)random.Next(2) : (ulong)random.NextInt64(1L << bits);
        var items = Enumerable.Range(0, count).ToArray();
        var expected = keys.Select((key, item) => (key, item)).OrderBy(p => p.key).ThenBy(p => p.item).ToArray();

        RadixSort.Sort(keys, items, new ulong[count], new int[count]);

        Assert.Equal(expected.Select(p => p.key), keys);
        Assert.Equal(expected.Select(p => p.item), items);
    }
}
