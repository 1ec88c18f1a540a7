namespace StorageEngine.Peers;

/// <summary>The engine cannot run here (library missing, platform unsupported); the message says why.</summary>
public sealed class EngineUnavailableException : Exception
{
    /// <summary>Creates the exception.</summary>
    public EngineUnavailableException() { }

    /// <summary>Creates the exception with the reason.</summary>
    public EngineUnavailableException(string message) : base(message) { }

    /// <summary>Creates the exception with the reason and its cause.</summary>
    public EngineUnavailableException(string message, Exception innerException) : base(message, innerException) { }
}
