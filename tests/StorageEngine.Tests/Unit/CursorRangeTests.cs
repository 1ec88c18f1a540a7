namespace StorageEngine.Tests.Unit;

/// <summary>Cursors limited by a <see cref="KeyRange"/> stop at its bounds in both directions.</summary>
public sealed class CursorRangeTests : IClassFixture<CursorTreeFixture>
{
    private readonly CursorTreeFixture _fixture;

    public CursorRangeTests(CursorTreeFixture fixture) => _fixture = fixture;

    private List<byte[]> Expected(KeyRange range) => _fixture.Keys.Where(k => range.Contains(k)).ToList();

    public static TheoryData<byte[], byte[]?> Bounds => new()
    {
        { "B"u8.ToArray(), "D"u8.ToArray() },
        { "BA"u8.ToArray(), "BAC"u8.ToArray() },
        { "CCC"u8.ToArray(), "CCCA"u8.ToArray() },
        { [0x00], "A"u8.ToArray() },
        { "E"u8.ToArray(), [0xFF] },
        { "C"u8.ToArray(), "C"u8.ToArray() },
        { "D"u8.ToArray(), null },
        { [0x00], null },
        { "ZZ"u8.ToArray(), null },
    };

    private void AssertRangeScans(KeyRange range)
    {
        using var tx = _fixture.Environment.BeginRead();
        var tree = tx.OpenTree("t");
        var expected = Expected(range);

        TestData.AssertSameBytes(expected, TestData.Scan(tree, range).Select(e => e.Key));
        expected.Reverse();
        TestData.AssertSameBytes(expected, TestData.ScanKeysBackward(tree, range));
    }

    [Theory]
    [MemberData(nameof(Bounds))]
    public void Between_and_From_scan_exactly_the_keys_in_range_both_ways(byte[] start, byte[]? end)
    {
        AssertRangeScans(end is null ? KeyRange.From(start) : KeyRange.Between(start, end));
    }

    [Theory]
    [InlineData("A")]
    [InlineData("BC")]
    [InlineData("DEF")]
    [InlineData("CCCCC")]
    [InlineData("Z")]
    public void Prefix_scans_exactly_the_keys_that_start_with_it_both_ways(string prefix)
    {
        var bytes = TestData.Utf8(prefix);
        var range = KeyRange.Prefix(bytes);
        Assert.All(Expected(range), k => Assert.True(k.AsSpan().StartsWith(bytes)));
        Assert.Equal(_fixture.Keys.Count(k => k.AsSpan().StartsWith(bytes)), Expected(range).Count);
        AssertRangeScans(range);
    }

    [Fact]
    public void Prefix_ending_in_0xFF_bytes_ends_after_the_last_byte_that_can_be_incremented()
    {
        var range = KeyRange.Prefix([0x41, 0xFF, 0xFF]);
        Assert.Equal(new byte[] { 0x42 }, range.End);
        Assert.True(range.Contains([0x41, 0xFF, 0xFF, 0x00]));
        Assert.False(range.Contains([0x41, 0xFF, 0xFE, 0xFF]));
        Assert.Null(KeyRange.Prefix([0xFF, 0xFF]).End);
        Assert.Null(KeyRange.Prefix(ReadOnlySpan<byte>.Empty).Start);
    }

    [Fact]
    public void Prefix_with_0xFF_bytes_finds_its_keys_at_the_end_of_the_key_space()
    {
        using var tx = _fixture.Environment.BeginRead();
        var keys = TestData.Scan(tx.OpenTree("t"), KeyRange.Prefix([0xFE, 0xFF])).Select(e => e.Key).ToList();
        Assert.Equal(new byte[] { 0xFE, 0xFF }, Assert.Single(keys));
    }

    [Fact]
    public void Next_and_Previous_stop_at_the_range_bounds()
    {
        var range = KeyRange.Between("BB"u8, "BD"u8);
        var expected = Expected(range);
        Assert.True(expected.Count > 3);
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor(range);

        Assert.True(cursor.Last());
        Assert.Equal(expected[^1], cursor.Key.ToArray());
        Assert.False(cursor.Next());
        Assert.False(cursor.IsValid);

        Assert.True(cursor.First());
        Assert.Equal(expected[0], cursor.Key.ToArray());
        Assert.False(cursor.Previous());
        Assert.False(cursor.IsValid);
    }

    [Fact]
    public void Seek_outside_the_range_clamps_to_it_or_finds_nothing()
    {
        var range = KeyRange.Between("BB"u8, "BD"u8);
        var expected = Expected(range);
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor(range);

        Assert.True(cursor.Seek("A"u8));
        Assert.Equal(expected[0], cursor.Key.ToArray());
        Assert.False(cursor.Seek("BD"u8));
        Assert.False(cursor.Seek("E"u8));

        Assert.True(cursor.SeekAtOrBefore("E"u8));
        Assert.Equal(expected[^1], cursor.Key.ToArray());
        Assert.False(cursor.SeekAtOrBefore("BA"u8));

        Assert.True(cursor.Seek("BC"u8));
        Assert.Equal(expected.First(k => ByteArrayComparer.Instance.Compare(k, "BC"u8.ToArray()) >= 0), cursor.Key.ToArray());
    }

    [Fact]
    public void Empty_ranges_find_nothing()
    {
        using var tx = _fixture.Environment.BeginRead();
        var tree = tx.OpenTree("t");
        using var between = tree.CreateCursor(KeyRange.Between("C"u8, "C"u8));
        Assert.False(between.First());
        Assert.False(between.Last());
        using var noMatch = tree.CreateCursor(KeyRange.Prefix("Q"u8));
        Assert.False(noMatch.First());
        Assert.False(noMatch.Last());
        Assert.False(noMatch.Seek("Q"u8));
    }

    [Fact]
    public void A_range_whose_start_is_after_its_end_is_rejected()
    {
        Assert.Throws<ArgumentException>(() => KeyRange.Between("b"u8, "a"u8));
    }
}
