namespace DocumentStore;

/// <summary>What happened to a document.</summary>
public enum ChangeKind
{
    /// <summary>The document was created or replaced.</summary>
    Put,

    /// <summary>The document was deleted.</summary>
    Delete,
}
