namespace StorageEngine.Cluster.Tests.Linearizability;

/// <summary>
/// One call on a register (a key): a write of a unique value or a linearizable read and the value it returned
/// (null: absent). Times are stopwatch ticks; a write whose outcome is unknown never completes
/// (<see cref="long.MaxValue"/>): it may take effect at any point after its invocation, or not at all.
/// </summary>
internal sealed record RegisterOperation(int Client, string Key, bool IsWrite, string? Value, long Invoked, long Completed)
{
    public bool IsPending => Completed == long.MaxValue;

    public override string ToString() =>
        $"client {Client} {(IsWrite ? "write" : "read")} {Key}={Value ?? "absent"} [{Invoked}, {(IsPending ? "unknown" : Completed.ToString())}]";
}
