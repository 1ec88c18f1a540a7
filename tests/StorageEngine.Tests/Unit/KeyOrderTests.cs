using StorageEngine.BTrees;

namespace StorageEngine.Tests.Unit;

/// <summary>The key order trees search by is exactly bytewise order, at every length and shared prefix.</summary>
public sealed class KeyOrderTests
{
    [Theory]
    [InlineData(new byte[] { 1 }, new byte[] { 2 })]
    [InlineData(new byte[] { 1, 2, 3 }, new byte[] { 1, 2, 3, 0 })]
    [InlineData(new byte[] { 0, 0, 0, 0, 0, 0, 0, 0, 0x01 }, new byte[] { 0, 0, 0, 0, 0, 0, 0, 0, 0x80 })]
    [InlineData(new byte[] { 0x7F, 0, 0, 0, 0, 0, 0, 0xFF }, new byte[] { 0x80, 0, 0, 0, 0, 0, 0, 0 })]
    [InlineData(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 }, new byte[] { 1, 2, 3, 4, 5, 6, 7, 8, 9 })]
    public void A_smaller_key_sorts_first(byte[] smaller, byte[] larger)
    {
        Assert.True(KeyOrder.Compare(smaller, larger) < 0);
        Assert.True(KeyOrder.Compare(larger, smaller) > 0);
        Assert.Equal(0, KeyOrder.Compare(smaller, smaller.ToArray()));
    }

    [Fact]
    public void Agrees_with_bytewise_comparison_on_random_keys()
    {
        var random = new Random(20261121);
        for (int i = 0; i < 200_000; i++)
        {
            // Short alphabets and shared prefixes, so that equal words, late differences and prefixes all occur.
            var a = RandomKey(random);
            var b = random.Next(4) == 0 ? Mutate(a, random) : RandomKey(random);
            int expected = Math.Sign(a.AsSpan().SequenceCompareTo(b));
            Assert.Equal(expected, Math.Sign(KeyOrder.Compare(a, b)));
        }
    }

    private static byte[] RandomKey(Random random)
    {
        var key = new byte[random.Next(0, random.Next(2) == 0 ? 20 : 130)];
        for (int i = 0; i < key.Length; i++) key[i] = (byte)(random.Next(3) == 0 ? random.Next(256) : random.Next(2) * 255);
        return key;
    }

    private static byte[] Mutate(byte[] key, Random random)
    {
        var copy = key.ToArray();
        if (copy.Length > 0 && random.Next(2) == 0) copy[random.Next(copy.Length)] ^= (byte)(1 << random.Next(8));
        else Array.Resize(ref copy, Math.Max(0, copy.Length + random.Next(-2, 3)));
        return copy;
    }
}
