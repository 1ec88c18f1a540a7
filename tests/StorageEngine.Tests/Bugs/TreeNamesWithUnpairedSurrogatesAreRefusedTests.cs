using System.Text;
using StorageEngine.Tests.Unit;

namespace StorageEngine.Tests.Bugs;

/// <summary>
/// Tree names were encoded with the lenient UTF-8 encoder, which writes an unpaired surrogate as U+FFFD: "\uD800"
/// and "\uDC00" became the same key in the tree of names. Creating both in one transaction left one entry, so the
/// other tree's data was lost at commit and its pages leaked. A name that has no UTF-8 encoding is now refused with
/// ArgumentException by every operation that takes one.
/// </summary>
public sealed class TreeNamesWithUnpairedSurrogatesAreRefusedTests
{
    // By index: the test runner writes a theory's string arguments as UTF-8 itself, which would turn these into U+FFFD.
    private static readonly string[] UnencodableNames = ["\uD800", "\uDC00", "a\uD800b", "ok\uDFFF", "\uDC00\uD800"];

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Every_operation_that_takes_a_tree_name_refuses_one_with_an_unpaired_surrogate(int which)
    {
        string name = UnencodableNames[which];
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        using (var write = environment.BeginWrite())
        {
            var created = Assert.Throws<ArgumentException>(() => write.CreateTree(name));
            Assert.Contains("unpaired surrogate", created.Message);
            Assert.Equal("name", created.ParamName);
            Assert.Throws<ArgumentException>(() => write.OpenTree(name));
            Assert.Throws<ArgumentException>(() => write.TryOpenTree(name, out _));
            Assert.Throws<ArgumentException>(() => write.DeleteTree(name));
            // A refused name is an argument error: the transaction is still good.
            write.CreateTree("fine").Put("k"u8, "v"u8);
            write.Commit();
        }
        using var read = environment.BeginRead();
        Assert.Throws<ArgumentException>(() => read.OpenTree(name));
        Assert.Equal(["fine"], read.GetTreeNames());
    }

    [Fact]
    public void Two_trees_whose_names_differ_only_in_unpaired_surrogates_can_no_longer_overwrite_each_other()
    {
        using var directory = new TempDirectory("surrogate-names");
        var options = new StorageEnvironmentOptions { Path = directory.Path };
        using (var environment = StorageEnvironment.Open(options))
        using (var write = environment.BeginWrite())
        {
            Assert.Throws<ArgumentException>(() => write.CreateTree("\uD800"));
            Assert.Throws<ArgumentException>(() => write.CreateTree("\uDC00"));
            // The name both collapsed to is an ordinary, distinct tree.
            write.CreateTree("\uFFFD").Put("k"u8, "replacement"u8);
            write.CreateTree("\uD83D\uDE00").Put("k"u8, "paired"u8);
            write.Commit();
        }
        using (var environment = StorageEnvironment.Open(options))
        using (var read = environment.BeginRead())
        {
            Assert.Equal("replacement"u8.ToArray(), read.OpenTree("\uFFFD").Get("k"u8));
            Assert.Equal("paired"u8.ToArray(), read.OpenTree("\uD83D\uDE00").Get("k"u8));
            Assert.Equal(2, read.GetTreeNames().Count);
            Assert.True(environment.Check().IsHealthy);
        }
    }

    [Fact]
    public void The_length_limit_counts_UTF8_bytes_and_says_how_many()
    {
        using var environment = StorageEnvironment.Open(new StorageEnvironmentOptions { Durability = DurabilityMode.InMemory });
        using var write = environment.BeginWrite();
        string longest = new('\u00E9', 127); // 254 bytes
        Assert.Equal(254, Encoding.UTF8.GetByteCount(longest));
        write.CreateTree(longest);
        var tooLong = Assert.Throws<ArgumentException>(() => write.CreateTree(longest + "\u00E9"));
        Assert.Contains("256 UTF-8 bytes", tooLong.Message);
        Assert.Throws<ArgumentException>(() => write.CreateTree(""));
        Assert.Throws<ArgumentNullException>(() => write.CreateTree(null!));
    }
}
