namespace StorageEngine.Peers.Esent;

/// <summary>An esent.dll call returned an error; the message names the call and the JET_ERR.</summary>
public sealed class EsentException : Exception
{
    /// <summary>Creates the exception.</summary>
    public EsentException() { }

    /// <summary>Creates the exception with a message.</summary>
    public EsentException(string message) : base(message) { }

    /// <summary>Creates the exception with a message and its cause.</summary>
    public EsentException(string message, Exception innerException) : base(message, innerException) { }

    /// <summary>Creates the exception for <paramref name="call"/> failing with <paramref name="error"/>.</summary>
    public EsentException(string call, int error) : base($"ESENT {call} failed with JET_ERR {error}.") => Error = error;

    /// <summary>The JET_ERR the call returned (negative).</summary>
    public int Error { get; }

    /// <summary>Throws for an error (negative result); success and warnings (zero or positive) pass.</summary>
    internal static int Check(int result, string call) => result < 0 ? throw new EsentException(call, result) : result;
}
