namespace StorageEngine;

/// <summary>Receives one entry read by <see cref="TreeSalvage.Salvage"/>; the spans are valid during the call only.</summary>
public delegate void SalvageVisitor(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value);
