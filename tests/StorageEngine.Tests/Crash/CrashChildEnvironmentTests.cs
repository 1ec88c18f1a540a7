using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Crash;

/// <summary>
/// CI runs the suite under forced instruction-set configurations (DOTNET_EnableAVX2=0 and the like): the killed
/// child must run the same CPU paths as the tests, so it must inherit those settings.
/// </summary>
public sealed class CrashChildEnvironmentTests
{
    [Fact]
    public void The_crash_child_inherits_the_runtime_settings_of_the_tests()
    {
        // The child's environment is read from /proc; other systems have no such view of another process.
        if (!OperatingSystem.IsLinux()) return;

        const string marker = "STORAGEENGINE_TEST_INHERITED";
        string value = Guid.NewGuid().ToString("N");
        Environment.SetEnvironmentVariable(marker, value);
        var expected = Environment.GetEnvironmentVariables().Cast<System.Collections.DictionaryEntry>()
            .Select(entry => ((string)entry.Key, (string?)entry.Value))
            .Where(entry => entry.Item1 == marker || entry.Item1.StartsWith("DOTNET_Enable", StringComparison.Ordinal))
            .ToList();

        using var directory = new TempDirectory("child-environment");
        using var child = CrashChildProcess.Start([directory.Path]);
        Assert.True(child.WaitForReady(TimeSpan.FromSeconds(60)), "the child never opened the environment");
        var inherited = File.ReadAllText($"/proc/{child.ProcessId}/environ").Split('\0', StringSplitOptions.RemoveEmptyEntries)
            .Select(line => line.Split('=', 2))
            .ToDictionary(pair => pair[0], pair => pair.Length > 1 ? pair[1] : "");
        child.Kill();

        Assert.Equal(value, inherited.GetValueOrDefault(marker));
        foreach (var (name, setting) in expected)
            Assert.True(inherited.TryGetValue(name, out var childSetting) && childSetting == setting,
                $"the child has {name}={childSetting ?? "(unset)"}, the tests {name}={setting}");
    }
}
