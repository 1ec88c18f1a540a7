namespace DocumentStore;

/// <summary>
/// A value to look up in an index: null, a boolean, a number or a string, as in JSON. Implicit conversions
/// let callers write <c>IndexRange.Equal("Oslo")</c> or <c>IndexRange.Between(18, 65)</c>.
/// </summary>
public readonly struct IndexValue
{
    private readonly byte[]? _encoded;

    private IndexValue(byte[] encoded) => _encoded = encoded;

    internal byte[] Encoded => _encoded ?? throw new InvalidOperationException("default(IndexValue) is not a value; use IndexValue.Null for JSON null.");

    /// <summary>JSON null.</summary>
    public static IndexValue Null => new(IndexKeys.EncodeNull());

    /// <summary>A string value (ordered by Unicode code point).</summary>
    public static implicit operator IndexValue(string value) => new(IndexKeys.EncodeString(value ?? throw new ArgumentNullException(nameof(value))));

    /// <summary>A number value.</summary>
    public static implicit operator IndexValue(double value) => new(IndexKeys.EncodeNumber(value));

    /// <summary>A number value (exact up to 2^53, as in JSON).</summary>
    public static implicit operator IndexValue(long value) => new(IndexKeys.EncodeNumber(value));

    /// <summary>A number value.</summary>
    public static implicit operator IndexValue(decimal value) => new(IndexKeys.EncodeNumber((double)value));

    /// <summary>A boolean value.</summary>
    public static implicit operator IndexValue(bool value) => new(IndexKeys.EncodeBoolean(value));
}
