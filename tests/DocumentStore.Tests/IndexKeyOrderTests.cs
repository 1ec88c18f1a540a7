namespace DocumentStore.Tests;

public sealed class IndexKeyOrderTests
{
    [Fact]
    public void Encoded_numbers_sort_bytewise_in_numeric_order()
    {
        var random = new Random(7);
        var numbers = new List<double> { double.NegativeInfinity, -1e300, -2.5, -1, -double.Epsilon, 0, double.Epsilon, 0.5, 1, 2, 1e300, double.PositiveInfinity };
        for (int i = 0; i < 500; i++) numbers.Add((random.NextDouble() - 0.5) * Math.Pow(10, random.Next(-10, 12)));
        AssertSameOrder(numbers, (a, b) => a.CompareTo(b), n => IndexKeys.EncodeNumber(n));
    }

    [Fact]
    public void Encoded_strings_sort_bytewise_in_code_point_order_even_with_embedded_zeros()
    {
        var strings = new List<string> { "", "a", "a\0", "a\0b", "a\u0001", "ab", "b", "Z", "é", "日本", "😀", "\0", "\0\0" };
        AssertSameOrder(strings, string.CompareOrdinal, IndexKeys.EncodeString);
    }

    [Fact]
    public void Negative_zero_and_positive_zero_are_one_value()
    {
        Assert.Equal(IndexKeys.EncodeNumber(0.0), IndexKeys.EncodeNumber(-0.0));
    }

    [Fact]
    public void Types_sort_null_then_booleans_then_numbers_then_strings()
    {
        byte[][] ordered = [IndexKeys.EncodeNull(), IndexKeys.EncodeBoolean(false), IndexKeys.EncodeBoolean(true),
            IndexKeys.EncodeNumber(double.NegativeInfinity), IndexKeys.EncodeNumber(double.PositiveInfinity), IndexKeys.EncodeString("")];
        for (int i = 1; i < ordered.Length; i++) Assert.True(ordered[i - 1].AsSpan().SequenceCompareTo(ordered[i]) < 0);
    }

    private static void AssertSameOrder<T>(List<T> values, Comparison<T> compare, Func<T, byte[]> encode)
    {
        foreach (var a in values)
        {
            foreach (var b in values)
            {
                int expected = Math.Sign(compare(a, b));
                // Keys of different documents with these values must order the same way as the values.
                int actual = Math.Sign(IndexKeys.Key(encode(a), "x"u8).AsSpan().SequenceCompareTo(IndexKeys.Key(encode(b), "y"u8)));
                if (expected != 0) Assert.True(expected == actual, $"{a} vs {b}: expected {expected}, got {actual}");
            }
        }
    }
}
