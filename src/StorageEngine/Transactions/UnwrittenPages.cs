using System.Buffers;

namespace StorageEngine.Transactions;

/// <summary>
/// Committed pages whose journal record is written but which are not yet in the data file: the checkpoint
/// writes them there. Commits so cost one journal write and no data-file write, and a page that a later
/// commit replaces before the checkpoint, when no reader can still see it, is never written at all.
/// </summary>
/// <remarks>
/// Readers look pages up here before the mapping, without locking, in an array indexed by page number (one
/// reference per page of the file; a hash lookup cost readers a third of their speed). A page number may hold
/// several versions between two checkpoints: a single page written and freed since the last checkpoint began is
/// reused once no reader can see it (see <see cref="Paging.FreeSpaceMap.ReleaseYoung"/>), and its new version
/// replaces the old one here; a new run over such pages supersedes the single pages it covers. Bitmap pages,
/// which readers never read, change in place. Every removed buffer is retired, not freed: a reader or the
/// writer may still hold a pointer into it, so it goes back to the pool only once every reader that could
/// have found it is gone, and only under the write lock (see <see cref="ReleaseRetired"/>).
/// </remarks>
internal sealed class UnwrittenPages
{
    // Guarded by _mutation; _byPage mirrors it for readers and is replaced, never shrunk, when the file grows.
    private readonly Dictionary<long, Entry> _entries = new();
    private Entry?[] _byPage = new Entry?[1024];
    private readonly object _mutation = new();
    private readonly List<(long RetiredAt, Entry Entry)> _retired = new();
    // Retired entries a checkpoint collected, set aside until it ends: a checkpoint's worth of them, which each
    // commit's release would otherwise go through again.
    private readonly List<(long RetiredAt, Entry Entry)> _retiredCollected = new();
    // Entries are reused once retired and released, like their buffers: one per page and commit, living until
    // a checkpoint, they were most of what the garbage collector promoted.
    private readonly Stack<Entry> _spareEntries = new();
    private const int MaxSpareEntries = 1 << 16;
    // The newest version of each page written into the data file while a collection was out: by a commit that
    // wrote its pages directly (see Drop), or, while two collections are out (a checkpoint and a backup), by the
    // other collection. A collection may hold an older version of such a page, one that a later commit replaced
    // here after it was collected; writing it afterwards would put the data file back behind the newer version,
    // which readers, finding nothing held, would then read. Guarded by _mutation; cleared when no collection is
    // out, so it only ever holds what one checkpoint's span wrote.
    private readonly Dictionary<long, long> _writtenWhileCollected = new();
    private int _collections;
    private int _count;
    private long _bytes;
    private readonly Func<long> _newestSnapshot;
    // Entries retired so far (the last RetireNumber given), and the grace period under way, if any: the entries
    // retired up to UpTo, and the readers registered when it began (see StartGrace). Guarded by _mutation.
    private long _retireCount;
    private (long UpTo, (int Slot, long Registration)[] Readers)? _grace;

    /// <param name="newestSnapshot">The newest snapshot a reader may take now: what a removed buffer is retired at.</param>
    public UnwrittenPages(Func<long> newestSnapshot) => _newestSnapshot = newestSnapshot;

    /// <summary>One page (or overflow run) as a commit left it.</summary>
    /// <remarks>Set before it is published and unchanged while a reader may find it.</remarks>
    internal sealed class Entry
    {
        public CommittedRun Run;

        /// <summary>The transaction that wrote this version.</summary>
        public long WrittenBy;

        /// <summary>The transaction that freed it, or <see cref="long.MaxValue"/> while it is live.</summary>
        public long FreedBy;

        /// <summary>
        /// Set when a commit wrote a newer version of the page straight into the data file (<see cref="Drop"/>):
        /// a checkpoint that collected this version must then not write it, or the data file would go back.
        /// </summary>
        public volatile bool Superseded;

        /// <summary>
        /// Checkpoints or backups that collected this entry and may still be writing its buffer out: it is not
        /// freed while any is. Guarded by the mutation lock.
        /// </summary>
        public int Collections;

        /// <summary>The order in which it was retired (1 for the first), for a grace period's bound (see <see cref="StartGrace"/>).</summary>
        public long RetireNumber;
    }

    private Entry NewEntry(CommittedRun run, long writtenBy)
    {
        var entry = _spareEntries.TryPop(out var spare) ? spare : new Entry();
        entry.Run = run;
        entry.WrittenBy = writtenBy;
        entry.FreedBy = long.MaxValue;
        entry.Superseded = false;
        entry.Collections = 0;
        return entry;
    }

    /// <summary>True when every committed page is in the data file (the readers' fast path).</summary>
    public bool IsEmpty => Volatile.Read(ref _count) == 0;

    /// <summary>Pages held.</summary>
    public int Count => Volatile.Read(ref _count);

    /// <summary>Bytes of the pages held, the memory a checkpoint gives back.</summary>
    public long Bytes => Volatile.Read(ref _bytes);

    /// <summary>The newest version of the run starting at <paramref name="firstPage"/>, if it is not yet in the data file.</summary>
    /// <remarks>
    /// An array replaced by growth still holds what it held: a reader that loaded it before finds the pages of
    /// its own snapshot there, which were all added before the snapshot was published, and a buffer removed
    /// since stays alive while that reader is registered.
    /// </remarks>
    public bool TryGet(long firstPage, out CommittedRun run)
    {
        var byPage = Volatile.Read(ref _byPage);
        if ((ulong)firstPage < (ulong)byPage.Length && Volatile.Read(ref byPage[firstPage]) is { } entry)
        {
            run = entry.Run;
            return true;
        }
        run = default;
        return false;
    }

    /// <summary>
    /// The transaction that wrote the version of single page <paramref name="page"/> held here, or 0 when none is
    /// held (the data file has it). For a tree page, which never changes once committed, that is the transaction
    /// that took the page.
    /// </summary>
    public long WrittenBy(long page)
    {
        var byPage = Volatile.Read(ref _byPage);
        return (ulong)page < (ulong)byPage.Length && Volatile.Read(ref byPage[page]) is { } entry && entry.Run.PageCount == 1
            ? entry.WrittenBy
            : 0;
    }

    /// <summary>
    /// Drops the single pages a new run of several pages now covers (pages reused early, see the remarks): a
    /// checkpoint must not write such an older version over the run, and one that collected it already skips it.
    /// </summary>
    private void SupersedeCovered(CommittedRun run, long publishedId)
    {
        for (long page = run.FirstPage + 1; page < run.FirstPage + run.PageCount; page++)
        {
            if (!_entries.Remove(page, out var covered)) continue;
            covered.Superseded = true;
            Set(page, null);
            Retire(covered, publishedId, counted: true);
        }
    }

    private void Set(long page, Entry? entry)
    {
        var byPage = _byPage;
        if (page >= byPage.Length)
        {
            var grown = new Entry?[Math.Max(page + 1, (long)byPage.Length * 2)];
            byPage.CopyTo(grown, 0);
            Volatile.Write(ref _byPage, grown);
            byPage = grown;
        }
        Volatile.Write(ref byPage[page], entry);
    }

    /// <summary>
    /// Takes over a durable commit's pages (the caller no longer frees them). A page replaced in place is
    /// retired at <paramref name="publishedId"/>, the newest snapshot readers may hold.
    /// </summary>
    public void Add(List<CommittedRun> pages, long transactionId, long publishedId)
    {
        lock (_mutation)
        {
            foreach (var run in pages)
            {
                SupersedeCovered(run, publishedId);
                if (_entries.TryGetValue(run.FirstPage, out var replaced)) Retire(replaced, publishedId);
                else Volatile.Write(ref _count, _count + 1);
                var entry = NewEntry(run, transactionId);
                _entries[run.FirstPage] = entry;
                Set(run.FirstPage, entry);
                _bytes += run.Buffer.Length;
            }
        }
    }

    /// <summary>
    /// Forgets the versions of these pages held here because the data file now has newer ones (commit
    /// <paramref name="transactionId"/> wrote its pages directly), retiring them (see <see cref="StampRetired"/>).
    /// Every version a collection still out holds of these pages becomes unwritable (see <see cref="NewerVersionWritten"/>).
    /// The caller holds the data-page write lock, as the writes of collected pages do.
    /// </summary>
    public void Drop(List<CommittedRun> pages, long transactionId)
    {
        lock (_mutation)
        {
            if (_count == 0 && _collections == 0) return;
            int first = _retired.Count;
            foreach (var run in pages)
            {
                if (_collections > 0)
                {
                    for (long page = run.FirstPage; page < run.FirstPage + run.PageCount; page++) Note(page, transactionId);
                }
                SupersedeCovered(run, long.MaxValue);
                if (_entries.Remove(run.FirstPage, out var removed))
                {
                    removed.Superseded = true;
                    Set(run.FirstPage, null);
                    Retire(removed, long.MaxValue, counted: true);
                }
            }
            StampRetired(first);
        }
    }

    /// <summary>
    /// Every entry now, in page order: what a checkpoint writes. Until <see cref="EndCollect"/>, none of them is
    /// freed once retired, since the caller reads their buffers outside the lock; the others are (a whole
    /// checkpoint's worth of retired versions held back had the writer allocate that many buffers anew). The
    /// arrays are rented: a checkpoint collects thousands of entries, and a fresh array each time would land on
    /// the large object heap and bring on full collections.
    /// </summary>
    public ArraySegment<KeyValuePair<long, Entry>> Collect()
    {
        long[] pages;
        KeyValuePair<long, Entry>[] entries;
        int count;
        lock (_mutation)
        {
            _collections++;
            count = _entries.Count;
            pages = ArrayPool<long>.Shared.Rent(count);
            entries = ArrayPool<KeyValuePair<long, Entry>>.Shared.Rent(count);
            int i = 0;
            foreach (var pair in _entries)
            {
                pair.Value.Collections++;
                pages[i] = pair.Key;
                entries[i++] = pair;
            }
        }
        // Sorted outside the lock: the arrays are the collector's own, and a commit adding its pages meanwhile
        // must not wait for the sort (a millisecond or more for a full threshold of pages).
        Array.Sort(pages, entries, 0, count);
        ArrayPool<long>.Shared.Return(pages);
        return new ArraySegment<KeyValuePair<long, Entry>>(entries, 0, count);
    }

    /// <summary>Ends a <see cref="Collect"/>, taking back its array.</summary>
    public void EndCollect(ArraySegment<KeyValuePair<long, Entry>> collected)
    {
        lock (_mutation)
        {
            foreach (var pair in collected) pair.Value.Collections--;
            if (--_collections == 0) _writtenWhileCollected.Clear();
            // Those another collection still holds are set aside again by the next release.
            _retired.AddRange(_retiredCollected);
            _retiredCollected.Clear();
        }
        ArrayPool<KeyValuePair<long, Entry>>.Shared.Return(collected.Array!, clearArray: true);
    }

    /// <summary>
    /// True when a newer version of any page of <paramref name="collected"/> (an entry of a collection still out)
    /// went into the data file after it was collected: the collected version must then not be written. Called
    /// under the data-page write lock, which every write into the data file of held or committed pages holds.
    /// </summary>
    public bool NewerVersionWritten(Entry collected)
    {
        lock (_mutation)
        {
            if (_writtenWhileCollected.Count == 0) return false;
            var run = collected.Run;
            for (long page = run.FirstPage; page < run.FirstPage + run.PageCount; page++)
            {
                if (_writtenWhileCollected.TryGetValue(page, out long writtenBy) && writtenBy > collected.WrittenBy) return true;
            }
            return false;
        }
    }

    /// <summary>
    /// After a collection wrote <paramref name="written"/> (one gathered write) into the data file: remembered while
    /// another collection is out, which may hold an older version of their pages (see <see cref="NewerVersionWritten"/>).
    /// </summary>
    public void NoteWritten(ReadOnlySpan<KeyValuePair<long, Entry>> written)
    {
        lock (_mutation)
        {
            if (_collections < 2) return;
            foreach (var (_, entry) in written)
            {
                var run = entry.Run;
                for (long page = run.FirstPage; page < run.FirstPage + run.PageCount; page++) Note(page, entry.WrittenBy);
            }
        }
    }

    private void Note(long page, long writtenBy)
    {
        if (!_writtenWhileCollected.TryGetValue(page, out long newest) || writtenBy > newest) _writtenWhileCollected[page] = writtenBy;
    }

    /// <summary>Marks the runs a durable commit freed (by first page), so that a checkpoint can leave them out.</summary>
    public void MarkFreed(List<long> freed, long transactionId)
    {
        if (freed.Count == 0 || IsEmpty) return;
        lock (_mutation)
        {
            foreach (long firstPage in freed)
            {
                if (_entries.TryGetValue(firstPage, out var entry)) Volatile.Write(ref entry.FreedBy, transactionId);
            }
        }
    }

    /// <summary>
    /// After a checkpoint wrote and synced <paramref name="written"/>: drops each entry still holding the version
    /// written (a newer one stays), retiring it (see <see cref="StampRetired"/>).
    /// </summary>
    public void Remove(ArraySegment<KeyValuePair<long, Entry>> written)
    {
        lock (_mutation)
        {
            int first = _retired.Count;
            foreach (var pair in written)
            {
                if (_entries.TryGetValue(pair.Key, out var current) && ReferenceEquals(current, pair.Value))
                {
                    _entries.Remove(pair.Key);
                    Set(pair.Key, null);
                    Retire(pair.Value, long.MaxValue, counted: true);
                }
            }
            StampRetired(first);
        }
    }

    /// <summary>
    /// Stamps the entries retired from index <paramref name="first"/> on, once they can no longer be found, with
    /// the newest snapshot now. A reader that found one registered before the fence, at a snapshot no newer
    /// than that stamp, so the release waits for it. A stamp read before the removal (as it once was) could be
    /// older than a commit published meanwhile, whose readers could find the entry and see it freed under them.
    /// </summary>
    private void StampRetired(int first)
    {
        if (first == _retired.Count) return;
        Interlocked.MemoryBarrier();
        long retiredAt = _newestSnapshot();
        for (int i = first; i < _retired.Count; i++) _retired[i] = (retiredAt, _retired[i].Entry);
    }

    /// <summary>
    /// Returns to the pool the buffers retired before every reader now registered began (their snapshots are
    /// all newer) and written by commits older than <paramref name="oldestPending"/>, the oldest commit the
    /// writer may still find pages of in <see cref="PendingPages"/>. The caller holds the write lock, so no
    /// writer holds a pointer into them either.
    /// </summary>
    public void ReleaseRetired(ReaderTable readers, long oldestPending, PageBufferPool pool)
    {
        lock (_mutation)
        {
            if (_retired.Count == 0) return;
            // Read under the lock, after every stamp it will compare: a reader that registered before a stamp
            // was taken is seen here. Read before the lock, it could miss a reader that found an entry which a
            // checkpoint then removed and stamped.
            long oldestReader = readers.Oldest();
            long graceUpTo = 0;
            if (_grace is { } grace && readers.HaveEnded(grace.Readers))
            {
                graceUpTo = grace.UpTo;
                _grace = null;
            }
            int kept = 0;
            for (int i = 0; i < _retired.Count; i++)
            {
                var (retiredAt, entry) = _retired[i];
                if (entry.Collections > 0) _retiredCollected.Add(_retired[i]);
                else if ((retiredAt < oldestReader || entry.RetireNumber <= graceUpTo) && entry.WrittenBy < oldestPending)
                {
                    entry.Run.Release(pool);
                    entry.Run = default;
                    if (_spareEntries.Count < MaxSpareEntries) _spareEntries.Push(entry);
                }
                else _retired[kept++] = _retired[i];
            }
            _retired.RemoveRange(kept, _retired.Count - kept);
        }
    }

    /// <summary>
    /// Starts a grace period for the entries retired so far, unless one is under way: once every reader registered
    /// now has ended, <see cref="ReleaseRetired"/> frees them whatever the snapshots of the readers then. Without
    /// it an entry waits for every reader to hold a newer snapshot than its stamp, which takes a commit: readers
    /// that keep coming while no commit does (a read phase after a burst of writes) kept a checkpoint's worth of
    /// buffers for as long. A reader registered after this call cannot reach these entries: they left the map
    /// before it, and every reader registers before it reads a page (see <see cref="ReaderTable.TakeRegistrations"/>).
    /// Only the idle writer path calls it, holding the write lock with no commit in flight, so no commit retires an
    /// entry with a stamp newer than the snapshots new readers take.
    /// </summary>
    /// <returns>True when a grace period is under way (there is something retired to free).</returns>
    public bool StartGrace(ReaderTable readers)
    {
        lock (_mutation)
        {
            if (_grace is null && _retired.Count + _retiredCollected.Count > 0) _grace = (_retireCount, readers.TakeRegistrations());
            return _grace is not null;
        }
    }

    /// <summary>
    /// True when no committed page is held and none retired waits to be freed: every commit is in the data file
    /// and nothing is left for an idle pass to give back. A checkpoint still writing holds its pages until it ends.
    /// </summary>
    public bool IsSettled
    {
        get
        {
            lock (_mutation) return _entries.Count == 0 && _retired.Count == 0 && _retiredCollected.Count == 0;
        }
    }

    /// <summary>Bytes of the buffers of retired entries not yet freed, for tests.</summary>
    internal long RetiredBytes
    {
        get
        {
            lock (_mutation)
            {
                long bytes = 0;
                foreach (var (_, entry) in _retired) bytes += entry.Run.Buffer.Length;
                foreach (var (_, entry) in _retiredCollected) bytes += entry.Run.Buffer.Length;
                return bytes;
            }
        }
    }

    /// <summary>True when the grace period under way (see <see cref="StartGrace"/>) has ended, or none is.</summary>
    public bool GraceEnded(ReaderTable readers)
    {
        lock (_mutation) return _grace is not { } grace || readers.HaveEnded(grace.Readers);
    }

    /// <summary>Frees every buffer, held or retired (on close, when nothing reads any more).</summary>
    public void ReleaseAll(PageBufferPool pool)
    {
        lock (_mutation)
        {
            foreach (var entry in _entries.Values) entry.Run.Release(pool);
            _entries.Clear();
            Array.Clear(_byPage);
            foreach (var (_, entry) in _retired) entry.Run.Release(pool);
            foreach (var (_, entry) in _retiredCollected) entry.Run.Release(pool);
            _spareEntries.Clear();
            _retired.Clear();
            _grace = null;
            _retiredCollected.Clear();
            _count = 0;
            _bytes = 0;
        }
    }

    private void Retire(Entry entry, long publishedId, bool counted = false)
    {
        entry.RetireNumber = ++_retireCount;
        _retired.Add((publishedId, entry));
        _bytes -= entry.Run.Buffer.Length;
        if (counted) Volatile.Write(ref _count, _count - 1);
    }
}
