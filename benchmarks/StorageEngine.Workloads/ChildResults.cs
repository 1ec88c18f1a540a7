namespace StorageEngine.Workloads;

/// <summary>
/// What a W7 child process hands back to the runner that started it, as JSON in the file named by
/// <c>--w7-result</c>: rewritten after every phase, so a child the kernel kills at its memory limit still leaves
/// the phases it finished.
/// </summary>
/// <param name="Results">Its phases, as <see cref="BenchmarkContext.Add"/> recorded them.</param>
/// <param name="Failures">What failed, worded as <see cref="BenchmarkContext.Failures"/> words it.</param>
/// <param name="Skipped">What its engine cannot do.</param>
internal sealed record ChildResults(List<PhaseResult> Results, List<string> Failures, List<string> Skipped);
