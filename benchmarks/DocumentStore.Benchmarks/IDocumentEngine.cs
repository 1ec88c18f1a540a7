namespace DocumentStore.Benchmarks;

/// <summary>
/// One document database under test: a collection of JSON documents with secondary indexes on the string
/// field <c>city</c> and the number field <c>age</c>. Every write method is one durable transaction.
/// </summary>
internal interface IDocumentEngine : IDisposable
{
    /// <summary>Name in the report.</summary>
    string Name { get; }

    /// <summary>What the engine runs with (durability, journal), for the report.</summary>
    string Configuration { get; }

    /// <summary>Opens the database in its directory, creating it and its two indexes when new.</summary>
    void Open();

    /// <summary>
    /// After <see cref="Open"/> created the database: whatever it takes, beyond the engine's own create, for the new
    /// database to survive a power loss (nothing for an engine whose create is durable).
    /// </summary>
    void MakeCreationDurable();

    /// <summary>Closes the database cleanly.</summary>
    void Close();

    /// <summary>Stores new documents in one transaction.</summary>
    void Insert(IReadOnlyList<SampleDocument> documents);

    /// <summary>Replaces documents in one transaction (their indexed fields move).</summary>
    void Update(IReadOnlyList<SampleDocument> documents);

    /// <summary>Deletes documents in one transaction.</summary>
    void Delete(IReadOnlyList<string> ids);

    /// <summary>Reads one document by id (a copy that outlives the read); false when absent.</summary>
    bool Get(string id);

    /// <summary>Up to <paramref name="pages"/> pages of <paramref name="pageSize"/> matches, in index order; the documents read.</summary>
    int Query(IndexQuery query, int pageSize, int pages);

    /// <summary>Documents in the collection.</summary>
    long Count();

    /// <summary>Bytes of every file of the database on disk (data file, journal or log files kept for reuse).</summary>
    long FileBytes();

    /// <summary>Bytes of the data file alone.</summary>
    long DataFileBytes();
}
