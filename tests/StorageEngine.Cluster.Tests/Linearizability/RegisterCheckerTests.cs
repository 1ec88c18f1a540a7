namespace StorageEngine.Cluster.Tests.Linearizability;

/// <summary>The checker itself: it must accept what is linearizable and catch what is not, or its verdicts on the cluster mean nothing.</summary>
public sealed class RegisterCheckerTests
{
    private static RegisterOperation Write(int client, string value, long invoked, long completed) => new(client, "k", true, value, invoked, completed);
    private static RegisterOperation Read(int client, string? value, long invoked, long completed) => new(client, "k", false, value, invoked, completed);

    [Fact]
    public void Overlapping_writes_may_be_read_in_either_order()
    {
        Assert.Null(RegisterChecker.Check([Write(0, "a", 0, 10), Write(1, "b", 1, 11), Read(2, "a", 12, 13)]));
        Assert.Null(RegisterChecker.Check([Write(0, "a", 0, 10), Write(1, "b", 1, 11), Read(2, "b", 12, 13)]));
    }

    [Fact]
    public void A_stale_read_after_a_completed_write_is_caught()
    {
        Assert.NotNull(RegisterChecker.Check([Write(0, "a", 0, 1), Write(0, "b", 2, 3), Read(1, "a", 4, 5)]));
        Assert.NotNull(RegisterChecker.Check([Write(0, "a", 0, 1), Read(1, null, 2, 3)]));
    }

    [Fact]
    public void A_write_of_unknown_outcome_may_take_effect_late_or_never_but_not_before_it_was_invoked()
    {
        Assert.Null(RegisterChecker.Check([Write(0, "a", 0, long.MaxValue), Read(1, null, 1, 2), Read(1, "a", 30, 31)]));
        Assert.Null(RegisterChecker.Check([Write(0, "a", 0, long.MaxValue), Read(1, null, 1, 2), Read(1, null, 30, 31)]));
        Assert.NotNull(RegisterChecker.Check([Read(1, "a", 0, 1), Write(0, "a", 2, long.MaxValue)]));
    }

    [Fact]
    public void Reads_going_back_in_time_are_caught()
    {
        Assert.NotNull(RegisterChecker.Check([Write(0, "a", 0, 1), Write(0, "b", 2, long.MaxValue), Read(1, "b", 3, 4), Read(1, "a", 5, 6)]));
    }
}
