using System.Globalization;

namespace StorageEngine.Tests.Fuzz;

/// <summary>One resolved change to an environment's files, described well enough to read in a failure message.</summary>
internal sealed record FileMutation(MutationKind Kind, string File)
{
    public const int PageSize = 4096;

    /// <summary>Byte offset (ranges, truncation) or target page number (splices).</summary>
    public long Offset { get; init; }

    /// <summary>Bytes in the range.</summary>
    public int Length { get; init; }

    /// <summary>Bit positions to flip.</summary>
    public long[] Bits { get; init; } = [];

    /// <summary>Seed of the random bytes written over the range.</summary>
    public int ContentSeed { get; init; }

    /// <summary>Seed of the environment the spliced page comes from.</summary>
    public int DonorSeed { get; init; }

    /// <summary>Page of the donor's data file that is spliced in.</summary>
    public long DonorPage { get; init; }

    /// <summary>Name a duplicated journal file is copied to.</summary>
    public string Target { get; init; } = "";

    public void Apply(EnvironmentImage image, EnvironmentImage earlier, Func<int, EnvironmentImage> donor)
    {
        var files = image.Files;
        switch (Kind)
        {
            case MutationKind.FlipBits:
                foreach (long bit in Bits) files[File][bit / 8] ^= (byte)(1 << (int)(bit % 8));
                break;
            case MutationKind.Truncate:
                files[File] = files[File][..(int)Offset];
                break;
            case MutationKind.ZeroRange:
                files[File].AsSpan((int)Offset, Length).Clear();
                break;
            case MutationKind.RandomizeRange:
                new Random(ContentSeed).NextBytes(files[File].AsSpan((int)Offset, Length));
                break;
            case MutationKind.SpliceSamePage:
            case MutationKind.SpliceOtherPage:
                donor(DonorSeed).DataFile.AsSpan((int)(DonorPage * PageSize), PageSize).CopyTo(files[File].AsSpan((int)(Offset * PageSize)));
                break;
            case MutationKind.RevertPage:
                earlier.DataFile.AsSpan((int)(Offset * PageSize), PageSize).CopyTo(files[File].AsSpan((int)(Offset * PageSize)));
                break;
            case MutationKind.DeleteJournal:
                files.Remove(File);
                break;
            case MutationKind.DuplicateJournal:
                files[Target] = (byte[])files[File].Clone();
                break;
            case MutationKind.SwapHeaders:
                var data = files[File];
                var first = data.AsSpan(0, PageSize).ToArray();
                data.AsSpan(PageSize, PageSize).CopyTo(data);
                first.CopyTo(data.AsSpan(PageSize));
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(Kind), Kind, null);
        }
    }

    public override string ToString() => Kind switch
    {
        MutationKind.FlipBits => $"flip bits of {File} at {string.Join(",", Bits.Select(b => (b / 8).ToString(CultureInfo.InvariantCulture) + "." + (b % 8).ToString(CultureInfo.InvariantCulture)))}",
        MutationKind.Truncate => $"truncate {File} to {Offset} bytes",
        MutationKind.ZeroRange => $"zero {File} [{Offset}, {Offset + Length})",
        MutationKind.RandomizeRange => $"randomize {File} [{Offset}, {Offset + Length}) with content seed {ContentSeed}",
        MutationKind.SpliceSamePage or MutationKind.SpliceOtherPage => $"splice page {DonorPage} of environment {DonorSeed} over page {Offset} of {File}",
        MutationKind.RevertPage => $"revert page {Offset} of {File} to its content of some commits ago",
        MutationKind.DeleteJournal => $"delete {File}",
        MutationKind.DuplicateJournal => $"copy {File} to {Target}",
        MutationKind.SwapHeaders => $"swap the header pages of {File}",
        _ => Kind.ToString(),
    };
}
