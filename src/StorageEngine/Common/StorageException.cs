namespace StorageEngine;

/// <summary>Base type of the exceptions the engine throws for storage failures (not for misuse).</summary>
public class StorageException : Exception
{
    /// <summary>Creates the exception with a message.</summary>
    public StorageException(string message) : base(message) { }

    /// <summary>Creates the exception with a message and the failure that caused it.</summary>
    public StorageException(string message, Exception? innerException) : base(message, innerException) { }
}
