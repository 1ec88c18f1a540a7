using StorageEngine.Transactions;

namespace StorageEngine;

public sealed partial class StorageEnvironment
{
    /// <summary>True when the environment was opened with <see cref="StorageEnvironmentOptions.ReadOnly"/>: it writes nothing.</summary>
    public bool IsReadOnly => _options.ReadOnly;

    private void ThrowIfReadOnly(string operation)
    {
        if (_options.ReadOnly)
            throw new InvalidOperationException($"Cannot {operation}: the environment in '{Directory}' was opened read-only (StorageEnvironmentOptions.ReadOnly). Open it without ReadOnly to write.");
    }

    /// <summary>A read-only open needs an existing environment on files, and creates nothing (not even the directory).</summary>
    private void ValidateReadOnlyOpen(StorageEnvironmentOptions options, string directory)
    {
        if (options.Durability == DurabilityMode.InMemory)
            throw new ArgumentException("ReadOnly opens an existing environment's files; an InMemory environment has none.", nameof(options));
        if (!_fileSystem.Exists(Path.Combine(directory, EnvironmentFiles.DataFileName)))
            throw new StorageException($"There is no environment to open read-only in '{directory}': it has no {EnvironmentFiles.DataFileName} file.");
    }
}
