namespace StorageEngine.CrashChild;

/// <summary>One change of a workload transaction: a put when <see cref="Value"/> is not null, else a delete.</summary>
public readonly record struct WorkloadOperation(string Key, byte[]? Value)
{
    public bool IsDelete => Value is null;
}
