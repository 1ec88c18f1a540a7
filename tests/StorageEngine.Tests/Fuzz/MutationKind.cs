namespace StorageEngine.Tests.Fuzz;

/// <summary>Ways the fuzzer damages an environment's files.</summary>
internal enum MutationKind
{
    /// <summary>Flips 1 to 20 random bits of one file.</summary>
    FlipBits,

    /// <summary>Cuts a file at an offset.</summary>
    Truncate,

    /// <summary>Zeroes a range of a file.</summary>
    ZeroRange,

    /// <summary>Overwrites a range of a file with random bytes.</summary>
    RandomizeRange,

    /// <summary>Copies a page of another environment's data file over the page with the same number: a valid page of the wrong environment.</summary>
    SpliceSamePage,

    /// <summary>Copies a page of another environment's data file over a page with another number.</summary>
    SpliceOtherPage,

    /// <summary>Puts back a data file page as it was some commits ago: a write the disk lost, a valid page of the wrong version.</summary>
    RevertPage,

    /// <summary>Deletes a journal file (in use or recycled).</summary>
    DeleteJournal,

    /// <summary>Copies a journal file under the next unused journal number.</summary>
    DuplicateJournal,

    /// <summary>Exchanges the two checkpoint header pages.</summary>
    SwapHeaders,
}
