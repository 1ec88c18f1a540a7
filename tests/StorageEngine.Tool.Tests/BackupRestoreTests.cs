namespace StorageEngine.Tool.Tests;

public sealed class BackupRestoreTests : ToolTestBase
{
    [Fact]
    public void Backup_to_a_file_then_restore_gives_an_environment_with_the_same_contents()
    {
        string source = CreateSampleEnvironment("source");
        string file = PathOf("env.backup");

        var backup = Run("backup", source, file).AssertSuccess();
        Assert.Contains("Backed up transaction", backup.Output);
        Assert.True(new FileInfo(file).Length > 0);
        Assert.False(File.Exists(file + ".partial"));

        var restore = Run("restore", file, PathOf("restored")).AssertSuccess();
        Assert.Contains("Restored transaction", restore.Output);
        Assert.Contains("check   healthy", restore.Output);
        Assert.Equal(Contents(source), Contents(PathOf("restored")));
    }

    [Fact]
    public void Backup_to_standard_output_restores_from_standard_input()
    {
        string source = CreateSampleEnvironment("source");
        var stream = new MemoryStream();

        var backup = RunWithStreams(new StringWriter(), stream, null, "backup", source, "-").AssertSuccess();
        Assert.Empty(backup.Output);
        Assert.Contains("Backed up transaction", backup.Error);

        stream.Position = 0;
        RunWithStreams(new StringWriter(), null, stream, "restore", "-", PathOf("restored")).AssertSuccess();
        Assert.Equal(Contents(source), Contents(PathOf("restored")));
    }

    [Fact]
    public void Restore_of_a_truncated_backup_fails_and_leaves_no_environment()
    {
        string source = CreateSampleEnvironment("source");
        string file = PathOf("env.backup");
        Run("backup", source, file).AssertSuccess();
        var bytes = File.ReadAllBytes(file);
        File.WriteAllBytes(file, bytes[..(bytes.Length / 2)]);

        Run("restore", file, PathOf("restored")).AssertCleanFailure("not a complete, undamaged backup");

        Assert.False(File.Exists(PathOf("restored/data.sedb")));
    }

    [Fact]
    public void Backup_and_restore_refuse_targets_that_exist_and_say_how_to_back_up_an_environment_in_use()
    {
        string source = CreateSampleEnvironment("source");
        File.WriteAllText(PathOf("taken"), "precious");
        Directory.CreateDirectory(PathOf("occupied"));
        File.WriteAllText(PathOf("occupied/keep.txt"), "precious");

        Run("backup", source, PathOf("taken")).AssertCleanFailure("already exists");
        Run("backup", source, PathOf("b1")).AssertSuccess();
        Run("restore", PathOf("b1"), PathOf("occupied")).AssertCleanFailure("is not empty");
        Run("restore", PathOf("nope"), PathOf("r")).AssertCleanFailure("does not exist");
        Assert.Equal("precious", File.ReadAllText(PathOf("taken")));
        Assert.Equal("precious", File.ReadAllText(PathOf("occupied/keep.txt")));

        using var running = StorageEnvironment.Open(source);
        Run("backup", source, PathOf("b2")).AssertCleanFailure("StorageEnvironment.BackupAsync");
    }
}
