using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using StorageEngine.Paging;

namespace StorageEngine.BTrees;

/// <summary>
/// The slotted layout of tree pages, format version 1. After the <see cref="PageHeader"/> comes an array of
/// <c>ushort</c> entry offsets in key order; entries are packed from the end of the page downwards.
/// <code>
/// leaf entry:   u16 keyLength, u8 kind (0 inline, 1 overflow), u8 reserved, u32 valueLength, key,
///               then the value (inline) or u64 first overflow page and u32 CRC-32C of the value (overflow)
/// branch entry: u16 keyLength, u64 child page, key   (entry 0 has an empty key that stands for minus infinity)
/// </code>
/// Keys compare bytewise; in fixed-int64 trees every key is 8 bytes and compares as a big-endian integer.
/// </summary>
internal static unsafe class Node
{
    public const int SlotSize = 2;
    public const int LeafEntryHeaderSize = 8;
    public const int BranchEntryHeaderSize = 10;
    public const int OverflowReferenceSize = 12;
    public const byte InlineValue = 0;
    public const byte OverflowValue = 1;

    public static PageHeader* Header(byte* page) => (PageHeader*)page;

    public static int Count(byte* page) => ((PageHeader*)page)->Count;

    public static bool IsLeaf(byte* page) => (((PageHeader*)page)->Flags & PageFlags.Leaf) != 0;

    public static bool IsBranch(byte* page) => (((PageHeader*)page)->Flags & PageFlags.Branch) != 0;

    private static ushort* Slots(byte* page) => (ushort*)(page + PageHeader.Size);

    public static byte* Entry(byte* page, int index) => page + Slots(page)[index];

    public static int KeyLength(byte* entry) => *(ushort*)entry;

    public static ReadOnlySpan<byte> LeafKey(byte* entry) => new(entry + LeafEntryHeaderSize, *(ushort*)entry);

    public static byte LeafKind(byte* entry) => entry[2];

    public static uint LeafValueLength(byte* entry) => *(uint*)(entry + 4);

    public static byte* LeafPayload(byte* entry) => entry + LeafEntryHeaderSize + *(ushort*)entry;

    public static int LeafEntrySize(byte* entry) =>
        LeafEntryHeaderSize + *(ushort*)entry + (entry[2] == OverflowValue ? OverflowReferenceSize : (int)LeafValueLength(entry));

    public static ReadOnlySpan<byte> BranchKey(byte* entry) => new(entry + BranchEntryHeaderSize, *(ushort*)entry);

    public static long Child(byte* entry) => Unsafe.ReadUnaligned<long>(entry + 2);

    public static void SetChild(byte* entry, long child) => Unsafe.WriteUnaligned(entry + 2, child);

    public static int BranchEntrySize(byte* entry) => BranchEntryHeaderSize + *(ushort*)entry;

    public static int EntrySize(byte* page, byte* entry) => IsLeaf(page) ? LeafEntrySize(entry) : BranchEntrySize(entry);

    public static int LeafEntrySize(int keyLength, int valueLength, bool overflow) =>
        LeafEntryHeaderSize + keyLength + (overflow ? OverflowReferenceSize : valueLength);

    /// <summary>Bytes free between the slot array and the entries.</summary>
    public static int ContiguousFree(byte* page)
    {
        var h = (PageHeader*)page;
        return h->Upper - (PageHeader.Size + SlotSize * h->Count);
    }

    /// <summary>Bytes free once the page is compacted.</summary>
    public static int TotalFree(byte* page) => ContiguousFree(page) + ((PageHeader*)page)->FragmentedBytes;

    /// <summary>Bytes of entries and slots in use.</summary>
    public static int UsedBytes(byte* page, int pageSize) => pageSize - PageHeader.Size - TotalFree(page);

    public static void Initialize(byte* page, long pageNumber, PageFlags flags, int pageSize, long transactionId)
    {
        new Span<byte>(page, PageHeader.Size).Clear();
        var h = (PageHeader*)page;
        h->PageNumber = pageNumber;
        h->Flags = flags;
        h->Upper = (ushort)pageSize;
        h->TransactionId = transactionId;
    }

    /// <summary>Appends an entry after the last slot (callers append in key order).</summary>
    public static byte* Append(byte* page, byte* entry, int size)
    {
        var h = (PageHeader*)page;
        int upper = h->Upper - size;
        Buffer.MemoryCopy(entry, page + upper, size, size);
        Slots(page)[h->Count] = (ushort)upper;
        h->Upper = (ushort)upper;
        h->Count++;
        return page + upper;
    }

    /// <summary>
    /// Makes room for an entry of <paramref name="size"/> bytes at slot <paramref name="index"/> and returns
    /// where to write it. The caller has checked <see cref="TotalFree"/>.
    /// </summary>
    public static byte* Insert(byte* page, int index, int size, int pageSize, byte* scratch)
    {
        if (ContiguousFree(page) < size + SlotSize) Compact(page, pageSize, scratch);
        var h = (PageHeader*)page;
        ushort* slots = Slots(page);
        int count = h->Count;
        if (index < count)
            Buffer.MemoryCopy(slots + index, slots + index + 1, (count - index) * SlotSize, (count - index) * SlotSize);
        int upper = h->Upper - size;
        slots[index] = (ushort)upper;
        h->Upper = (ushort)upper;
        h->Count = (ushort)(count + 1);
        return page + upper;
    }

    /// <summary>Removes slot <paramref name="index"/>; its bytes become fragmented space.</summary>
    public static void Remove(byte* page, int index, int pageSize)
    {
        var h = (PageHeader*)page;
        ushort* slots = Slots(page);
        int size = EntrySize(page, page + slots[index]);
        int count = h->Count;
        Buffer.MemoryCopy(slots + index + 1, slots + index, (count - index - 1) * SlotSize, (count - index - 1) * SlotSize);
        h->Count = (ushort)(count - 1);
        h->FragmentedBytes = (ushort)(h->FragmentedBytes + size);
        if (h->Count == 0)
        {
            h->Upper = (ushort)pageSize;
            h->FragmentedBytes = 0;
        }
    }

    /// <summary>Turns branch entry 0 into the minus-infinity entry (its key is dropped).</summary>
    public static void ClearFirstBranchKey(byte* page)
    {
        byte* entry = Entry(page, 0);
        int keyLength = KeyLength(entry);
        if (keyLength == 0) return;
        *(ushort*)entry = 0;
        ((PageHeader*)page)->FragmentedBytes = (ushort)(((PageHeader*)page)->FragmentedBytes + keyLength);
    }

    /// <summary>Rewrites the entries back to back at the end of the page, removing fragmentation.</summary>
    public static void Compact(byte* page, int pageSize, byte* scratch)
    {
        var h = (PageHeader*)page;
        if (h->FragmentedBytes == 0) return;
        Buffer.MemoryCopy(page, scratch, pageSize, pageSize);
        int count = h->Count;
        int upper = pageSize;
        ushort* slots = Slots(page);
        ushort* oldSlots = Slots(scratch);
        for (int i = 0; i < count; i++)
        {
            byte* entry = scratch + oldSlots[i];
            int size = EntrySize(scratch, entry);
            upper -= size;
            Buffer.MemoryCopy(entry, page + upper, size, size);
            slots[i] = (ushort)upper;
        }
        h->Upper = (ushort)upper;
        h->FragmentedBytes = 0;
    }

    /// <summary>Index of the first leaf key that is >= <paramref name="key"/>; found tells whether it is equal.</summary>
    public static int SearchLeaf(byte* page, ReadOnlySpan<byte> key, bool fixedInt64, out bool found)
    {
        int lo = 0, hi = Count(page) - 1;
        if (fixedInt64 && key.Length == 8)
        {
            ulong k = BinaryPrimitives.ReadUInt64BigEndian(key);
            while (lo <= hi)
            {
                int mid = (lo + hi) >>> 1;
                ulong m = BinaryPrimitives.ReadUInt64BigEndian(new ReadOnlySpan<byte>(Entry(page, mid) + LeafEntryHeaderSize, 8));
                if (m < k) lo = mid + 1;
                else if (m > k) hi = mid - 1;
                else { found = true; return mid; }
            }
            found = false;
            return lo;
        }
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            int c = KeyOrder.Compare(LeafKey(Entry(page, mid)), key);
            if (c < 0) lo = mid + 1;
            else if (c > 0) hi = mid - 1;
            else { found = true; return mid; }
        }
        found = false;
        return lo;
    }

    /// <summary>Index of the child whose range holds <paramref name="key"/>: the last entry with key &lt;= the key.</summary>
    public static int SearchBranch(byte* page, ReadOnlySpan<byte> key, bool fixedInt64)
    {
        int lo = 1, hi = Count(page) - 1;
        if (fixedInt64 && key.Length == 8)
        {
            ulong k = BinaryPrimitives.ReadUInt64BigEndian(key);
            while (lo <= hi)
            {
                int mid = (lo + hi) >>> 1;
                ulong m = BinaryPrimitives.ReadUInt64BigEndian(new ReadOnlySpan<byte>(Entry(page, mid) + BranchEntryHeaderSize, 8));
                if (m <= k) lo = mid + 1;
                else hi = mid - 1;
            }
            return lo - 1;
        }
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            if (KeyOrder.Compare(BranchKey(Entry(page, mid)), key) <= 0) lo = mid + 1;
            else hi = mid - 1;
        }
        return lo - 1;
    }
}
