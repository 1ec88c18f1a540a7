using StorageEngine.Tests.Crash;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Deleting the <c>LOCK</c> file (a temporary-directory cleaner is enough) while an environment is open used to let
/// a second read-write open in: it took a lock on a new <c>LOCK</c> file, recovered and committed, and the first
/// writer's acknowledged commits were lost. The data file the environment has open is locked too, and that lock
/// cannot be deleted.
/// </summary>
public sealed class DeletingTheLockFileAdmitsNoSecondWriterTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public void With_the_lock_file_deleted_under_a_writing_process_a_second_open_in_another_process_or_in_this_one_is_refused_and_no_commit_is_lost()
    {
        using var directory = new TempDirectory("deleted-lock");
        long acknowledged;
        using (var writer = CrashChildProcess.Start([directory.Path]))
        {
            if (!writer.WaitForCommits(20, Patience)) throw writer.NotReached("commit 20 times", Patience);
            File.Delete(directory.File("LOCK"));

            var inThisProcess = Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(directory.Path));
            Assert.Contains("data.sedb", inThisProcess.Message);
            Assert.Contains("deleted or replaced", inThisProcess.Message);
            Assert.Matches(@"by process \d+", inThisProcess.Message);
            var readOnly = Assert.Throws<EnvironmentLockedException>(() =>
                StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, ReadOnly = true }));
            Assert.Contains("already open read-write", readOnly.Message);

            using (var second = CrashChildProcess.Start([directory.Path]))
            {
                Assert.False(second.WaitForReady(Patience), "a second process opened the environment beside the writer");
                var refused = second.ExitedOnItsOwn();
                Assert.Contains(nameof(EnvironmentLockedException), refused.Message);
            }

            Assert.True(writer.WaitForCommits(writer.Commits + 5, Patience), "the writer stopped committing after the refused opens");
            writer.Kill();
            acknowledged = writer.LastCommitted!.Value;
        }

        using var environment = StorageEnvironment.Open(directory.Path);
        using (var read = environment.BeginRead()) Assert.True(StorageEngine.CrashChild.CrashWorkload.LastTransaction(read) >= acknowledged);
        Assert.True(environment.Check().IsHealthy);
    }

    [Fact]
    public void With_the_lock_file_deleted_under_an_open_environment_a_second_open_in_the_same_process_is_refused_and_says_so()
    {
        using var directory = new TempDirectory("deleted-lock-in-process");
        using (var first = StorageEnvironment.Open(directory.Path))
        {
            Put(first, "before");
            File.Delete(directory.File("LOCK"));

            var refused = Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(directory.Path));
            Assert.Contains("another StorageEnvironment in this process", refused.Message);
            Assert.Throws<EnvironmentLockedException>(() =>
                StorageEnvironment.Open(new StorageEnvironmentOptions { Path = directory.Path, ReadOnly = true }));

            Put(first, "after");
        }

        using var reopened = StorageEnvironment.Open(directory.Path);
        using var read = reopened.BeginRead();
        var tree = read.OpenTree("t");
        Assert.True(tree.TryGet("before"u8, out _));
        Assert.True(tree.TryGet("after"u8, out _));
    }

    [Fact]
    public void Read_only_opens_still_share_the_environment_and_keep_a_writer_out_when_the_lock_file_is_deleted()
    {
        using var directory = new TempDirectory("deleted-lock-readers");
        using (var created = StorageEnvironment.Open(directory.Path)) Put(created, "k");
        var readOnly = new StorageEnvironmentOptions { Path = directory.Path, ReadOnly = true };
        using var firstReader = StorageEnvironment.Open(readOnly);
        File.Delete(directory.File("LOCK"));
        using var secondReader = StorageEnvironment.Open(readOnly);

        File.Delete(directory.File("LOCK"));
        Assert.Throws<EnvironmentLockedException>(() => StorageEnvironment.Open(directory.Path));
    }

    private static void Put(StorageEnvironment environment, string key)
    {
        using var write = environment.BeginWrite();
        write.CreateTree("t").Put(System.Text.Encoding.ASCII.GetBytes(key), "v"u8);
        write.Commit();
    }
}
