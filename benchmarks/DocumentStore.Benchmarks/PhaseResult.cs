namespace DocumentStore.Benchmarks;

/// <summary>
/// One timed phase: <paramref name="Operations"/> operations in <paramref name="Seconds"/>, and
/// <paramref name="Check"/>, a figure both engines must agree on (documents found or read).
/// </summary>
internal sealed record PhaseResult(string Phase, string Unit, long Operations, double Seconds, long Check)
{
    public double Rate => Operations / Seconds;
}
