using System.Runtime.InteropServices;
using Microsoft.Extensions.Logging;
using StorageEngine.Common;
using StorageEngine.Journal;
using StorageEngine.Paging;
using StorageEngine.Platform;

namespace StorageEngine.Transactions;

/// <summary>
/// Opens or creates the files of an environment and brings the data file up to the last durable commit:
/// reads the checkpoint header, replays the journal after it, syncs, and writes a new checkpoint.
/// </summary>
internal static unsafe class EnvironmentFiles
{
    public const string DataFileName = "data.sedb";
    public const string LockFileName = "LOCK";

    /// <summary>What opening found.</summary>
    /// <param name="DataFile">The open data file.</param>
    /// <param name="Header">The checkpoint header as written at open.</param>
    /// <param name="State">The state after recovery.</param>
    /// <param name="NextJournalFile">The journal file this session starts writing.</param>
    /// <param name="Replayed">Journal records replayed.</param>
    /// <param name="NeedsFreeSpaceRebuild">
    /// The previous session was Lazy and did not close cleanly: its data file may carry bitmap pages of
    /// transactions whose records were lost, so the free-space map must be rebuilt from the trees.
    /// </param>
    /// <param name="SessionPending">
    /// The header still names the previous session, and the caller starts the new one with
    /// <see cref="FinishRecovery"/> (in the background: it syncs, so it is most of an open's time). When records
    /// were replayed they are in the data file but neither synced nor checkpointed, and the previous session's
    /// journal holds every one of them until then.
    /// </param>
    /// <remarks>
    /// A read-write open with a journal leaves the new session to the caller: it opens the session's first journal
    /// file, and only then writes the header that names it (<see cref="StartSession"/>). The header of an unclean
    /// session then always names a journal file that exists, which is what lets an open tell a lost journal from a
    /// crash (see <see cref="HasJournal"/>).
    /// </remarks>
    /// <param name="RecordedFreePages">
    /// The free pages the bitmaps mark, as the clean close that wrote the header recorded them
    /// (<see cref="DataFileHeaderTrailer"/>), or -1: the header is not a clean close's, records no count, or the open
    /// changed the data file (replayed records, or a free-space map to rebuild).
    /// </param>
    public sealed record Opened(IStorageFile DataFile, DataFileHeader Header, EnvironmentState State, long NextJournalFile,
        long Replayed, bool NeedsFreeSpaceRebuild, bool SessionPending = false, long RecordedFreePages = -1);

    /// <param name="fs">The file layer.</param>
    /// <param name="directory">The environment's directory.</param>
    /// <param name="pageSize">Page size for a new environment.</param>
    /// <param name="durability">What the session being opened promises: InMemory has no journal; Lazy is recorded in the header.</param>
    /// <param name="logger">Where opening and recovery are reported.</param>
    /// <param name="readOnly">
    /// Write nothing: no creation, no replay, no new session. An environment that needs recovery (journal records
    /// past the checkpoint, or an unclean Lazy session) is refused with a <see cref="StorageException"/>.
    /// </param>
    /// <param name="acceptJournalLoss">
    /// Open although the journal an unclean session needs is missing or empty (as of the last checkpoint, with the
    /// free-space map rebuilt), or although the data file is empty beside journal files (as a new environment,
    /// the old journal files deleted). Without it both are refused with a <see cref="CorruptionException"/>.
    /// </param>
    /// <param name="lockDataFile">
    /// Locks the data file before anything reads or writes it (shared for a read-only open); throws
    /// <see cref="EnvironmentLockedException"/> when another open holds it.
    /// </param>
    public static Opened OpenOrCreate(IFileSystem fs, string directory, int pageSize, DurabilityMode durability, ILogger logger, bool readOnly = false,
        bool acceptJournalLoss = false, Action<IStorageFile>? lockDataFile = null)
    {
        bool useJournal = durability != DurabilityMode.InMemory;
        bool lazy = durability == DurabilityMode.Lazy;
        string path = System.IO.Path.Combine(directory, DataFileName);
        if (readOnly && !fs.Exists(path))
            throw new StorageException($"There is no environment to open read-only in '{directory}': it has no {DataFileName} file.");
        // A missing data file is not opened (which would create an empty one and sync the directory for it): Create
        // makes the whole file under another name and renames it into place. The lock on the directory's LOCK file
        // keeps other opens out meanwhile, as it does while an empty data file is replaced.
        IStorageFile? file = readOnly || fs.Exists(path) ? fs.Open(path, StorageFileMode.Buffered) : null;
        bool created = false;
        try
        {
            if (file is not null) lockDataFile?.Invoke(file);
            if (file is not null && file.Length == 0 && readOnly)
                throw new StorageException($"There is no environment to open read-only in '{directory}': {DataFileName} is empty.");
            if (file is null || file.Length == 0)
            {
                // A new environment has no journal yet, and keeps no spare journal file until its first open completes:
                // journal files beside an empty data file (in use or spare) mean that the data file was lost.
                var journalFiles = fs.ListFiles(directory).Where(name => JournalFileNames.TryParse(name, out _) || JournalFileNames.IsFree(name)).ToList();
                if (journalFiles.Count > 0 && useJournal)
                {
                    if (!acceptJournalLoss)
                        throw new CorruptionException(path, 0,
                            $"the data file is empty, but journal files of an existing environment are beside it ({string.Join(", ", journalFiles)}): the environment's data file was lost or emptied. " +
                            "Restore it, or open with StorageEnvironmentOptions.AcceptJournalLoss = true to start a new, empty environment in its place (the journal files are deleted).");
                    foreach (var name in journalFiles) fs.Delete(System.IO.Path.Combine(directory, name));
                    logger.LostDataFileReplaced(path, journalFiles.Count);
                }
                file?.Dispose();
                file = null;
                created = true;
                file = Create(fs, directory, pageSize);
                lockDataFile?.Invoke(file);
                logger.EnvironmentCreated(directory, pageSize);
            }
            var header = DataFileHeaderStore.ReadNewest(file, out long recordedFreePages);
            var state = ReadState(header);
            ValidateState(file, header, state);

            long replayed = 0;
            long nextJournal = header.JournalFileNumber;
            bool previousLazy = (header.Flags & DataFileHeaderFlags.LazySession) != 0;
            bool needsRebuild = previousLazy && (header.Flags & DataFileHeaderFlags.CleanShutdown) == 0;
            if (useJournal && !HasJournal(fs, directory, header, out string? missing, out bool fileMissing))
                needsRebuild = AcceptJournalLoss(directory, path, header, missing!, fileMissing, acceptJournalLoss, readOnly, logger);
            if (readOnly && useJournal && needsRebuild)
                throw NeedsRecovery(directory, "its last session ran in Lazy mode and did not close cleanly, so its free-space map must be rebuilt");
            if (useJournal)
            {
                var reader = new JournalReader(fs, directory, header.EnvironmentId, header.SessionId, previousLazy, header.PageSize);
                long started = System.Diagnostics.Stopwatch.GetTimestamp();
                var changedInPlace = new HashSet<long>();
                long last = reader.Replay(header.JournalFileNumber, header.CheckpointTransactionId, record =>
                {
                    if (readOnly)
                        throw NeedsRecovery(directory, $"its journal holds transaction {record.TransactionId}, committed after the last checkpoint (transaction {header.CheckpointTransactionId})");
                    state = Apply(file, header, record, changedInPlace);
                    replayed++;
                });
                if (replayed == 0 && !reader.StartFileHeldRecord
                    && (header.Flags & (DataFileHeaderFlags.CleanShutdown | DataFileHeaderFlags.LazySession | DataFileHeaderFlags.JournalInUse)) == DataFileHeaderFlags.JournalInUse)
                {
                    string overwritten = $"The journal file '{System.IO.Path.Combine(directory, JournalFileNames.ForNumber(header.JournalFileNumber))}' holds no record of the last session, " +
                        "though that session had written records there (it was overwritten, zeroed or replaced).";
                    needsRebuild = AcceptJournalLoss(directory, path, header, overwritten, fileMissing: false, acceptJournalLoss, readOnly, logger);
                }
                VerifyChangedInPlace(file, header.PageSize, changedInPlace);
                var numbers = reader.FileNumbers();
                nextJournal = Math.Max(header.JournalFileNumber, numbers.Count > 0 ? numbers[^1] : 0) + 1;
                if (readOnly) return new Opened(file, header, state, nextJournal, 0, false, RecordedFreePages: TrustedFreePages(header, recordedFreePages, replayed, needsRebuild));
                if (replayed > 0)
                {
                    Common.EngineInstruments.Recovered(started, replayed);
                    logger.RecoveryReplayed(replayed, header.CheckpointTransactionId + 1, last, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalMilliseconds);
                }
                if (file.Length < state.PageCount * header.PageSize) file.SetLength(state.PageCount * header.PageSize);
                // Syncing what was replayed takes longer than the replay (its pages go to the device): the
                // caller does it in the background, and the journal keeps every replayed record until then. With
                // nothing replayed, starting the session (the first journal file moved into place, the header
                // written, each synced) is still most of an open's time, and goes to the background too: until
                // it ends the header names the previous session, which a crash then reopens as it was. A new
                // environment starts its session now, so that a disk too full for its first journal file fails
                // the open that created it rather than its first commit.
                if (!needsRebuild && !created)
                    return new Opened(file, header, state, nextJournal, replayed, false, SessionPending: true, TrustedFreePages(header, recordedFreePages, replayed, needsRebuild));
                // A created file was synced whole before its rename (see Create), and nothing was replayed into it.
                if (!created) file.Flush();
                // The caller starts the new session once its first journal file exists; after an unclean Lazy
                // session it rebuilds the free-space map first. The old header stays until then, so a crash in
                // between recovers (or rebuilds) again.
            }
            return new Opened(file, header, state, nextJournal, replayed, needsRebuild && useJournal, RecordedFreePages: TrustedFreePages(header, recordedFreePages, replayed, needsRebuild));
        }
        catch
        {
            file?.Dispose();
            throw;
        }
    }

    /// <summary>
    /// The free-page count a clean close recorded, where it still describes the data file's bitmaps: the header is
    /// that close's (its trailer's checksum ties the count to this very header write, see
    /// <see cref="DataFileHeaderTrailer"/>), so nothing has written the data file since (the next session's first write
    /// is its header, which records no count), and this open replayed nothing into it and rebuilds nothing. Else -1.
    /// </summary>
    private static long TrustedFreePages(in DataFileHeader header, long recorded, long replayed, bool needsRebuild) =>
        (header.Flags & DataFileHeaderFlags.CleanShutdown) != 0 && replayed == 0 && !needsRebuild ? recorded : -1;

    /// <summary>
    /// Whether the journal the header needs is there. A header without <see cref="DataFileHeaderFlags.CleanShutdown"/>
    /// says that commits after its checkpoint may exist only in the journal, from file
    /// <see cref="DataFileHeader.JournalFileNumber"/> on; the session opened that file before it wrote the header
    /// (see <see cref="Opened"/>), so a missing file was deleted. A Safe session's file is preallocated and synced
    /// first, so an empty one was emptied; a Lazy session's length is not synced, and a power loss may empty it.
    /// </summary>
    private static bool HasJournal(IFileSystem fs, string directory, in DataFileHeader header, out string? missing, out bool fileMissing)
    {
        missing = null;
        fileMissing = false;
        if ((header.Flags & DataFileHeaderFlags.CleanShutdown) != 0) return true;
        string name = JournalFileNames.ForNumber(header.JournalFileNumber);
        string path = System.IO.Path.Combine(directory, name);
        if (!fs.Exists(path))
        {
            missing = $"The journal file '{path}' is missing.";
            fileMissing = true;
            return false;
        }
        if ((header.Flags & DataFileHeaderFlags.LazySession) != 0) return true;
        using var journal = fs.Open(path, StorageFileMode.Buffered);
        if (journal.Length > 0) return true;
        missing = $"The journal file '{path}' is empty.";
        return false;
    }

    /// <summary>
    /// A lost journal: refused with a <see cref="CorruptionException"/> naming the damaged journal file (or, for a
    /// missing one, the data file whose header at offset 0 requires it), unless <paramref name="accept"/>. Accepted,
    /// the open goes on as of the last checkpoint and returns that the free-space map must be rebuilt: commits after
    /// the checkpoint may have written pages, bitmap pages among them, into the data file.
    /// </summary>
    private static bool AcceptJournalLoss(string directory, string dataFilePath, in DataFileHeader header, string problem, bool fileMissing,
        bool accept, bool readOnly, ILogger logger)
    {
        string journal = System.IO.Path.Combine(directory, JournalFileNames.ForNumber(header.JournalFileNumber));
        if (!accept)
        {
            throw new CorruptionException(fileMissing ? dataFilePath : journal, 0,
                $"{problem} The data file's header says that the last session did not close cleanly and that every commit after transaction " +
                $"{header.CheckpointTransactionId} (its last checkpoint) is in the journal, from file {JournalFileNames.ForNumber(header.JournalFileNumber)} on: " +
                "without it those commits are lost. Restore the journal files, or open with StorageEnvironmentOptions.AcceptJournalLoss = true " +
                $"to open the environment as of transaction {header.CheckpointTransactionId}, losing every commit after it.");
        }
        if (readOnly) throw NeedsRecovery(directory, $"its journal is lost ({problem}) and AcceptJournalLoss is set, which rebuilds the free-space map");
        logger.JournalLossAccepted(problem, header.CheckpointTransactionId);
        return true;
    }

    private static StorageException NeedsRecovery(string directory, string why) =>
        new($"The environment in '{directory}' needs recovery before it can be opened read-only: {why}. Open it once read-write (ReadOnly = false) to recover it, then open it read-only.");

    /// <summary>
    /// Records that the replayed pages are durable and the journal so far is no longer needed, and starts a
    /// new session: only its records count from now on.
    /// </summary>
    public static DataFileHeader StartSession(IStorageFile file, DataFileHeader header, EnvironmentState state, long nextJournal, bool lazy, long sessionId)
    {
        header.SessionId = sessionId;
        header.Flags = lazy ? DataFileHeaderFlags.LazySession : DataFileHeaderFlags.None;
        return WriteCheckpoint(file, header, state, nextJournal);
    }

    /// <summary>
    /// Records in the header that the session has written journal records, the first of them in
    /// <paramref name="journalFileNumber"/> (see <see cref="DataFileHeaderFlags.JournalInUse"/>); the checkpoint
    /// it describes is unchanged. Written and synced after the session's first record is durable and before that
    /// commit is acknowledged.
    /// </summary>
    public static DataFileHeader MarkJournalInUse(IStorageFile file, DataFileHeader header, long journalFileNumber)
    {
        header.Sequence++;
        header.Flags |= DataFileHeaderFlags.JournalInUse;
        header.JournalFileNumber = journalFileNumber;
        DataFileHeaderStore.Write(file, header);
        return header;
    }

    /// <summary>A new session's id: records of earlier sessions left in reused journal files never match it.</summary>
    public static long NewSessionId() => RandomIds.Next();

    /// <summary>
    /// The end of a recovery that left its session pending (<see cref="Opened.SessionPending"/>): syncs the
    /// replayed pages, then starts the new session with a checkpoint header. Until this returns, the crashed
    /// session's journal is the only durable copy of the replayed records and must be neither retired nor
    /// appended to.
    /// </summary>
    public static DataFileHeader FinishRecovery(IStorageFile file, DataFileHeader header, EnvironmentState state, long nextJournal, bool lazy, long sessionId)
    {
        file.Flush();
        return StartSession(file, header, state, nextJournal, lazy, sessionId);
    }

    /// <summary>Writes the next checkpoint header copy, recording that the data file holds <paramref name="state"/>.</summary>
    /// <param name="file">The data file (already synced).</param>
    /// <param name="header">The current header.</param>
    /// <param name="state">The state the data file now durably holds.</param>
    /// <param name="journalFileNumber">The journal file recovery starts from.</param>
    /// <param name="clean">The final checkpoint of a clean close.</param>
    /// <param name="freePages">
    /// For a clean close, the pages the bitmaps of <paramref name="state"/> mark free, recorded so that the next open
    /// need not count them (see <see cref="DataFileHeaderTrailer"/>); -1 records none.
    /// </param>
    public static DataFileHeader WriteCheckpoint(IStorageFile file, DataFileHeader header, EnvironmentState state, long journalFileNumber, bool clean = false,
        long freePages = -1)
    {
        header.Sequence++;
        header.Flags = clean ? header.Flags | DataFileHeaderFlags.CleanShutdown : header.Flags & ~DataFileHeaderFlags.CleanShutdown;
        header.CheckpointTransactionId = state.TransactionId;
        header.JournalFileNumber = journalFileNumber;
        WriteState(ref header, state);
        return DataFileHeaderStore.Write(file, header, clean ? freePages : -1);
    }

    public static EnvironmentState ReadState(in DataFileHeader header)
    {
        fixed (byte* s = header.State) return MemoryMarshal.Read<EnvironmentState>(new ReadOnlySpan<byte>(s, EnvironmentState.Size));
    }

    private static void WriteState(ref DataFileHeader header, EnvironmentState state)
    {
        fixed (byte* s = header.State) MemoryMarshal.Write(new Span<byte>(s, EnvironmentState.Size), in state);
    }

    private static void ValidateState(IStorageFile file, in DataFileHeader header, EnvironmentState state)
    {
        if (state.PageCount < FreeSpaceMap.FirstBitmapPage + 1 || state.TransactionId != header.CheckpointTransactionId)
            throw new CorruptionException(file.Path, 0, $"the checkpoint header describes an impossible state (page count {state.PageCount}, transaction {state.TransactionId}).");
        if (state.PageCount > file.Length / header.PageSize)
            throw new CorruptionException(file.Path, 0, $"the checkpoint header says the file holds {state.PageCount} pages, but it is only {file.Length} bytes long.");
    }

    // changedInPlace collects pages rebuilt from diffs against themselves, checked once all records are replayed.
    private static EnvironmentState Apply(IStorageFile file, in DataFileHeader header, JournalRecord record, HashSet<long> changedInPlace)
    {
        var state = MemoryMarshal.Read<EnvironmentState>(record.State);
        if (state.TransactionId != record.TransactionId || state.PageCount < FreeSpaceMap.FirstBitmapPage + 1)
            throw new CorruptionException(file.Path, 0, $"journal record {record.TransactionId} carries an impossible state.");
        byte[]? page = null;
        for (int i = 0; i < record.RunCount; i++)
        {
            var bytes = record.GetRun(i, out long first, out int count, out long basePage);
            if (first < FreeSpaceMap.FirstBitmapPage || first + count > state.PageCount)
                throw new CorruptionException(file.Path, 0, $"journal record {record.TransactionId} writes pages {first}..{first + count - 1}, outside the {state.PageCount} pages it describes.");
            if (basePage == JournalPageRun.FullImage)
            {
                file.Write(first * header.PageSize, bytes);
                continue;
            }
            // Synced into the data file before the record was written, on pages no earlier record writes.
            if (basePage == JournalPageRun.InPlace) continue;
            page ??= new byte[header.PageSize];
            Rebuild(file, header.PageSize, state.PageCount, record, first, basePage, bytes, page);
            file.Write(first * header.PageSize, page);
            if (basePage == first) changedInPlace.Add(first);
        }
        return state;
    }

    private static unsafe void VerifyChangedInPlace(IStorageFile file, int pageSize, HashSet<long> pages)
    {
        if (pages.Count == 0) return;
        var buffer = new byte[pageSize];
        foreach (long pageNumber in pages)
        {
            file.Read(pageNumber * pageSize, buffer);
            fixed (byte* p = buffer)
            {
                if (!PageChecksum.IsValid(p, pageSize, pageNumber))
                    throw new CorruptionException(file.Path, pageNumber * pageSize,
                        $"page {pageNumber}, rebuilt from the journal's diffs against the data file's copy, fails its checksum: the data file's copy was damaged.");
            }
        }
    }

    /// <summary>
    /// Rebuilds a page the record carries as a diff: the base page as the data file holds it (earlier records
    /// already replayed), the diff applied, and the result checked against the checksum it must carry.
    /// </summary>
    private static unsafe void Rebuild(IStorageFile file, int pageSize, long pageCount, JournalRecord record, long pageNumber, long basePage,
        ReadOnlySpan<byte> diff, byte[] page)
    {
        if (basePage == JournalPageRun.ZeroPage)
        {
            Array.Clear(page);
        }
        else
        {
            if (basePage < FreeSpaceMap.FirstBitmapPage || basePage >= pageCount)
                throw new CorruptionException(file.Path, 0, $"journal record {record.TransactionId} builds page {pageNumber} on page {basePage}, outside the {pageCount} pages it describes.");
            if (file.Read(basePage * pageSize, page) != pageSize)
                throw new CorruptionException(file.Path, basePage * pageSize, $"page {basePage}, the base of page {pageNumber} in journal record {record.TransactionId}, is past the end of the file.");
        }
        if (!PageDiff.TryApply(diff, page))
            throw new CorruptionException(file.Path, 0, $"journal record {record.TransactionId} carries a malformed diff for page {pageNumber}.");
        // A page diffed against itself (a bitmap page, changed in place) may start from any version the data
        // file holds between the checkpoint and the journal's end; only once every record is replayed must it
        // be the last one, which VerifyChangedInPlace checks.
        if (basePage == pageNumber) return;
        fixed (byte* p = page)
        {
            if (!PageChecksum.IsValid(p, pageSize, pageNumber))
                throw new CorruptionException(file.Path, Math.Max(basePage, 0) * pageSize,
                    $"page {pageNumber} rebuilt from journal record {record.TransactionId} fails its checksum: its base page {basePage} in the data file does not hold what the record was made against (the data file is damaged).");
        }
    }

    /// <summary>
    /// Writes a new, empty data file under a temporary name and renames it into place, so that a crash
    /// during creation leaves no half-made file.
    /// </summary>
    private static IStorageFile Create(IFileSystem fs, string directory, int pageSize)
    {
        string path = System.IO.Path.Combine(directory, DataFileName);
        string temporary = path + ".new";
        using (var file = fs.Open(temporary, StorageFileMode.Buffered | StorageFileMode.RenamedIntoPlace))
        {
            file.SetLength(0);
            long pageCount = FreeSpaceMap.InitialPageCount(pageSize);
            file.SetLength(pageCount * pageSize);
            // The first section's bitmap: every bit zero, since every page of the new file is in use.
            var bitmap = new byte[pageSize];
            for (long page = FreeSpaceMap.FirstBitmapPage; page < pageCount; page++)
            {
                fixed (byte* b = bitmap)
                {
                    var h = (PageHeader*)b;
                    h->PageNumber = page;
                    h->Flags = PageFlags.FreeSpaceBitmap;
                    PageChecksum.Stamp(b, pageSize);
                }
                file.Write(page * pageSize, bitmap);
            }
            var header = new DataFileHeader
            {
                PageSize = pageSize,
                EnvironmentId = RandomIds.Next() & long.MaxValue,
                JournalFileNumber = 1,
                // Nothing to recover: no session has run, and no journal file exists yet.
                Flags = DataFileHeaderFlags.CleanShutdown,
            };
            var state = new EnvironmentState { TransactionId = 0, PageCount = pageCount };
            WriteState(ref header, state);
            // Both copies, then one sync: the file is not the data file until the rename below, so no crash can
            // find one copy written and the other not yet synced. Each records that no page is free (every bit above
            // is zero), which spares the first open counting.
            header.Sequence = 0;
            DataFileHeaderStore.WriteUnsynced(file, header, freePages: 0);
            header.Sequence = 1;
            DataFileHeaderStore.WriteUnsynced(file, header, freePages: 0);
            file.Flush();
        }
        fs.Rename(temporary, path);
        return fs.Open(path, StorageFileMode.Buffered);
    }
}
