using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using StorageEngine.BTrees;
using StorageEngine.Paging;

namespace StorageEngine.Tests.Unit;

/// <summary>The slotted page layout on a raw page buffer: slot order, free-space accounting, compaction.</summary>
public sealed unsafe class NodeLayoutTests
{
    private const int PageSize = 4096;
    private const int Usable = PageSize - PageHeader.Size;
    private readonly byte[] _pageArray = GC.AllocateArray<byte>(PageSize, pinned: true);
    private readonly byte[] _scratchArray = GC.AllocateArray<byte>(PageSize, pinned: true);

    public NodeLayoutTests() => Node.Initialize(Page, 7, PageFlags.Leaf, PageSize, transactionId: 3);

    private byte* Page => (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_pageArray));

    private byte* Scratch => (byte*)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(_scratchArray));

    private static byte[] LeafEntry(byte[] key, byte[] value)
    {
        var entry = new byte[Node.LeafEntryHeaderSize + key.Length + value.Length];
        MemoryMarshal.Write(entry, (ushort)key.Length);
        entry[2] = Node.InlineValue;
        MemoryMarshal.Write(entry.AsSpan(4), (uint)value.Length);
        key.CopyTo(entry, Node.LeafEntryHeaderSize);
        value.CopyTo(entry, Node.LeafEntryHeaderSize + key.Length);
        return entry;
    }

    private static byte[] BranchEntry(byte[] key, long child)
    {
        var entry = new byte[Node.BranchEntryHeaderSize + key.Length];
        MemoryMarshal.Write(entry, (ushort)key.Length);
        MemoryMarshal.Write(entry.AsSpan(2), child);
        key.CopyTo(entry, Node.BranchEntryHeaderSize);
        return entry;
    }

    /// <summary>Inserts in key order the way the tree does: search, check room, make room, copy.</summary>
    private void Insert(byte[] key, byte[] value)
    {
        int index = Node.SearchLeaf(Page, key, fixedInt64: false, out bool found);
        Assert.False(found);
        var entry = LeafEntry(key, value);
        Assert.True(Node.TotalFree(Page) >= entry.Length + Node.SlotSize, "test bug: the page is full");
        byte* target = Node.Insert(Page, index, entry.Length, PageSize, Scratch);
        entry.CopyTo(new Span<byte>(target, entry.Length));
    }

    private void RemoveKey(byte[] key)
    {
        int index = Node.SearchLeaf(Page, key, fixedInt64: false, out bool found);
        Assert.True(found);
        Node.Remove(Page, index, PageSize);
    }

    private List<(byte[] Key, byte[] Value)> Entries()
    {
        var entries = new List<(byte[], byte[])>();
        for (int i = 0; i < Node.Count(Page); i++)
        {
            byte* entry = Node.Entry(Page, i);
            var value = new ReadOnlySpan<byte>(Node.LeafPayload(entry), (int)Node.LeafValueLength(entry));
            entries.Add((Node.LeafKey(entry).ToArray(), value.ToArray()));
        }
        return entries;
    }

    private static byte[] K(int i) => Encoding.ASCII.GetBytes($"key{i:D4}");

    private static byte[] V(int i) => TestData.Value(i, 10 + i % 23);

    private static int Cost(int i) => Node.LeafEntryHeaderSize + K(i).Length + V(i).Length + Node.SlotSize;

    /// <summary>Entries are sorted, hold what was written, and free space is exactly the page minus header, slots and entries.</summary>
    private void AssertConsistent(SortedDictionary<int, bool> model)
    {
        var entries = Entries();
        Assert.Equal(model.Keys.Select(K), entries.Select(e => e.Key));
        foreach (var (key, value) in entries) Assert.Equal(V(int.Parse(Encoding.ASCII.GetString(key, 3, 4))), value);
        int used = model.Keys.Sum(Cost);
        Assert.Equal(used, Node.UsedBytes(Page, PageSize));
        Assert.Equal(Usable - used, Node.TotalFree(Page));
        var h = Node.Header(Page);
        Assert.Equal(Node.TotalFree(Page), Node.ContiguousFree(Page) + h->FragmentedBytes);
        Assert.Equal(PageHeader.Size + Node.SlotSize * h->Count + Node.ContiguousFree(Page), (int)h->Upper);
    }

    [Fact]
    public void Initialized_page_is_empty_with_every_byte_after_the_header_free()
    {
        var h = Node.Header(Page);
        Assert.Equal(7, h->PageNumber);
        Assert.Equal(3, h->TransactionId);
        Assert.True(Node.IsLeaf(Page));
        Assert.False(Node.IsBranch(Page));
        Assert.Equal(0, Node.Count(Page));
        Assert.Equal(PageSize, (int)h->Upper);
        Assert.Equal(Usable, Node.TotalFree(Page));
        Assert.Equal(Usable, Node.ContiguousFree(Page));
        Assert.Equal(0, Node.UsedBytes(Page, PageSize));
    }

    [Fact]
    public void Inserts_in_random_order_keep_slots_sorted_and_account_every_byte()
    {
        var model = new SortedDictionary<int, bool>();
        foreach (int i in TestData.Shuffled(80, seed: 1))
        {
            if (Node.TotalFree(Page) < Cost(i)) break;
            Insert(K(i), V(i));
            model[i] = true;
            AssertConsistent(model);
        }
        Assert.True(model.Count > 40);
        Assert.Equal(0, Node.Header(Page)->FragmentedBytes);
    }

    [Fact]
    public void Remove_turns_the_entry_into_fragmented_space_and_frees_its_slot_at_once()
    {
        var model = new SortedDictionary<int, bool>();
        for (int i = 0; i < 30; i++)
        {
            Insert(K(i), V(i));
            model[i] = true;
        }
        int contiguousBefore = Node.ContiguousFree(Page);
        int totalBefore = Node.TotalFree(Page);

        RemoveKey(K(11));
        model.Remove(11);

        int entrySize = Cost(11) - Node.SlotSize;
        Assert.Equal(entrySize, (int)Node.Header(Page)->FragmentedBytes);
        Assert.Equal(contiguousBefore + Node.SlotSize, Node.ContiguousFree(Page));
        Assert.Equal(totalBefore + entrySize + Node.SlotSize, Node.TotalFree(Page));
        AssertConsistent(model);
    }

    [Fact]
    public void Removing_the_last_entry_resets_the_page_to_empty()
    {
        Insert(K(1), V(1));
        Insert(K(2), V(2));
        RemoveKey(K(1));
        RemoveKey(K(2));

        var h = Node.Header(Page);
        Assert.Equal(0, Node.Count(Page));
        Assert.Equal(0, (int)h->FragmentedBytes);
        Assert.Equal(PageSize, (int)h->Upper);
        Assert.Equal(Usable, Node.ContiguousFree(Page));
    }

    [Fact]
    public void Insert_compacts_when_only_fragmented_space_can_hold_the_entry()
    {
        var model = new SortedDictionary<int, bool>();
        for (int i = 0; Node.TotalFree(Page) >= Cost(i); i++)
        {
            Insert(K(i), V(i));
            model[i] = true;
        }
        foreach (int i in new[] { 3, 9, 17, 25, 31 })
        {
            RemoveKey(K(i));
            model.Remove(i);
        }
        var big = TestData.Value(999, 60);
        var bigKey = Encoding.ASCII.GetBytes("key0010a");
        int bigSize = Node.LeafEntryHeaderSize + bigKey.Length + big.Length;
        Assert.True(Node.ContiguousFree(Page) < bigSize + Node.SlotSize, "the setup must leave too little contiguous space");
        Assert.True(Node.TotalFree(Page) >= bigSize + Node.SlotSize, "the setup must leave enough fragmented space");
        int totalBefore = Node.TotalFree(Page);

        int index = Node.SearchLeaf(Page, bigKey, false, out _);
        byte* target = Node.Insert(Page, index, bigSize, PageSize, Scratch);
        LeafEntry(bigKey, big).CopyTo(new Span<byte>(target, bigSize));

        Assert.Equal(0, (int)Node.Header(Page)->FragmentedBytes);
        Assert.Equal(totalBefore - bigSize - Node.SlotSize, Node.TotalFree(Page));
        var entries = Entries();
        Assert.Equal(model.Count + 1, entries.Count);
        Assert.Equal(entries.Select(e => e.Key).Order(ByteArrayComparer.Instance), entries.Select(e => e.Key));
        Assert.Equal(big, entries.Single(e => e.Key.AsSpan().SequenceEqual(bigKey)).Value);
        foreach (var (key, value) in entries.Where(e => !e.Key.AsSpan().SequenceEqual(bigKey)))
            Assert.Equal(V(int.Parse(Encoding.ASCII.GetString(key, 3, 4))), value);
    }

    [Fact]
    public void Compact_packs_entries_at_the_page_end_and_keeps_their_order_and_contents()
    {
        var model = new SortedDictionary<int, bool>();
        for (int i = 0; i < 40; i++)
        {
            Insert(K(i), V(i));
            model[i] = true;
        }
        for (int i = 0; i < 40; i += 3)
        {
            RemoveKey(K(i));
            model.Remove(i);
        }
        Assert.NotEqual(0, (int)Node.Header(Page)->FragmentedBytes);
        int total = Node.TotalFree(Page);

        Node.Compact(Page, PageSize, Scratch);

        Assert.Equal(0, (int)Node.Header(Page)->FragmentedBytes);
        Assert.Equal(total, Node.ContiguousFree(Page));
        Assert.Equal(PageSize - model.Keys.Sum(i => Cost(i) - Node.SlotSize), (int)Node.Header(Page)->Upper);
        AssertConsistent(model);
    }

    [Fact]
    public void Compact_of_an_unfragmented_page_changes_nothing()
    {
        for (int i = 0; i < 10; i++) Insert(K(i), V(i));
        var before = _pageArray.ToArray();

        Node.Compact(Page, PageSize, Scratch);

        Assert.Equal(before, _pageArray);
    }

    [Fact]
    public void SearchLeaf_returns_the_insertion_point_of_absent_keys()
    {
        for (int i = 10; i < 50; i += 10) Insert(K(i), V(i));

        Assert.Equal(0, Node.SearchLeaf(Page, K(5), false, out bool found));
        Assert.False(found);
        Assert.Equal(1, Node.SearchLeaf(Page, K(20), false, out found));
        Assert.True(found);
        Assert.Equal(2, Node.SearchLeaf(Page, K(25), false, out found));
        Assert.False(found);
        Assert.Equal(4, Node.SearchLeaf(Page, K(99), false, out found));
        Assert.False(found);
    }

    [Fact]
    public void SearchBranch_picks_the_last_child_whose_key_is_at_or_below_the_key()
    {
        Node.Initialize(Page, 7, PageFlags.Branch, PageSize, 3);
        byte[][] keys = [[], "b"u8.ToArray(), "d"u8.ToArray(), "f"u8.ToArray()];
        for (int i = 0; i < keys.Length; i++)
        {
            var entry = BranchEntry(keys[i], 100 + i);
            fixed (byte* e = entry) Node.Append(Page, e, entry.Length);
        }

        Assert.Equal(0, Node.SearchBranch(Page, "a"u8, false));
        Assert.Equal(1, Node.SearchBranch(Page, "b"u8, false));
        Assert.Equal(1, Node.SearchBranch(Page, "c"u8, false));
        Assert.Equal(2, Node.SearchBranch(Page, "d"u8, false));
        Assert.Equal(3, Node.SearchBranch(Page, "zz"u8, false));
        Assert.Equal(102, Node.Child(Node.Entry(Page, 2)));
    }

    [Fact]
    public void ClearFirstBranchKey_makes_entry_zero_minus_infinity_and_counts_the_key_bytes_as_fragmented()
    {
        Node.Initialize(Page, 7, PageFlags.Branch, PageSize, 3);
        var first = BranchEntry("mmm"u8.ToArray(), 5);
        var second = BranchEntry("q"u8.ToArray(), 6);
        fixed (byte* e = first) Node.Append(Page, e, first.Length);
        fixed (byte* e = second) Node.Append(Page, e, second.Length);
        int totalBefore = Node.TotalFree(Page);

        Node.ClearFirstBranchKey(Page);

        Assert.Equal(0, Node.KeyLength(Node.Entry(Page, 0)));
        Assert.Equal(5, Node.Child(Node.Entry(Page, 0)));
        Assert.Equal(totalBefore + 3, Node.TotalFree(Page));
        Node.Compact(Page, PageSize, Scratch);
        Assert.Equal(5, Node.Child(Node.Entry(Page, 0)));
        Assert.Equal("q"u8.ToArray(), Node.BranchKey(Node.Entry(Page, 1)).ToArray());
        Assert.Equal(totalBefore + 3, Node.ContiguousFree(Page));
    }
}
