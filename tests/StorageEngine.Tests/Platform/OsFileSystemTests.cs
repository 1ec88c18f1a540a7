using System.Diagnostics;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Platform;

public sealed class OsFileSystemTests : IDisposable
{
    private readonly StorageEngine.Tests.Unit.TempDirectory _directory = new();

    public void Dispose() => _directory.Dispose();

    [Fact]
    public void AcquireLock_excludes_a_second_lock_in_the_same_process()
    {
        string lockPath = _directory.File("LOCK");
        IDisposable first = OsFileSystem.Instance.AcquireLock(lockPath);

        EnvironmentLockedException e = Assert.Throws<EnvironmentLockedException>(() => OsFileSystem.Instance.AcquireLock(lockPath));
        Assert.Equal(lockPath, e.LockFilePath);

        first.Dispose();
        first.Dispose();
        using IDisposable second = OsFileSystem.Instance.AcquireLock(lockPath);
    }

    [Fact]
    public void AcquireLock_excludes_another_process()
    {
        // util-linux flock(1) stands in for another engine process: both use flock(LOCK_EX|LOCK_NB).
        if (!OperatingSystem.IsLinux() || !File.Exists("/usr/bin/flock"))
        {
            return;
        }

        string lockPath = _directory.File("LOCK");
        using (OsFileSystem.Instance.AcquireLock(lockPath))
        {
            Assert.NotEqual(0, RunFlock(lockPath));
        }

        Assert.Equal(0, RunFlock(lockPath));
    }

    [Fact]
    public void Directory_operations()
    {
        IFileSystem fs = OsFileSystem.Instance;
        string sub = Path.Combine(_directory.Path, "env", "nested");
        fs.CreateDirectory(sub);
        Assert.True(fs.Exists(sub));
        if (!OperatingSystem.IsWindows())
        {
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(sub));
        }

        using (IStorageFile a = fs.Open(Path.Combine(sub, "b"), StorageFileMode.Buffered))
        {
            a.Write(0, "old"u8);
        }

        // A temporary made to be renamed into place: its creation does not sync the directory, the rename does.
        using (IStorageFile b = fs.Open(Path.Combine(sub, "a.tmp"), StorageFileMode.Buffered | StorageFileMode.RenamedIntoPlace))
        {
            b.Write(0, "new"u8);
        }

        Assert.Equal(["a.tmp", "b"], fs.ListFiles(sub));

        fs.Rename(Path.Combine(sub, "a.tmp"), Path.Combine(sub, "b"));
        Assert.Equal(["b"], fs.ListFiles(sub));
        Assert.Equal("new", File.ReadAllText(Path.Combine(sub, "b")));

        fs.Delete(Path.Combine(sub, "b"));
        fs.Delete(Path.Combine(sub, "b"));
        Assert.False(fs.Exists(Path.Combine(sub, "b")));
        Assert.Empty(fs.ListFiles(sub));
        Assert.Empty(fs.ListFiles(Path.Combine(sub, "missing")));
    }

    private static int RunFlock(string path)
    {
        using var process = Process.Start(new ProcessStartInfo("/usr/bin/flock", ["--nonblock", path, "true"]) { UseShellExecute = false })!;
        Assert.True(process.WaitForExit(5000));
        return process.ExitCode;
    }
}
