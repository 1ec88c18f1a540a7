namespace StorageEngine.Paging;

/// <summary>
/// A set of page numbers kept as one bit per page, word-aligned with the page numbers, so the allocator can
/// mask whole words of a bitmap page with it instead of asking about each page.
/// </summary>
internal sealed class PageSet
{
    private ulong[] _words = new ulong[64];

    /// <summary>How many pages the set holds.</summary>
    public long Count { get; private set; }

    /// <summary>The 64 bits for pages [64 × index, 64 × index + 64), bit i for page 64 × index + i.</summary>
    public ulong Word(long index) => index < _words.Length ? _words[index] : 0;

    public bool Contains(long page) => (Word(page >> 6) & (1UL << (int)(page & 63))) != 0;

    /// <summary>Adds the page; false when it was already there.</summary>
    public bool Add(long page)
    {
        long index = page >> 6;
        if (index >= _words.Length)
            Array.Resize(ref _words, (int)Math.Max(index + 1, Math.Min(_words.Length * 2L, Array.MaxLength)));
        ulong mask = 1UL << (int)(page & 63);
        if ((_words[index] & mask) != 0) return false;
        _words[index] |= mask;
        Count++;
        return true;
    }

    /// <summary>Removes the page; false when it was not there.</summary>
    public bool Remove(long page)
    {
        long index = page >> 6;
        if (index >= _words.Length) return false;
        ulong mask = 1UL << (int)(page & 63);
        if ((_words[index] & mask) == 0) return false;
        _words[index] &= ~mask;
        Count--;
        return true;
    }
}
