using System.Runtime.InteropServices;
using StorageEngine.Platform;

namespace StorageEngine.Paging;

/// <summary>Reads and writes the two checkpoint header copies at the start of the data file.</summary>
internal static unsafe class DataFileHeaderStore
{
    /// <summary>
    /// Reads both copies and returns the newest valid one. Throws <see cref="CorruptionException"/> when the
    /// file is not a data file of this engine or neither copy is intact.
    /// </summary>
    public static DataFileHeader ReadNewest(IStorageFile file) => ReadNewest(file, out _);

    /// <summary>
    /// <see cref="ReadNewest(IStorageFile)"/>, and the free pages the copy's trailer records for it
    /// (<see cref="DataFileHeaderTrailer"/>), or -1 when it records none.
    /// </summary>
    public static DataFileHeader ReadNewest(IStorageFile file, out long recordedFreePages)
    {
        if (file.Length < PageSizes.Min)
            throw new CorruptionException(file.Path, 0, $"the data file is {file.Length} bytes long, too short to hold a header.");

        bool foundMagic = TryRead(file, 0, out var first, out var firstTrailer, out bool firstMagic);
        // The second copy sits at one page; its size is only known from a valid first copy.
        bool foundSecond = false;
        DataFileHeader second = default;
        DataFileHeaderTrailer secondTrailer = default;
        bool secondMagic = false;
        if (foundMagic)
        {
            foundSecond = TryRead(file, first.PageSize, out second, out secondTrailer, out secondMagic);
        }
        else
        {
            for (int size = PageSizes.Min; size <= PageSizes.Max && !foundSecond; size *= 2)
            {
                foundSecond = TryRead(file, size, out second, out secondTrailer, out bool magic) && second.PageSize == size;
                secondMagic |= magic;
            }
        }

        if (!foundMagic && !foundSecond)
        {
            if (!firstMagic && !secondMagic)
                throw new CorruptionException(file.Path, 0, "the file is not a StorageEngine data file (bad magic number).");
            throw new CorruptionException(file.Path, 0, "both checkpoint header copies fail their checksum.");
        }

        bool firstBest = !foundSecond || (foundMagic && first.Sequence >= second.Sequence);
        var best = firstBest ? first : second;
        recordedFreePages = (firstBest ? firstTrailer : secondTrailer).FreePagesFor(best.Checksum);
        if (best.FormatVersion is < DataFileHeader.OldestFormatVersion or > DataFileHeader.CurrentFormatVersion)
            throw new CorruptionException(file.Path, 0, $"unsupported data file format version {best.FormatVersion} (this build reads versions {DataFileHeader.OldestFormatVersion} to {DataFileHeader.CurrentFormatVersion}).");
        return best;
    }

    private static bool TryRead(IStorageFile file, long offset, out DataFileHeader header, out DataFileHeaderTrailer trailer, out bool magicMatches)
    {
        header = default;
        trailer = default;
        magicMatches = false;
        if (offset + DataFileHeader.Size > file.Length) return false;
        // The trailer in the same read: a header copy is at least a minimum page long when its checksum holds, and
        // a trailer cut short by a shorter file stays zero, which records nothing.
        Span<byte> bytes = stackalloc byte[DataFileHeader.Size + DataFileHeaderTrailer.Size];
        int read = file.Read(offset, bytes[..(int)Math.Min(bytes.Length, file.Length - offset)]);
        if (read < DataFileHeader.Size) return false;
        header = MemoryMarshal.Read<DataFileHeader>(bytes);
        if (read == bytes.Length) trailer = MemoryMarshal.Read<DataFileHeaderTrailer>(bytes[DataFileHeaderTrailer.Offset..]);
        magicMatches = header.Magic == DataFileHeader.MagicValue;
        return magicMatches
            && header.Checksum == header.ComputeChecksum()
            && PageSizes.IsValid(header.PageSize)
            && offset == (header.Sequence % 2) * header.PageSize;
    }

    /// <summary>
    /// Writes <paramref name="header"/> over the copy its sequence selects, then syncs the file. With
    /// <paramref name="freePages"/> of 0 or more its trailer records that count (<see cref="DataFileHeaderTrailer"/>);
    /// otherwise the trailer is zeros, which record nothing.
    /// </summary>
    public static DataFileHeader Write(IStorageFile file, DataFileHeader header, long freePages = -1)
    {
        header = WriteUnsynced(file, header, freePages);
        file.Flush();
        return header;
    }

    /// <summary>Writes <paramref name="header"/> over the copy its sequence selects, leaving the sync to the caller; returns it as written.</summary>
    public static DataFileHeader WriteUnsynced(IStorageFile file, DataFileHeader header, long freePages = -1)
    {
        header.Magic = DataFileHeader.MagicValue;
        header.FormatVersion = DataFileHeader.CurrentFormatVersion;
        header.Checksum = header.ComputeChecksum();
        var page = new byte[header.PageSize];
        MemoryMarshal.Write(page, in header);
        if (freePages >= 0) MemoryMarshal.Write(page.AsSpan(DataFileHeaderTrailer.Offset), DataFileHeaderTrailer.For(freePages, header.Checksum));
        file.Write((header.Sequence % 2) * header.PageSize, page);
        return header;
    }
}
