using BenchmarkDotNet.Running;

// BenchmarkSwitcher: `--filter '*'` runs everything, `--filter '*Commit*'` one class, `--list flat` lists them.
// Example: dotnet run -c Release --project benchmarks/StorageEngine.Benchmarks -- --filter '*' --job short
BenchmarkSwitcher.FromAssembly(typeof(StorageEngine.Benchmarks.BenchmarkData).Assembly).Run(args);
