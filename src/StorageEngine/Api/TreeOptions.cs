namespace StorageEngine;

/// <summary>Properties of a tree, fixed when it is created.</summary>
[Flags]
public enum TreeOptions
{
    /// <summary>Keys are byte strings of 1 to <see cref="StorageEnvironment.MaxKeySize"/> bytes, ordered bytewise.</summary>
    None = 0,

    /// <summary>
    /// Keys are 64-bit signed integers (the <c>long</c> overloads), stored as 8 bytes so that byte order is
    /// numeric order, and searched with integer comparisons.
    /// </summary>
    Int64Keys = 1,
}
