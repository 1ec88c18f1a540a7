using StorageEngine.Paging;
using StorageEngine.Replication;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The free-space map's allocator against a model of its bits: a run is handed out only from pages that are
/// free and no reader may still see, never twice, and the file grows only when no such run exists.
/// </summary>
public sealed class FreeSpaceMapTests
{
    private const int PageSize = 4096;

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Allocations_take_the_free_runs_a_model_finds_and_grow_the_file_only_when_there_is_none(int seed)
    {
        var random = new Random(seed);
        var map = new FreeSpaceMap(PageSize);
        using var bitmaps = new BitmapBuilder(PageSize);
        long pageCount = FreeSpaceMap.InitialPageCount(PageSize);
        var model = new AllocatorModel();
        // Start with one run past the first bitmap page's 32,512 pages, so runs cross bitmap pages too.
        long start = map.Allocate(40_000, bitmaps, ref pageCount);
        model.Allocated(start, 40_000, pageCount);
        var held = new List<(long First, int Count)> { (start, 40_000) };
        long transaction = 1;

        for (int step = 0; step < 3_000; step++)
        {
            int choice = random.Next(10);
            if (choice < 5 || held.Count == 0)
            {
                int count = random.Next(4) switch { 0 => 1, 1 => 2, 2 => random.Next(3, 70), _ => random.Next(1, 5) };
                long expected = model.FirstRun(count);
                long before = pageCount;
                long first = map.Allocate(count, bitmaps, ref pageCount);
                if (expected >= 0)
                {
                    Assert.True(first + count <= before, $"step {step}: a free run of {count} exists at {expected}, yet the file grew to {first}");
                    Assert.True(model.IsAvailableRun(first, count), $"step {step}: run {first}+{count} holds a used or pending page");
                }
                else
                {
                    Assert.True(first >= before, $"step {step}: no free run of {count} exists, yet {first} was handed out");
                }
                model.Allocated(first, count, pageCount);
                held.Add((first, count));
            }
            else if (choice < 9)
            {
                // Give back all or part of a held run, now (never seen by a reader) or after the readers leave.
                int index = random.Next(held.Count);
                var (first, count) = held[index];
                int part = random.Next(1, count + 1);
                held[index] = (first + part, count - part);
                if (held[index].Count == 0) held.RemoveAt(index);
                bool reusableNow = random.Next(2) == 0;
                map.Free(first, part, reusableNow, bitmaps);
                model.Freed(first, part, reusableNow ? 0 : transaction);
            }
            else
            {
                map.Commit(transaction);
                long oldestReader = transaction - random.Next(3);
                map.ReleaseUpTo(oldestReader);
                model.Released(oldestReader);
                transaction++;
            }
            if (step % 100 == 0)
            {
                for (long page = 0; page < pageCount; page++)
                    Assert.Equal(model.IsFree(page), map.IsFree(bitmaps, page));
            }
        }
    }

    [Fact]
    public void A_page_that_becomes_reusable_is_taken_before_free_pages_further_on()
    {
        var map = new FreeSpaceMap(PageSize);
        using var bitmaps = new BitmapBuilder(PageSize);
        long pageCount = FreeSpaceMap.InitialPageCount(PageSize);
        long start = map.Allocate(1_000, bitmaps, ref pageCount);
        // The search moves past the middle of the run; a page further on is free from the start.
        map.Free(start + 500, 1, reusableNow: true, bitmaps);
        Assert.Equal(start + 500, map.Allocate(1, bitmaps, ref pageCount));
        map.Free(start + 800, 1, reusableNow: true, bitmaps);
        // A page behind the search waits for a reader, then becomes reusable: small commits free pages so, and
        // taking them again first keeps the pages a commit writes together.
        map.Free(start + 100, 1, reusableNow: false, bitmaps);
        map.Commit(1);
        map.ReleaseUpTo(1);
        Assert.Equal(start + 100, map.Allocate(1, bitmaps, ref pageCount));
        Assert.Equal(start + 800, map.Allocate(1, bitmaps, ref pageCount));
        long before = pageCount;
        Assert.True(map.Allocate(1, bitmaps, ref pageCount) >= before, "no reusable page is left, so the file grows");
    }

    /// <summary>Each page's bit, plus the transaction that freed it while readers could still see it.</summary>
    [Theory]
    [InlineData(11)]
    [InlineData(12)]
    public unsafe void FirstFreePast_finds_the_first_stray_free_bit_past_the_file_as_a_bit_by_bit_search_does(int seed)
    {
        // The search skips whole clear words with a vectorized search (a small file's section is hundreds of thousands of clear bits); a bit
        // by bit search over the same bitmaps is the reference, for stray bits at word, page and file edges.
        var random = new Random(seed);
        var map = new FreeSpaceMap(PageSize);
        long bitsPerPage = (PageSize - PageHeader.Size) * 8L;
        for (int round = 0; round < 40; round++)
        {
            using var bitmaps = new BitmapBuilder(PageSize);
            long pageCount = random.Next(3) switch
            {
                0 => FreeSpaceMap.InitialPageCount(PageSize) + random.Next(200),
                1 => bitsPerPage * random.Next(1, 4) - random.Next(0, 70),
                _ => random.NextInt64(3, map.PagesPerSection - 1),
            };
            int strays = random.Next(4);
            for (int i = 0; i < strays; i++)
            {
                long page = random.Next(3) switch
                {
                    0 => pageCount + random.Next(0, 130),
                    1 => (pageCount / 64 + random.Next(1, 3)) * 64 + random.Next(-1, 1),
                    _ => random.NextInt64(pageCount, map.PagesPerSection),
                };
                if (page < pageCount || page >= map.PagesPerSection) continue;
                MarkFree(bitmaps, page, bitsPerPage);
            }
            long expected = -1;
            for (long page = pageCount; page < map.PagesPerSection && expected < 0; page++)
                if (IsMarkedFree(bitmaps, page, bitsPerPage)) expected = page;

            long found = map.FirstFreePast(bitmaps, pageCount, out long bitmapPage);
            Assert.Equal(expected, found);
            Assert.Equal(expected < 0 ? -1 : FreeSpaceMap.FirstBitmapPage + expected / bitsPerPage, bitmapPage);
        }
    }

    private static unsafe ulong* BitmapWord(BitmapBuilder bitmaps, long page, long bitsPerPage, out int bit)
    {
        long index = page % bitsPerPage;
        bit = (int)(index & 63);
        var words = (ulong*)(bitmaps.WriteBitmap(FreeSpaceMap.FirstBitmapPage + page / bitsPerPage, create: false) + PageHeader.Size);
        return words + (index >> 6);
    }

    private static unsafe void MarkFree(BitmapBuilder bitmaps, long page, long bitsPerPage) =>
        *BitmapWord(bitmaps, page, bitsPerPage, out int bit) |= 1UL << bit;

    private static unsafe bool IsMarkedFree(BitmapBuilder bitmaps, long page, long bitsPerPage) =>
        (*BitmapWord(bitmaps, page, bitsPerPage, out int bit) & (1UL << bit)) != 0;

    private sealed class AllocatorModel
    {
        private readonly List<bool> _free = [];
        private readonly Dictionary<long, long> _pendingSince = [];

        public bool IsFree(long page) => page < _free.Count && _free[(int)page];

        public bool IsAvailableRun(long first, int count)
        {
            for (long page = first; page < first + count; page++)
                if (!IsFree(page) || _pendingSince.ContainsKey(page)) return false;
            return true;
        }

        public long FirstRun(int count)
        {
            int length = 0;
            for (int page = 0; page < _free.Count; page++)
            {
                length = _free[page] && !_pendingSince.ContainsKey(page) ? length + 1 : 0;
                if (length == count) return page - count + 1;
            }
            return -1;
        }

        public void Allocated(long first, int count, long pageCount)
        {
            while (_free.Count < pageCount) _free.Add(false);
            for (long page = first; page < first + count; page++) _free[(int)page] = false;
        }

        public void Freed(long first, int count, long pendingSince)
        {
            for (long page = first; page < first + count; page++)
            {
                _free[(int)page] = true;
                if (pendingSince > 0) _pendingSince[page] = pendingSince;
            }
        }

        public void Released(long oldestReader)
        {
            foreach (var (page, since) in _pendingSince.ToArray())
                if (since <= oldestReader) _pendingSince.Remove(page);
        }
    }
}
