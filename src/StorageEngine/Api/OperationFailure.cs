namespace StorageEngine;

/// <summary>
/// The first operation that failed on a write transaction, and why: what <see cref="WriteTransaction.Commit"/>
/// and every later operation name when they refuse the transaction.
/// </summary>
/// <param name="Operation">The public member that failed, as "Type.Member".</param>
/// <param name="Error">What it threw.</param>
internal sealed record OperationFailure(string Operation, Exception Error)
{
    public override string ToString() => $"{Operation} threw {Error.GetType().Name}: {Error.Message}";
}
