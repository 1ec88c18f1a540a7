using BenchmarkDotNet.Running;
using StorageEngine.Benchmarks;

// `--group-commit-probe [directory]` measures commits from 1, 2 and 4 threads (see GroupCommitProbe).
if (args.Length > 0 && args[0] == "--group-commit-probe")
{
    GroupCommitProbe.Run(args.Length > 1 ? args[1] : Path.Combine(Path.GetTempPath(), "storageengine-group-commit-probe"));
    return;
}

// BenchmarkSwitcher: `--filter '*'` runs everything, `--filter '*Commit*'` one class, `--list flat` lists them.
// Example: dotnet run -c Release --project benchmarks/StorageEngine.Benchmarks -- --filter '*' --job short
BenchmarkSwitcher.FromAssembly(typeof(BenchmarkData).Assembly).Run(args);
