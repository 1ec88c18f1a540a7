namespace StorageEngine.Tests.Faults;

/// <summary>
/// Environment files may hold sensitive data: on Unix the directory the engine creates is 0700 and every file it
/// creates (data file, its temporary, journal files, spare journal files, the lock file) 0600, whatever the umask
/// lets through.
/// </summary>
public sealed class FilePermissionTests
{
    private const UnixFileMode GroupOrOther =
        UnixFileMode.GroupRead | UnixFileMode.GroupWrite | UnixFileMode.GroupExecute |
        UnixFileMode.OtherRead | UnixFileMode.OtherWrite | UnixFileMode.OtherExecute;

    [Fact]
    public void The_directory_and_every_file_the_engine_creates_are_private_to_the_owner()
    {
        if (OperatingSystem.IsWindows()) return;
        string parent = Path.Combine(Path.GetTempPath(), "se-modes-" + Guid.NewGuid().ToString("N"));
        string directory = Path.Combine(parent, "env");
        string[] openFiles;
        try
        {
            var options = new StorageEnvironmentOptions { Path = directory, JournalFileSize = 1 << 20, CheckpointInterval = TimeSpan.FromHours(1) };
            using (var environment = StorageEnvironment.Open(options))
            {
                for (int i = 0; i < 20; i++)
                {
                    using var transaction = environment.BeginWrite();
                    transaction.CreateTree("t").Put(BitConverter.GetBytes(i), new byte[100_000]);
                    transaction.Commit();
                }
                environment.Checkpoint();
                environment.PrepareJournal();
                openFiles = Directory.GetFiles(directory);
                AssertPrivateToTheOwner(openFiles);
            }
            using (StorageEnvironment.Open(options))
            {
            }

            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(directory));
            // While open there are journal files in use and spares; a clean close keeps one spare for the next open.
            Assert.Contains(openFiles, f => Path.GetFileName(f) == "data.sedb");
            Assert.Contains(openFiles, f => Path.GetFileName(f) == "LOCK");
            Assert.Contains(openFiles, f => Path.GetFileName(f).StartsWith("journal.", StringComparison.Ordinal));
            Assert.Contains(openFiles, f => Path.GetFileName(f).StartsWith("journal-free.", StringComparison.Ordinal));
            AssertPrivateToTheOwner(Directory.GetFiles(directory));
        }
        finally
        {
            try
            {
                Directory.Delete(parent, recursive: true);
            }
            catch (IOException)
            {
                // Best effort: a leftover temp directory must not fail the test.
            }
        }
    }

    [System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
    private static void AssertPrivateToTheOwner(IEnumerable<string> files)
    {
        foreach (string file in files)
        {
            var mode = File.GetUnixFileMode(file);
            Assert.True((mode & GroupOrOther) == 0, $"{Path.GetFileName(file)} is {mode}: readable or writable by others");
            Assert.True(mode.HasFlag(UnixFileMode.UserRead | UnixFileMode.UserWrite), $"{Path.GetFileName(file)} is {mode}");
        }
    }
}
