using StorageEngine.Paging;

namespace StorageEngine.BTrees;

// Changes: copy-on-write descent, insert with splits, delete with merges.
internal sealed unsafe partial class BTree
{
    private int Usable => _pageSize - PageHeader.Size;

    // Scratch memory of the writer (one writer at a time), laid out as:
    // [0, P) page copy for compaction and splits, [P, 2P) the entry being inserted,
    // [2P, 4P) entry pointers and sizes of a split, then one separator buffer of P/2 bytes per level, then the
    // descent path of the current change (level 0 the root, Depth - 1 the leaf): page numbers, page pointers
    // and slot indexes. In the writer's scratch rather than in each tree, so that opening a tree to change
    // it allocates nothing; one change at a time uses it.
    private byte* PageCopy => ScratchBase;
    private byte* EntryBuffer => ScratchBase + _pageSize;
    private nint* SplitEntries => (nint*)(ScratchBase + 2 * _pageSize);
    private int* SplitSizes => (int*)(ScratchBase + 2 * _pageSize + _pageSize);
    private byte* SeparatorBuffer(int level) => ScratchBase + 4 * _pageSize + level * (_pageSize / 2);
    private long* PathPage => (long*)(ScratchBase + PathOffset(_pageSize));
    private nint* PathPtr => (nint*)(ScratchBase + PathOffset(_pageSize) + MaxDepth * sizeof(long));
    private int* PathIndex => (int*)(ScratchBase + PathOffset(_pageSize) + MaxDepth * (sizeof(long) + sizeof(nint)));
    // After the path: a counter of changes, bumped by every change to any tree of the writer (see Touch), which
    // tells a tree whether the path is still the one its last append left.
    private long* ChangeStamp => (long*)(ScratchBase + PathOffset(_pageSize) + MaxDepth * (sizeof(long) + sizeof(nint) + sizeof(int)));
    private byte* ScratchBase => _sink is null ? Sink.Scratch : _scratch;

    private static int PathOffset(int pageSize) => 4 * pageSize + MaxDepth * (pageSize / 2);

    /// <summary>Bytes of scratch memory a writer must provide for trees of this page size.</summary>
    public static int ScratchSizeFor(int pageSize) => PathOffset(pageSize) + MaxDepth * (sizeof(long) + sizeof(nint) + sizeof(int)) + sizeof(long);

    /// <summary>Inserts or overwrites.</summary>
    public void Put(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
    {
        var sink = Sink;
        bool appending = AppendPathHolds(key);
        bool reusing = !appending && LeafPathHolds(key);
        Touch();
        bool rightmost = appending || (reusing ? _leafPathRightmost : DescendForWrite(key));
        int leafLevel = _header.Depth - 1;
        byte* leaf = (byte*)PathPtr[leafLevel];
        bool found = false;
        int index = appending ? Node.Count(leaf) : Node.SearchLeaf(leaf, key, _fixedInt64, out found);
        // A value no larger than its overflow reference stays inline even beside a long key.
        bool overflow = value.Length > Node.OverflowReferenceSize
            && Node.LeafEntrySize(key.Length, value.Length, overflow: false) > MaxInlineEntrySize;
        if (found)
        {
            byte* old = Node.Entry(leaf, index);
            if (!overflow && Node.LeafKind(old) == Node.InlineValue && Node.LeafValueLength(old) == (uint)value.Length)
            {
                value.CopyTo(new Span<byte>(Node.LeafPayload(old), value.Length));
                _leafPathStamp = *ChangeStamp;
                return;
            }
            FreeValue(old);
            Node.Remove(leaf, index, _pageSize);
            _header.EntryCount--;
        }

        byte* entry = EntryBuffer;
        *(ushort*)entry = (ushort)key.Length;
        entry[2] = overflow ? Node.OverflowValue : Node.InlineValue;
        entry[3] = 0;
        *(uint*)(entry + 4) = (uint)value.Length;
        key.CopyTo(new Span<byte>(entry + Node.LeafEntryHeaderSize, key.Length));
        byte* payload = entry + Node.LeafEntryHeaderSize + key.Length;
        if (overflow)
        {
            int pages = OverflowPageCount(value.Length);
            byte* run = sink.AllocateOverflow(pages, out long first);
            value.CopyTo(new Span<byte>(run, value.Length));
            new Span<byte>(run + value.Length, pages * _pageSize - value.Length).Clear();
            *(long*)payload = first;
            *(uint*)(payload + 8) = ValueChecksum(value);
            _header.OverflowPages += pages;
        }
        else
        {
            value.CopyTo(new Span<byte>(payload, value.Length));
        }
        _header.EntryCount++;
        int size = Node.LeafEntrySize(key.Length, value.Length, overflow);
        bool atEnd = rightmost && index == Node.Count(leaf);
        bool inPlace = InsertEntry(leafLevel, index, entry, size, atEnd);
        // Appended to the last leaf without a split: the path still leads there.
        _appendStamp = atEnd && inPlace ? *ChangeStamp : 0;
        _leafPathStamp = inPlace ? *ChangeStamp : 0;
    }

    /// <summary>
    /// True when the descent path in the scratch is the one this tree's last put left after appending to its last
    /// leaf, no change to any tree came since, and <paramref name="key"/> sorts after that leaf's last key: the key
    /// then belongs at the end of that leaf, whose copy-on-write path is already made, and a sequential load skips
    /// the descent (a fifth of a sequential put's time).
    /// </summary>
    private bool AppendPathHolds(ReadOnlySpan<byte> key)
    {
        if (_appendStamp == 0 || _appendStamp != *ChangeStamp) return false;
        byte* leaf = (byte*)PathPtr[_header.Depth - 1];
        int count = Node.Count(leaf);
        return count > 0 && KeyOrder.Compare(key, Node.LeafKey(Node.Entry(leaf, count - 1))) > 0;
    }

    /// <summary>Removes a key; false when it was not there (and then nothing is written).</summary>
    public bool Delete(ReadOnlySpan<byte> key)
    {
        byte* probe = FindLeaf(key);
        Node.SearchLeaf(probe, key, _fixedInt64, out bool present);
        if (!present) return false;

        _ = Sink;
        Touch();
        DescendForWrite(key);
        int leafLevel = _header.Depth - 1;
        byte* leaf = (byte*)PathPtr[leafLevel];
        int index = Node.SearchLeaf(leaf, key, _fixedInt64, out bool found);
        if (!found) throw _source.Corruption(PathPage[leafLevel], "a key found by a read descent vanished on the write descent.");
        FreeValue(Node.Entry(leaf, index));
        Node.Remove(leaf, index, _pageSize);
        _header.EntryCount--;
        Rebalance(leafLevel);
        return true;
    }

    /// <summary>Frees every page of the tree (for dropping it).</summary>
    public void FreeAllPages()
    {
        var sink = Sink;
        Touch();
        FreeSubtree(sink, _header.RootPage, CheckedDepth());
        _header = default;
    }

    private void FreeSubtree(IPageSink sink, long pageNumber, int level)
    {
        byte* page = GetNode(pageNumber, level);
        int count = Node.Count(page);
        if (level > 1)
        {
            // Children first: the page pointer stays valid because freeing never overwrites a page of this snapshot.
            for (int i = 0; i < count; i++) FreeSubtree(sink, Node.Child(Node.Entry(page, i)), level - 1);
        }
        else
        {
            for (int i = 0; i < count; i++) FreeValue(Node.Entry(page, i));
        }
        sink.FreePage(pageNumber);
    }

    /// <summary>
    /// Walks from the root to the leaf for <paramref name="key"/>, making every page on the way writable and
    /// repointing parents at the copies. Returns whether the path ran along the right edge of the tree.
    /// </summary>
    private bool DescendForWrite(ReadOnlySpan<byte> key)
    {
        var sink = Sink;
        long pageNumber = _header.RootPage;
        int depth = CheckedDepth();
        byte* page = sink.Modify(pageNumber, out long newNumber);
        _header.RootPage = newNumber;
        bool rightmost = true;
        int leafLevel = depth - 1;
        ClearLeafBounds();
        for (int level = 0; level < leafLevel; level++)
        {
            CheckNode(page, newNumber, depth - level);
            int index = Node.SearchBranch(page, key, _fixedInt64);
            rightmost &= index == Node.Count(page) - 1;
            NarrowLeafBounds(page, index);
            PathPage[level] = newNumber;
            PathPtr[level] = (nint)page;
            PathIndex[level] = index;
            byte* entry = Node.Entry(page, index);
            long child = Node.Child(entry);
            page = sink.Modify(child, out newNumber);
            if (newNumber != child) Node.SetChild(entry, newNumber);
        }
        CheckNode(page, newNumber, 1);
        PathPage[leafLevel] = newNumber;
        PathPtr[leafLevel] = (nint)page;
        PathIndex[leafLevel] = -1;
        _leafPathRightmost = rightmost;
        return rightmost;
    }

    private void FreeValue(byte* entry)
    {
        if (Node.LeafKind(entry) != Node.OverflowValue) return;
        int pages = OverflowPageCount(Node.LeafValueLength(entry));
        Sink.FreeOverflow(*(long*)Node.LeafPayload(entry), pages);
        _header.OverflowPages -= pages;
    }

    /// <summary>Inserts into the page on the path at <paramref name="level"/>; false when that took a split.</summary>
    private bool InsertEntry(int level, int index, byte* entry, int size, bool appending)
    {
        byte* page = (byte*)PathPtr[level];
        if (Node.TotalFree(page) >= size + Node.SlotSize)
        {
            byte* target = Node.Insert(page, index, size, _pageSize, PageCopy);
            Buffer.MemoryCopy(entry, target, size, size);
            return true;
        }
        Split(level, index, entry, size, appending);
        return false;
    }

    /// <summary>
    /// Splits a full page while inserting an entry, then inserts the separator into the parent (splitting it
    /// in turn if needed). Appends at the right edge leave the left page full and move only the new entry,
    /// so sequential loads fill pages completely.
    /// </summary>
    private void Split(int level, int index, byte* entry, int size, bool appending)
    {
        var sink = Sink;
        byte* page = (byte*)PathPtr[level];
        long pageNumber = PathPage[level];
        bool leaf = Node.IsLeaf(page);
        PageFlags flags = Node.Header(page)->Flags;
        Buffer.MemoryCopy(page, PageCopy, _pageSize, _pageSize);

        int count = Node.Count(PageCopy);
        int n = count + 1;
        nint* entries = SplitEntries;
        int* sizes = SplitSizes;
        long total = 0;
        for (int j = 0; j < n; j++)
        {
            byte* e = j < index ? Node.Entry(PageCopy, j) : j == index ? entry : Node.Entry(PageCopy, j - 1);
            entries[j] = (nint)e;
            sizes[j] = j == index ? size : Node.EntrySize(PageCopy, e);
            total += sizes[j] + Node.SlotSize;
        }

        int splitAt = appending && index == count ? count : HalfwaySplit(sizes, n, total);

        Node.Initialize(page, pageNumber, flags, _pageSize, sink.TransactionId);
        for (int j = 0; j < splitAt; j++) Node.Append(page, (byte*)entries[j], sizes[j]);

        byte* right = sink.AllocatePage(out long rightNumber);
        Node.Initialize(right, rightNumber, flags, _pageSize, sink.TransactionId);
        byte* separator = SeparatorBuffer(level);
        int separatorSize;
        if (leaf)
        {
            for (int j = splitAt; j < n; j++) Node.Append(right, (byte*)entries[j], sizes[j]);
            _header.LeafPages++;
            var lastLeft = Node.LeafKey((byte*)entries[splitAt - 1]);
            var firstRight = Node.LeafKey((byte*)entries[splitAt]);
            int keyLength = _fixedInt64 ? firstRight.Length : ShortestSeparatorLength(lastLeft, firstRight);
            separatorSize = WriteBranchEntry(separator, firstRight[..keyLength], rightNumber);
        }
        else
        {
            byte* first = (byte*)entries[splitAt];
            byte* minusInfinity = stackalloc byte[Node.BranchEntryHeaderSize];
            Node.Append(right, minusInfinity, WriteBranchEntry(minusInfinity, default, Node.Child(first)));
            for (int j = splitAt + 1; j < n; j++) Node.Append(right, (byte*)entries[j], sizes[j]);
            _header.BranchPages++;
            separatorSize = WriteBranchEntry(separator, Node.BranchKey(first), rightNumber);
        }

        if (level == 0)
        {
            GrowRoot(pageNumber, flags, separator, separatorSize);
            return;
        }
        int parentLevel = level - 1;
        byte* parent = (byte*)PathPtr[parentLevel];
        int parentIndex = PathIndex[parentLevel];
        _ = InsertEntry(parentLevel, parentIndex + 1, separator, separatorSize, appending && parentIndex == Node.Count(parent) - 1);
    }

    /// <summary>
    /// Where to split <paramref name="n"/> entries of <paramref name="sizes"/> (<paramref name="total"/> bytes with
    /// their slots) so that each half holds about half the bytes and fits a page.
    /// </summary>
    private int HalfwaySplit(int* sizes, int n, long total)
    {
        int splitAt = 0;
        long left = 0;
        while (splitAt < n - 1 && left + sizes[splitAt] + Node.SlotSize <= total / 2)
        {
            left += sizes[splitAt] + Node.SlotSize;
            splitAt++;
        }
        if (splitAt == 0) splitAt = 1;
        // The halves must each fit a page; entry size limits make one of these nudges enough.
        while (splitAt < n - 1 && total - BytesBefore(sizes, splitAt) > Usable) splitAt++;
        while (splitAt > 1 && BytesBefore(sizes, splitAt) > Usable) splitAt--;
        return splitAt;
    }

    /// <summary>The root was split: a new root above it points to the old root (left) and the new page (right of <paramref name="separator"/>).</summary>
    private void GrowRoot(long leftPage, PageFlags flags, byte* separator, int separatorSize)
    {
        var sink = Sink;
        byte* root = sink.AllocatePage(out long rootNumber);
        Node.Initialize(root, rootNumber, (flags & ~PageFlags.Leaf) | PageFlags.Branch, _pageSize, sink.TransactionId);
        byte* leftEntry = stackalloc byte[Node.BranchEntryHeaderSize];
        Node.Append(root, leftEntry, WriteBranchEntry(leftEntry, default, leftPage));
        Node.Append(root, separator, separatorSize);
        _header.RootPage = rootNumber;
        _header.Depth++;
        _header.BranchPages++;
    }

    private static long BytesBefore(int* sizes, int count)
    {
        long bytes = 0;
        for (int j = 0; j < count; j++) bytes += sizes[j] + Node.SlotSize;
        return bytes;
    }

    private static int WriteBranchEntry(byte* target, ReadOnlySpan<byte> key, long child)
    {
        // The key is copied first: it may overlap the target when a separator is rebuilt in place.
        key.CopyTo(new Span<byte>(target + Node.BranchEntryHeaderSize, key.Length));
        *(ushort*)target = (ushort)key.Length;
        Node.SetChild(target, child);
        return Node.BranchEntryHeaderSize + key.Length;
    }

    /// <summary>Length of the shortest prefix of <paramref name="right"/> that is greater than <paramref name="left"/>.</summary>
    private static int ShortestSeparatorLength(ReadOnlySpan<byte> left, ReadOnlySpan<byte> right)
    {
        int common = left.CommonPrefixLength(right);
        return Math.Min(common + 1, right.Length);
    }

    /// <summary>After a removal at <paramref name="level"/>: drop empty pages, merge thin ones, shrink the root.</summary>
    private void Rebalance(int level)
    {
        var sink = Sink;
        while (true)
        {
            byte* page = (byte*)PathPtr[level];
            int count = Node.Count(page);
            if (level == 0)
            {
                ShrinkRoot(sink, page, count);
                return;
            }
            if (count > 0 && Node.UsedBytes(page, _pageSize) >= Usable / 4) return;

            byte* parent = (byte*)PathPtr[level - 1];
            int parentIndex = PathIndex[level - 1];
            bool leaf = Node.IsLeaf(page);
            if (count == 0)
            {
                sink.FreePage(PathPage[level]);
                CountFreed(leaf);
                Node.Remove(parent, parentIndex, _pageSize);
                if (parentIndex == 0 && Node.Count(parent) > 0) Node.ClearFirstBranchKey(parent);
                level--;
                continue;
            }
            if (!TryMerge(sink, level, page, parent, parentIndex, leaf)) return;
            level--;
        }
    }

    private bool TryMerge(IPageSink sink, int level, byte* page, byte* parent, int parentIndex, bool leaf)
    {
        int parentCount = Node.Count(parent);
        if (parentIndex + 1 < parentCount)
        {
            byte* rightEntry = Node.Entry(parent, parentIndex + 1);
            long rightNumber = Node.Child(rightEntry);
            byte* right = GetNode(rightNumber, _header.Depth - level);
            int extra = leaf ? 0 : Node.KeyLength(rightEntry);
            // When the right sibling is too full, the left one may still take this page (deletes in key order).
            if (Node.UsedBytes(page, _pageSize) + Node.UsedBytes(right, _pageSize) + extra <= Usable)
            {
                AppendAll(page, right, leaf, Node.BranchKey(rightEntry));
                sink.FreePage(rightNumber);
                CountFreed(leaf);
                Node.Remove(parent, parentIndex + 1, _pageSize);
                return true;
            }
        }
        if (parentIndex > 0)
        {
            byte* leftEntry = Node.Entry(parent, parentIndex - 1);
            long leftNumber = Node.Child(leftEntry);
            byte* ownEntry = Node.Entry(parent, parentIndex);
            int extra = leaf ? 0 : Node.KeyLength(ownEntry);
            if (Node.UsedBytes(GetNode(leftNumber, _header.Depth - level), _pageSize) + Node.UsedBytes(page, _pageSize) + extra > Usable) return false;
            byte* left = sink.Modify(leftNumber, out long newLeft);
            if (newLeft != leftNumber) Node.SetChild(leftEntry, newLeft);
            AppendAll(left, page, leaf, Node.BranchKey(ownEntry));
            sink.FreePage(PathPage[level]);
            CountFreed(leaf);
            Node.Remove(parent, parentIndex, _pageSize);
            return true;
        }
        return false;
    }

    /// <summary>Moves every entry of <paramref name="source"/> to the end of <paramref name="target"/>.</summary>
    private void AppendAll(byte* target, byte* source, bool leaf, ReadOnlySpan<byte> separatorKey)
    {
        Node.Compact(target, _pageSize, PageCopy);
        int count = Node.Count(source);
        for (int i = 0; i < count; i++)
        {
            byte* entry = Node.Entry(source, i);
            if (!leaf && i == 0)
            {
                // The right node's minus-infinity entry takes the parent's separator as its key.
                byte* rebuilt = EntryBuffer;
                Node.Append(target, rebuilt, WriteBranchEntry(rebuilt, separatorKey, Node.Child(entry)));
                continue;
            }
            Node.Append(target, entry, Node.EntrySize(source, entry));
        }
    }

    private void ShrinkRoot(IPageSink sink, byte* root, int count)
    {
        if (!Node.IsBranch(root)) return;
        if (count == 0)
        {
            // Every child went away: the tree is empty again, with an empty leaf as its root.
            Node.Initialize(root, _header.RootPage, LeafFlags(_header.Flags), _pageSize, sink.TransactionId);
            _header.Depth = 1;
            _header.BranchPages--;
            _header.LeafPages++;
            return;
        }
        while (_header.Depth > 1)
        {
            byte* page = GetNode(_header.RootPage, _header.Depth);
            if (Node.Count(page) != 1) return;
            long child = Node.Child(Node.Entry(page, 0));
            sink.FreePage(_header.RootPage);
            _header.BranchPages--;
            _header.RootPage = child;
            _header.Depth--;
        }
    }

    private void CountFreed(bool leaf)
    {
        if (leaf) _header.LeafPages--;
        else _header.BranchPages--;
    }
}
