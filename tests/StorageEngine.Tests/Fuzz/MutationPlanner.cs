using StorageEngine.Journal;

namespace StorageEngine.Tests.Fuzz;

/// <summary>
/// Chooses seeded mutations and applies them one after another (each sees the files as the previous left
/// them). Offsets in journal files fall mostly in the written part, not the preallocated zeros after it.
/// </summary>
internal static class MutationPlanner
{
    /// <summary>Seeds of the environments whose pages are spliced in; a few, built once and shared by all cases.</summary>
    public static readonly int[] DonorSeeds = [1_000_001, 1_000_002, 1_000_003];

    private const int PageSize = FileMutation.PageSize;

    public static List<FileMutation> Apply(Random random, EnvironmentImage image, EnvironmentImage earlier, Func<int, EnvironmentImage> donor)
    {
        int count = random.Next(10) switch { < 6 => 1, < 9 => 2, _ => 3 };
        var mutations = new List<FileMutation>();
        for (int i = 0; i < count; i++)
        {
            var mutation = Choose(random, image, earlier, donor);
            if (mutation is null) continue;
            mutation.Apply(image, earlier, donor);
            mutations.Add(mutation);
        }
        return mutations;
    }

    private static FileMutation? Choose(Random random, EnvironmentImage image, EnvironmentImage earlier, Func<int, EnvironmentImage> donor)
    {
        var journals = image.JournalFiles;
        bool hasData = image.Files.ContainsKey(EnvironmentImage.DataFileName);
        int roll = random.Next(100);
        if (roll < 22) return FlipBits(random, PickFile(random, image, journals));
        if (roll < 31) return Truncate(random, PickFile(random, image, journals));
        if (roll < 41) return Range(random, PickFile(random, image, journals), MutationKind.ZeroRange);
        if (roll < 51) return Range(random, PickFile(random, image, journals), MutationKind.RandomizeRange);
        if (roll < 66) return hasData ? Splice(random, image, donor, samePage: true) : null;
        if (roll < 70) return hasData ? Splice(random, image, donor, samePage: false) : null;
        if (roll < 82) return hasData ? Revert(random, image, earlier) : null;
        if (roll < 89) return journals.Count > 0 ? new FileMutation(MutationKind.DeleteJournal, journals[random.Next(journals.Count)]) : null;
        if (roll < 94) return Duplicate(random, journals);
        return hasData && image.DataFile.Length >= 2 * PageSize ? new FileMutation(MutationKind.SwapHeaders, EnvironmentImage.DataFileName) : null;
    }

    /// <summary>The data file more often than not, else a journal file; null when neither has bytes.</summary>
    private static (string Name, byte[] Bytes)? PickFile(Random random, EnvironmentImage image, IReadOnlyList<string> journals)
    {
        string name = journals.Count == 0 || random.Next(10) < 6 ? EnvironmentImage.DataFileName : journals[random.Next(journals.Count)];
        if (!image.Files.TryGetValue(name, out var bytes) || bytes.Length == 0) return null;
        return (name, bytes);
    }

    /// <summary>An offset in the file, mostly in its written part.</summary>
    private static int Offset(Random random, byte[] bytes)
    {
        int written = Math.Min(bytes.Length, EnvironmentImage.WrittenLength(bytes) + PageSize);
        int limit = random.Next(10) < 8 && written > 0 ? written : bytes.Length;
        // Headers of both files and records sit in the first blocks; aim there now and then.
        if (random.Next(8) == 0) limit = Math.Min(limit, 2 * PageSize);
        return random.Next(limit);
    }

    private static FileMutation? FlipBits(Random random, (string Name, byte[] Bytes)? file)
    {
        if (file is not { } f) return null;
        int bits = random.Next(1, 21);
        // Clustered in one page half the time (one damaged sector), scattered over the file otherwise.
        long center = Offset(random, f.Bytes);
        bool clustered = random.Next(2) == 0;
        var positions = new long[bits];
        for (int i = 0; i < bits; i++)
        {
            long at = clustered ? Math.Clamp(center + random.Next(-PageSize / 2, PageSize / 2), 0, f.Bytes.Length - 1) : Offset(random, f.Bytes);
            positions[i] = at * 8 + random.Next(8);
        }
        return new FileMutation(MutationKind.FlipBits, f.Name) { Bits = positions };
    }

    private static FileMutation? Truncate(Random random, (string Name, byte[] Bytes)? file)
    {
        if (file is not { } f) return null;
        int at = Offset(random, f.Bytes);
        // Block boundaries are where real files end after a torn append; plain offsets test everything else.
        if (random.Next(2) == 0) at -= at % PageSize;
        return new FileMutation(MutationKind.Truncate, f.Name) { Offset = at };
    }

    private static FileMutation? Range(Random random, (string Name, byte[] Bytes)? file, MutationKind kind)
    {
        if (file is not { } f) return null;
        int offset = Offset(random, f.Bytes);
        int length = random.Next(3) switch
        {
            0 => random.Next(1, 17),
            1 => random.Next(17, 513),
            _ => random.Next(513, 8193),
        };
        if (random.Next(4) == 0)
        {
            // A whole aligned block, as a lost or misdirected sector write leaves it.
            offset -= offset % PageSize;
            length = PageSize;
        }
        length = Math.Min(length, f.Bytes.Length - offset);
        return new FileMutation(kind, f.Name) { Offset = offset, Length = length, ContentSeed = random.Next() };
    }

    private static FileMutation? Splice(Random random, EnvironmentImage image, Func<int, EnvironmentImage> donor, bool samePage)
    {
        int donorSeed = DonorSeeds[random.Next(DonorSeeds.Length)];
        long donorPages = donor(donorSeed).DataFile.Length / PageSize;
        long pages = image.DataFile.Length / PageSize;
        if (samePage)
        {
            long shared = Math.Min(pages, donorPages);
            if (shared < 1) return null;
            // Mostly tree pages; the header and bitmap pages at the start now and then.
            long page = random.Next(5) == 0 || shared <= 2 ? random.NextInt64(shared) : random.NextInt64(2, shared);
            return new FileMutation(MutationKind.SpliceSamePage, EnvironmentImage.DataFileName) { Offset = page, DonorSeed = donorSeed, DonorPage = page };
        }
        if (pages < 1 || donorPages < 2) return null;
        long target = random.NextInt64(pages);
        long source = random.NextInt64(donorPages - 1);
        if (source >= target) source++;
        return new FileMutation(MutationKind.SpliceOtherPage, EnvironmentImage.DataFileName) { Offset = target, DonorSeed = donorSeed, DonorPage = source };
    }

    private static FileMutation? Revert(Random random, EnvironmentImage image, EnvironmentImage earlier)
    {
        long pages = Math.Min(image.DataFile.Length, earlier.DataFile.Length) / PageSize;
        if (pages <= 2) return null;
        // Only pages that differ: reverting an unchanged page changes nothing.
        var changed = new List<long>();
        for (long page = 2; page < pages; page++)
        {
            if (!image.DataFile.AsSpan((int)(page * PageSize), PageSize).SequenceEqual(earlier.DataFile.AsSpan((int)(page * PageSize), PageSize)))
                changed.Add(page);
        }
        if (changed.Count == 0) return null;
        return new FileMutation(MutationKind.RevertPage, EnvironmentImage.DataFileName) { Offset = changed[random.Next(changed.Count)] };
    }

    private static FileMutation? Duplicate(Random random, IReadOnlyList<string> journals)
    {
        long highest = 0;
        foreach (var name in journals)
            if (JournalFileNames.TryParse(name, out long number)) highest = Math.Max(highest, number);
        if (journals.Count == 0) return null;
        string source = journals[random.Next(journals.Count)];
        string target = JournalFileNames.ForNumber(highest + 1);
        return new FileMutation(MutationKind.DuplicateJournal, source) { Target = target };
    }
}
