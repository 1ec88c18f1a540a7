using System.Runtime.CompilerServices;
using StorageEngine.Journal;
using StorageEngine.Paging;

namespace StorageEngine.Transactions;

// Where committed pages go in the data file: held in memory for the next checkpoint, or written at once.
internal sealed partial class CommitPipeline
{
    /// <summary>Buffers per gathered write, well under the operating system's limit (1,024 on Linux).</summary>
    private const int MaxGatheredPages = 256;

    /// <summary>Taken by each data-file write of held pages and by commits that write their own pages.</summary>
    private readonly object _dataPageWrites = new();
    private readonly List<ReadOnlyMemory<byte>> _gather = new();
    private readonly List<ReadOnlyMemory<byte>> _checkpointGather = new();

    /// <summary>
    /// Puts a durable commit's pages where readers will find them: kept in memory for the next checkpoint to
    /// write (so a commit costs one journal write), or, when that memory is at its limit because checkpoints
    /// fall behind, written into the data file at once. An applied transaction's pages always go straight
    /// to the data file, where they replace pages whose verification no longer holds.
    /// </summary>
    private void PlacePages(PendingCommit member)
    {
        if (member.IsApplied)
        {
            foreach (var run in member.Runs)
            {
                _verified.Remove(run.FirstPage, run.PageCount);
                _verifiedValues.Remove(run.FirstPage, run.PageCount);
            }
            WriteJournaledRuns(member.Runs);
            return;
        }
        long published = Published.TransactionId;
        if (_unwritten is { } unwritten && unwritten.Bytes < _unwrittenLimit)
        {
            unwritten.Add(member.Pages, member.TransactionId, published);
            member.HandOverPages();
        }
        else
        {
            // Under the lock that a checkpoint's writes take too: a checkpoint that collected an older version of
            // one of these pages (a bitmap page, changed in place) either wrote it before, or sees it superseded.
            lock (_dataPageWrites)
            {
                WriteJournaledRuns(member.Runs);
                _unwritten?.Drop(member.Pages, member.TransactionId);
            }
        }
        _unwritten?.MarkFreed(member.Freed, member.TransactionId);
    }

    /// <summary>
    /// Writes the group's values that go in place (see <see cref="JournalPageRun.InPlace"/>) into the data file and
    /// syncs it, before any of the group's records is written: a durable record must find its values durable.
    /// Their pages lie past every page an earlier record wrote, so no replay and no checkpoint writes over them,
    /// and no reader or writer looks for them there before the commit is published (the writer finds them in
    /// <see cref="Pending"/>). A failure refuses further writes, as a failed journal write does.
    /// </summary>
    private void WriteValuesInPlace(List<PendingCommit> group)
    {
        bool any = false;
        foreach (var member in group) any |= member.ValuesInPlace.Count > 0;
        if (!any) return;
        try
        {
            foreach (var member in group)
            {
                if (member.ValuesInPlace.Count > 0) WriteRuns(_data, member.Runs, _gather, inPlace: true);
            }
            _data.Flush();
        }
        catch (Exception e)
        {
            _failure.Record(e, "Writing a commit's values into the data file before its journal record", replace: true);
            throw;
        }
    }

    /// <summary>
    /// Writes pages whose journal records were appended into the data file, once they are durable (a Lazy
    /// journal is synced first, see PageWriter.Seal); a failure refuses further writes.
    /// </summary>
    private void WriteJournaledRuns(List<JournalPageRun> runs)
    {
        try
        {
            _journal?.SyncBuffered();
            WriteRuns(_data, runs, _gather);
        }
        catch (Exception e)
        {
            // The records are durable, so recovery will apply them; this process can no longer write safely.
            _failure.Record(e, "Writing a journaled commit's pages into the data file", replace: true);
            throw new StorageException("The commit is in the journal but writing its pages to the data file failed; reopen the environment to recover.", e);
        }
    }

    /// <summary>
    /// Writes sealed runs to the data file, one gathered write per stretch of consecutive pages: those the journal
    /// carries, or with <paramref name="inPlace"/> those written before their record (see
    /// <see cref="JournalPageRun.InPlace"/>). Those in place are synced before their record: the device starts on
    /// each stretch of them while the next is copied, so that the caller's flush waits for less.
    /// </summary>
    public static void WriteRuns(DataFile data, List<JournalPageRun> runs, List<ReadOnlyMemory<byte>> gather, bool inPlace = false)
    {
        int i = 0;
        while (i < runs.Count)
        {
            if (runs[i].IsInPlace != inPlace)
            {
                i++;
                continue;
            }
            long first = runs[i].FirstPage;
            long next = first;
            gather.Clear();
            // Stretches in place are cut at MaxGatheredPages: the device starts on each while the next is copied.
            while (i < runs.Count && runs[i].FirstPage == next && runs[i].IsInPlace == inPlace && (!inPlace || next - first < MaxGatheredPages))
            {
                gather.Add(runs[i].Data);
                next += runs[i].PageCount;
                i++;
            }
            data.Write(first, gather);
            if (inPlace) data.StartWriteback(first, next - first);
        }
        gather.Clear();
    }

    /// <summary>
    /// For a checkpoint of the snapshot <paramref name="checkpointed"/>: writes the held pages into the data file
    /// (the caller syncs), except those freed by a commit that no reader (the oldest is
    /// <paramref name="oldestReader"/>) and no recovery from this checkpoint can need. Returns what it collected,
    /// for <see cref="CheckpointWritten"/> once the checkpoint is recorded, or null when nothing is held.
    /// </summary>
    public ArraySegment<KeyValuePair<long, UnwrittenPages.Entry>>? WriteForCheckpoint(long checkpointed, long oldestReader)
    {
        if (_unwritten is null || _unwritten.IsEmpty) return null;
        var entries = _unwritten.Collect();
        try
        {
            WriteCollected(entries, leaveOutFreedUpTo: Math.Min(checkpointed, oldestReader), _checkpointGather);
            return entries;
        }
        catch
        {
            _unwritten.EndCollect(entries);
            throw;
        }
    }

    /// <summary>
    /// Ends a checkpoint's use of what <see cref="WriteForCheckpoint"/> collected; when <paramref name="recorded"/>
    /// the data file holds those pages durably and they are forgotten (which lets their freed pages be reused).
    /// </summary>
    public void CheckpointWritten(ArraySegment<KeyValuePair<long, UnwrittenPages.Entry>> collected, bool recorded)
    {
        if (recorded) _unwritten!.Remove(collected);
        _unwritten!.EndCollect(collected);
    }

    /// <summary>
    /// Writes the pages held for the next checkpoint into the data file without syncing or forgetting them, so
    /// that the file's mapping shows every committed page (a backup reads it directly).
    /// </summary>
    public void WriteOutUnwrittenPages()
    {
        if (_unwritten is null || _unwritten.IsEmpty) return;
        var entries = _unwritten.Collect();
        try
        {
            WriteCollected(entries, leaveOutFreedUpTo: long.MinValue, new List<ReadOnlyMemory<byte>>());
        }
        finally
        {
            _unwritten.EndCollect(entries);
        }
    }

    /// <summary>
    /// Writes collected pages (in page order) with one gathered write per stretch of consecutive pages, leaving
    /// out those freed at or before transaction <paramref name="leaveOutFreedUpTo"/>.
    /// </summary>
    private void WriteCollected(ReadOnlySpan<KeyValuePair<long, UnwrittenPages.Entry>> entries, long leaveOutFreedUpTo, List<ReadOnlyMemory<byte>> gather)
    {
        // The data file must never hold a page version newer than the durable journal (see PageWriter.Seal).
        _journal?.SyncBuffered();
        int i = 0;
        while (i < entries.Length)
        {
            // One stretch at a time under the lock of commits that write their pages themselves (see PlacePages),
            // so that a version such a commit superseded is never written over the newer one.
            lock (_dataPageWrites)
            {
                if (!Writable(entries[i].Value, leaveOutFreedUpTo))
                {
                    i++;
                    continue;
                }
                long first = entries[i].Key;
                long next = first;
                gather.Clear();
                while (i < entries.Length && entries[i].Key == next && gather.Count < MaxGatheredPages && Writable(entries[i].Value, leaveOutFreedUpTo))
                {
                    var run = entries[i].Value.Run;
                    gather.Add(run.Buffer.Memory);
                    next += run.PageCount;
                    i++;
                }
                _data.Write(first, gather);
                _unwritten!.NoteWritten(entries[(i - gather.Count)..i]);
            }
        }
        gather.Clear();
    }

    private bool Writable(UnwrittenPages.Entry entry, long leaveOutFreedUpTo) =>
        Volatile.Read(ref entry.FreedBy) > leaveOutFreedUpTo && !entry.Superseded && !_unwritten!.NewerVersionWritten(entry);
}
