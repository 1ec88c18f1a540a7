using StorageEngine.Common;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// Environment and session ids come from <see cref="RandomIds"/>: a session's journal records are told from an earlier
/// session's by its id alone, so ids must not repeat and no bit of them may be fixed.
/// </summary>
public sealed class RandomIdsTests
{
    [Fact]
    public void Ten_thousand_ids_are_distinct_and_every_bit_takes_both_values()
    {
        var seen = new HashSet<long>();
        ulong ones = 0, zeros = 0;
        for (int i = 0; i < 10_000; i++)
        {
            long id = RandomIds.Next();
            Assert.True(seen.Add(id), $"id {id} repeated after {i} ids");
            ones |= (ulong)id;
            zeros |= ~(ulong)id;
        }
        Assert.Equal(ulong.MaxValue, ones);
        Assert.Equal(ulong.MaxValue, zeros);
    }

    [Fact]
    public void Two_new_environments_have_different_positive_ids()
    {
        using var first = new TempDirectory();
        using var second = new TempDirectory();
        long a, b;
        using (var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = first.Path })) a = env.Header.EnvironmentId;
        using (var env = StorageEnvironment.Open(new StorageEnvironmentOptions { Path = second.Path })) b = env.Header.EnvironmentId;
        Assert.NotEqual(a, b);
        Assert.True(a > 0 && b > 0);
    }
}
