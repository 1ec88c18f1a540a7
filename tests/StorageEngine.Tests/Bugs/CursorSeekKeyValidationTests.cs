namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Cursor.Seek and SeekAtOrBefore accepted empty and oversized keys (and keys of the wrong length in a tree of
/// integer keys) that Put and TryGet reject. They now refuse them with the same ArgumentException.
/// </summary>
public sealed class CursorSeekKeyValidationTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Seek_refuses_the_keys_that_Put_refuses_with_the_same_ArgumentException(bool writable)
    {
        using var environment = StorageEnvironment.CreateInMemory();
        using (var setup = environment.BeginWrite())
        {
            setup.CreateTree("bytes").Put("k"u8, "v"u8);
            setup.CreateTree("integers", TreeOptions.Int64Keys).Put(1L, "v"u8);
            setup.Commit();
        }
        using Transaction transaction = writable ? environment.BeginWrite() : environment.BeginRead();
        var bytes = transaction.OpenTree("bytes");
        var integers = transaction.OpenTree("integers");
        var cases = new (Tree Tree, byte[] Key)[]
        {
            (bytes, []),
            (bytes, new byte[environment.MaxKeySize + 1]),
            (integers, []),
            (integers, "abc"u8.ToArray()),
        };
        foreach (var (tree, key) in cases)
        {
            var expected = Assert.IsType<ArgumentException>(Record.Exception(() => tree.TryGet(key, out _)));
            using var cursor = tree.CreateCursor();
            var seek = Assert.IsType<ArgumentException>(Record.Exception(() => cursor.Seek(key)));
            var seekBefore = Assert.IsType<ArgumentException>(Record.Exception(() => cursor.SeekAtOrBefore(key)));
            Assert.Equal(expected.Message, seek.Message);
            Assert.Equal(expected.Message, seekBefore.Message);
            Assert.Equal("key", seek.ParamName);
        }

        // The longest key is still accepted, and a refused seek leaves the cursor usable.
        using (var cursor = bytes.CreateCursor())
        {
            Assert.False(cursor.Seek(Enumerable.Repeat((byte)0xFF, environment.MaxKeySize).ToArray()));
            Assert.True(cursor.SeekAtOrBefore(Enumerable.Repeat((byte)0xFF, environment.MaxKeySize).ToArray()));
            Assert.Equal("k"u8.ToArray(), cursor.Key.ToArray());
        }
        if (transaction is WriteTransaction write) write.Commit();
    }
}
