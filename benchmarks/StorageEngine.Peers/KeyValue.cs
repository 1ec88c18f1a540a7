namespace StorageEngine.Peers;

/// <summary>One put of a batch; the memory may be a slice of a reused buffer, valid for the call only.</summary>
public readonly record struct KeyValue(ReadOnlyMemory<byte> Key, ReadOnlyMemory<byte> Value);
