namespace StorageEngine.Tests.Unit;

/// <summary>Full scans in both directions, Seek and SeekAtOrBefore against a sorted model.</summary>
public sealed class CursorTests : IClassFixture<CursorTreeFixture>
{
    private readonly CursorTreeFixture _fixture;

    public CursorTests(CursorTreeFixture fixture) => _fixture = fixture;

    private IReadOnlyList<byte[]> Keys => _fixture.Keys;

    /// <summary>Probes between, before and after the model's keys.</summary>
    private IEnumerable<byte[]> Probes()
    {
        var random = new Random(5);
        for (int i = 0; i < 300; i++)
        {
            var probe = new byte[random.Next(1, 11)];
            for (int j = 0; j < probe.Length; j++) probe[j] = (byte)(0x3F + random.Next(0, 8));
            yield return probe;
        }
        yield return [0x00];
        yield return [0x01, 0x00];
        yield return [0xFF];
        yield return [0xFE, 0xFF, 0x00];
    }

    [Fact]
    public void Forward_scan_visits_every_key_in_bytewise_order_with_its_value()
    {
        using var tx = _fixture.Environment.BeginRead();
        var scanned = TestData.Scan(tx.OpenTree("t"));

        TestData.AssertSameBytes(Keys, scanned.Select(e => e.Key));
        TestData.AssertSameBytes(Keys.Select(CursorTreeFixture.ValueOf), scanned.Select(e => e.Value));
    }

    [Fact]
    public void Backward_scan_visits_every_key_in_reverse_order()
    {
        using var tx = _fixture.Environment.BeginRead();

        TestData.AssertSameBytes(Keys.Reverse(), TestData.ScanKeysBackward(tx.OpenTree("t")));
    }

    [Fact]
    public void Direction_can_change_at_any_point_of_a_scan()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        Assert.True(cursor.First());
        for (int i = 0; i < 500; i++) Assert.True(cursor.Next());
        Assert.Equal(Keys[500], cursor.Key.ToArray());
        Assert.True(cursor.Previous());
        Assert.Equal(Keys[499], cursor.Key.ToArray());
        Assert.True(cursor.Next());
        Assert.True(cursor.Next());
        Assert.Equal(Keys[501], cursor.Key.ToArray());
    }

    [Fact]
    public void Moving_past_either_end_returns_false_and_leaves_the_cursor_off_an_entry()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        Assert.True(cursor.Last());
        Assert.Equal(Keys[^1], cursor.Key.ToArray());
        Assert.False(cursor.Next());
        Assert.False(cursor.IsValid);
        Assert.Throws<InvalidOperationException>(() => cursor.Key.ToArray());

        Assert.True(cursor.First());
        Assert.Equal(Keys[0], cursor.Key.ToArray());
        Assert.False(cursor.Previous());
        Assert.False(cursor.IsValid);
    }

    [Fact]
    public void Seek_to_an_existing_key_lands_on_it()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        for (int i = 0; i < Keys.Count; i += 7)
        {
            Assert.True(cursor.Seek(Keys[i]));
            Assert.Equal(Keys[i], cursor.Key.ToArray());
            Assert.Equal(CursorTreeFixture.ValueOf(Keys[i]), cursor.Value.ToArray());
        }
    }

    [Fact]
    public void Seek_between_keys_lands_on_the_next_key_and_past_the_last_finds_nothing()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        foreach (var probe in Probes())
        {
            int expected = _fixture.LowerBound(probe);
            bool found = cursor.Seek(probe);
            Assert.Equal(expected < Keys.Count, found);
            if (found)
            {
                Assert.Equal(Keys[expected], cursor.Key.ToArray());
                // The scan continues from there.
                Assert.Equal(expected + 1 < Keys.Count, cursor.Next());
                if (expected + 1 < Keys.Count) Assert.Equal(Keys[expected + 1], cursor.Key.ToArray());
            }
            else
            {
                Assert.False(cursor.IsValid);
            }
        }
    }

    [Fact]
    public void Seek_before_the_first_key_lands_on_the_first()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        Assert.True(cursor.Seek([0x00]));
        Assert.Equal(Keys[0], cursor.Key.ToArray());
        Assert.False(cursor.Previous());
    }

    [Fact]
    public void SeekAtOrBefore_lands_on_the_last_key_at_or_below_the_probe()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        foreach (var probe in Probes().Concat(Keys.Where((_, i) => i % 11 == 0)))
        {
            int lower = _fixture.LowerBound(probe);
            bool exact = lower < Keys.Count && Keys[lower].AsSpan().SequenceEqual(probe);
            int expected = exact ? lower : lower - 1;
            bool found = cursor.SeekAtOrBefore(probe);
            Assert.Equal(expected >= 0, found);
            if (found) Assert.Equal(Keys[expected], cursor.Key.ToArray());
        }
    }

    [Fact]
    public void SeekAtOrBefore_past_the_last_key_lands_on_the_last_and_before_the_first_finds_nothing()
    {
        using var tx = _fixture.Environment.BeginRead();
        using var cursor = tx.OpenTree("t").CreateCursor();
        Assert.True(cursor.SeekAtOrBefore([0xFF, 0xFF]));
        Assert.Equal(Keys[^1], cursor.Key.ToArray());
        Assert.True(cursor.Previous());
        Assert.Equal(Keys[^2], cursor.Key.ToArray());

        Assert.False(cursor.SeekAtOrBefore([0x00]));
        Assert.False(cursor.IsValid);
    }

    [Fact]
    public void Cursor_on_an_empty_tree_finds_nothing()
    {
        using var env = StorageEnvironment.CreateInMemory();
        using var tx = env.BeginWrite();
        using var cursor = tx.CreateTree("empty").CreateCursor();
        Assert.False(cursor.First());
        Assert.False(cursor.Last());
        Assert.False(cursor.Seek("a"u8));
        Assert.False(cursor.SeekAtOrBefore("a"u8));
        Assert.False(cursor.Next());
        Assert.False(cursor.Previous());
    }
}
