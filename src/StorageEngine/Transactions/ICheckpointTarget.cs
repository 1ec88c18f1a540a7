namespace StorageEngine.Transactions;

/// <summary>What the background <see cref="Checkpointer"/> runs: the checkpoint itself, and the journal's upkeep.</summary>
internal interface ICheckpointTarget
{
    /// <summary>Writes every committed page to the data file, syncs it, records the checkpoint and retires journal files.</summary>
    void Checkpoint();

    /// <summary>Bytes of committed pages held in memory for the next checkpoint.</summary>
    long UnwrittenBytes { get; }

    /// <summary>Keeps a spare journal file ready for the next switch.</summary>
    void PrepareJournal();

    /// <summary>
    /// After a checkpoint run because commits paused: gives back the memory the idle writer's buffers hold. False
    /// when some is left (readers of retired pages still open, a writer arrived): the next pause check tries again.
    /// </summary>
    bool ReleaseIdleMemory();
}
