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
    public static DataFileHeader ReadNewest(IStorageFile file)
    {
        if (file.Length < PageSizes.Min)
            throw new CorruptionException(file.Path, 0, $"the data file is {file.Length} bytes long, too short to hold a header.");

        bool foundMagic = TryRead(file, 0, out var first, out bool firstMagic);
        // The second copy sits at one page; its size is only known from a valid first copy.
        bool foundSecond = false;
        DataFileHeader second = default;
        bool secondMagic = false;
        if (foundMagic)
        {
            foundSecond = TryRead(file, first.PageSize, out second, out secondMagic);
        }
        else
        {
            for (int size = PageSizes.Min; size <= PageSizes.Max && !foundSecond; size *= 2)
            {
                foundSecond = TryRead(file, size, out second, out bool magic) && second.PageSize == size;
                secondMagic |= magic;
            }
        }

        if (!foundMagic && !foundSecond)
        {
            if (!firstMagic && !secondMagic)
                throw new CorruptionException(file.Path, 0, "the file is not a StorageEngine data file (bad magic number).");
            throw new CorruptionException(file.Path, 0, "both checkpoint header copies fail their checksum.");
        }

        var best = !foundSecond || (foundMagic && first.Sequence >= second.Sequence) ? first : second;
        if (best.FormatVersion is < DataFileHeader.OldestFormatVersion or > DataFileHeader.CurrentFormatVersion)
            throw new CorruptionException(file.Path, 0, $"unsupported data file format version {best.FormatVersion} (this build reads versions {DataFileHeader.OldestFormatVersion} to {DataFileHeader.CurrentFormatVersion}).");
        return best;
    }

    private static bool TryRead(IStorageFile file, long offset, out DataFileHeader header, out bool magicMatches)
    {
        header = default;
        magicMatches = false;
        if (offset + DataFileHeader.Size > file.Length) return false;
        var bytes = MemoryMarshal.AsBytes(MemoryMarshal.CreateSpan(ref header, 1));
        if (file.Read(offset, bytes) != bytes.Length) return false;
        magicMatches = header.Magic == DataFileHeader.MagicValue;
        return magicMatches
            && header.Checksum == header.ComputeChecksum()
            && PageSizes.IsValid(header.PageSize)
            && offset == (header.Sequence % 2) * header.PageSize;
    }

    /// <summary>Writes <paramref name="header"/> over the copy its sequence selects, then syncs the file.</summary>
    public static void Write(IStorageFile file, DataFileHeader header)
    {
        WriteUnsynced(file, header);
        file.Flush();
    }

    /// <summary>Writes <paramref name="header"/> over the copy its sequence selects, leaving the sync to the caller.</summary>
    public static void WriteUnsynced(IStorageFile file, DataFileHeader header)
    {
        header.Magic = DataFileHeader.MagicValue;
        header.FormatVersion = DataFileHeader.CurrentFormatVersion;
        header.Checksum = header.ComputeChecksum();
        var page = new byte[header.PageSize];
        MemoryMarshal.Write(page, in header);
        file.Write((header.Sequence % 2) * header.PageSize, page);
    }
}
