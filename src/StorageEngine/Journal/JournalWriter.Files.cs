using System.Buffers.Binary;
using Microsoft.Extensions.Logging;
using StorageEngine.Common;
using StorageEngine.Platform;

namespace StorageEngine.Journal;

// The journal's files: opened or preallocated, a spare kept ready, retired once checkpointed (recycled as
// journal-free.N or deleted).
internal sealed unsafe partial class JournalWriter
{
    /// <summary>
    /// Opens file <paramref name="number"/>, renaming a free file into place when there is one (the oldest at least
    /// <paramref name="wanted"/> long, else the oldest at least <paramref name="needed"/>, else the oldest), and
    /// returns it with the bytes records may fill and the bytes already written. With
    /// <paramref name="preallocate"/>, zeros make it at least <paramref name="needed"/> long.
    /// </summary>
    private (IStorageFile File, long Capacity, long Written) OpenFile(long number, long wanted, long needed, bool preallocate)
    {
        string path = Path.Combine(_directory, JournalFileNames.ForNumber(number));
        bool created = false;
        lock (_filesLock)
        {
            created = !_fileSystem.Exists(path) && FreeFiles.Count == 0;
            if (!_fileSystem.Exists(path) && FreeFiles.Count > 0)
            {
                int pick = FreeFiles.FindIndex(f => f.Length >= wanted);
                if (pick < 0) pick = FreeFiles.FindIndex(f => f.Length >= needed);
                if (pick < 0) pick = 0;
                _fileSystem.Rename(FreeFiles[pick].Path, path);
                FreeFiles.RemoveAt(pick);
            }
        }
        // A buffered journal's appends are copies into a mapping of the file rather than write calls.
        var file = _fileSystem.Open(path, _durable ? StorageFileMode.UnbufferedWriteThrough : StorageFileMode.Buffered | StorageFileMode.MappedAppends);
        try
        {
            if (!preallocate)
            {
                // A buffered file is made its full length at once, without writing anything (a sparse file): appends
                // that moved its end would each update the inode, and wait behind the file system's own journal.
                if (!_durable && file.Length < wanted) file.SetLength(wanted);
                return (file, Math.Max(wanted, file.Length), file.Length);
            }
            if (file.Length < needed)
            {
                // Whoever opens a file waits for it (the open, the session start, or the commit that switches to
                // it), and no commit writes beside it: the zeros can go in one write.
                file.Preallocate(needed, nothingWaits: true);
                _logger.JournalFilePreallocated(path, needed);
            }
            if (_durable && !file.IsWriteThrough && !_warnedBuffered)
            {
                _warnedBuffered = true;
                _logger.JournalWritesBuffered(path);
            }
            return (file, file.Length, file.Length);
        }
        catch
        {
            file.Dispose();
            // A full disk makes the preallocation fail half way: a file made here is not left behind, where the
            // next try would find it and a free file could no longer take its place.
            if (created)
            {
                try
                {
                    _fileSystem.Delete(path);
                }
                catch (IOException)
                {
                }
            }
            throw;
        }
    }

    /// <summary>
    /// When <see cref="SpareWanted"/>, makes sure a preallocated spare file as large as the next switch wants
    /// waits for it, so that a commit never writes a new file's zeros itself. Called off the commit path (by the
    /// checkpointer). A buffered journal needs no spare: its files are not preallocated.
    /// </summary>
    public void EnsureSpareFile()
    {
        // Not wanted after a large write either: the next large one takes any file, a small one makes its own.
        if (!_durable || !_spareWanted) return;
        long size = NextGenerationSize;
        SpareJournalFile spare;
        lock (_filesLock)
        {
            if (FreeFiles.Exists(f => f.Length >= size))
            {
                _spareWanted = false;
                return;
            }
            // The largest free file grows rather than a new one being written whole: the zeros (or old records) it
            // holds are already on the disk, so a session's small first files end up its full-size ones.
            int largest = -1;
            for (int i = 0; i < FreeFiles.Count; i++)
            {
                if (largest < 0 || FreeFiles[i].Length > FreeFiles[largest].Length) largest = i;
            }
            if (largest >= 0)
            {
                spare = FreeFiles[largest];
                FreeFiles.RemoveAt(largest);
            }
            else
            {
                spare = new SpareJournalFile(Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter))), 0);
            }
        }
        try
        {
            // Written unbuffered, as the journal will write it: zeros left in the page cache would make each of its
            // direct writes evict them first.
            using var file = _fileSystem.Open(spare.Path, StorageFileMode.UnbufferedWriteThrough);
            file.Preallocate(size);
        }
        catch
        {
            // A full disk makes every retry fail: leave no half-preallocated new file behind each time. A file
            // that was free before stays free, as long as it was.
            try
            {
                if (spare.Length == 0) _fileSystem.Delete(spare.Path);
                else lock (_filesLock) FreeFiles.Add(spare);
            }
            catch (IOException)
            {
            }

            throw;
        }

        lock (_filesLock)
        {
            FreeFiles.Add(spare with { Length = size });
            // A switch since the size was read may want a larger one already.
            _spareWanted = NextGenerationSize > size;
        }
    }

    /// <summary>Retires every journal file numbered below <paramref name="fileNumber"/>: all their records are checkpointed.</summary>
    public int RetireBelow(long fileNumber)
    {
        int retired = 0;
        lock (_filesLock)
        {
            foreach (var name in _fileSystem.ListFiles(_directory))
            {
                if (!JournalFileNames.TryParse(name, out long number) || number >= fileNumber || number >= CurrentFileNumber) continue;
                RecycleOrDelete(name);
                retired++;
            }
        }
        return retired;
    }

    /// <summary>
    /// On a clean close, once the header points past every journal file: closes the current file and keeps a
    /// single file for the next session to start with (it would otherwise preallocate one), deleting the others.
    /// The kept file is cut to a thirty-second of <paramref name="dataFileBytes"/> (a power of two from
    /// <see cref="InitialFileSize"/> to the configured size), so that a closed environment takes about 3% more
    /// disk than its data file, yet a large one does not start again from 1 MiB files. A Lazy journal keeps none.
    /// </summary>
    public void RetireAllOnClose(long dataFileBytes)
    {
        lock (_syncLock)
        {
            _file?.Dispose();
            _file = null;
            foreach (var file in _unsyncedFiles) file.Dispose();
            _unsyncedFiles.Clear();
        }
        long keep = InitialFileSize;
        while (keep * 2 <= Math.Min(_maxFileSize, dataFileBytes / 32)) keep *= 2;
        lock (_filesLock)
        {
            // Every file is free now; the largest is kept (its bytes are on the disk already), the others deleted.
            var candidates = new List<SpareJournalFile>(FreeFiles);
            FreeFiles.Clear();
            foreach (var name in _fileSystem.ListFiles(_directory))
            {
                if (JournalFileNames.TryParse(name, out long number) && number <= CurrentFileNumber)
                {
                    string path = Path.Combine(_directory, name);
                    candidates.Add(new SpareJournalFile(path, LengthOf(path)));
                }
            }
            if (candidates.Count == 0) return;
            // A Lazy journal keeps none: its files cost nothing to make (they are sparse), and a sparse file would
            // make a later Safe session's first writes allocate blocks.
            if (!_durable)
            {
                foreach (var candidate in candidates) _fileSystem.Delete(candidate.Path);
                return;
            }
            var kept = candidates.MaxBy(c => c.Length)!;
            foreach (var candidate in candidates)
            {
                if (candidate.Path != kept.Path) _fileSystem.Delete(candidate.Path);
            }
            if (!JournalFileNames.IsFree(Path.GetFileName(kept.Path)))
            {
                string free = Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter)));
                _fileSystem.Rename(kept.Path, free);
                kept = kept with { Path = free };
            }
            if (kept.Length > keep)
            {
                using (var file = _fileSystem.Open(kept.Path, StorageFileMode.Buffered))
                {
                    file.SetLength(keep);
                    file.Flush();
                }
                kept = kept with { Length = keep };
            }
            FreeFiles.Add(kept);
        }
    }

    /// <summary>
    /// The spare files (<c>journal-free.*</c>), listed with their lengths when first needed rather than by the
    /// constructor: an open whose session starts in the background (see StorageEnvironment.FinishRecovery) then
    /// returns without listing the directory and opening each spare. Only this writer adds or removes spares, so
    /// the list stays what the directory holds. Under the files lock.
    /// </summary>
    private List<SpareJournalFile> FreeFiles
    {
        get
        {
            if (_freeFilesListed is { } listed) return listed;
            var spares = new List<SpareJournalFile>();
            foreach (var name in _fileSystem.ListFiles(_directory))
            {
                if (!JournalFileNames.IsFree(name)) continue;
                string path = Path.Combine(_directory, name);
                spares.Add(new SpareJournalFile(path, LengthOf(path)));
            }
            return _freeFilesListed = spares;
        }
    }

    private long LengthOf(string path)
    {
        using var file = _fileSystem.Open(path, StorageFileMode.Buffered);
        return file.Length;
    }

    /// <summary>
    /// Renames a retired file to a free one while fewer than <see cref="MaxFreeFiles"/> wait, else deletes it. A
    /// small one is kept too: <see cref="EnsureSpareFile"/> grows it when larger files are wanted. Under the files lock.
    /// </summary>
    private void RecycleOrDelete(string name)
    {
        string path = Path.Combine(_directory, name);
        if (FreeFiles.Count < MaxFreeFiles)
        {
            long length = LengthOf(path);
            string free = Path.Combine(_directory, JournalFileNames.Free(Interlocked.Increment(ref _freeCounter)));
            _fileSystem.Rename(path, free);
            FreeFiles.Add(new SpareJournalFile(free, length));
        }
        else
        {
            _fileSystem.Delete(path);
        }
    }
}
