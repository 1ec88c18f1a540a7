using StorageEngine.BTrees;
using StorageEngine.Paging;
using StorageEngine.Platform;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The hot tree: the header of one named tree kept in the environment state, so that commits changing only that
/// tree leave the tree of names alone. Whatever tree is hot, every tree reads the same, before and after a
/// crash, a checkpoint or a reopen, and the environment passes its check.
/// </summary>
public sealed class HotTreeTests
{
    [Fact]
    public void A_tree_committed_alone_becomes_hot_and_its_commits_leave_the_tree_of_names_alone()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        var names = env.CurrentSnapshot.State.RootTree;
        Assert.NotEqual(0, env.CurrentSnapshot.State.HotTree.RootPage);
        for (int i = 1; i <= 20; i++) Commit(env, "a", i);

        var state = env.CurrentSnapshot.State;
        Assert.Equal(names, state.RootTree);
        Assert.Equal(21, state.HotTree.EntryCount);
        AssertHolds(env, ("a", 21));
    }

    [Fact]
    public void Other_trees_go_to_the_tree_of_names_while_the_hot_tree_stays_hot()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        var hot = env.CurrentSnapshot.State.HotTree.RootPage;
        Commit(env, "b", 0);
        Commit(env, "c", 0);
        Commit(env, "b", 1);
        Assert.Equal(hot, env.CurrentSnapshot.State.HotTree.RootPage);
        using (var tx = env.BeginWrite())
        {
            tx.OpenTree("a").Put(Key(1), Key(1));
            tx.OpenTree("b").Put(Key(2), Key(2));
            tx.CreateTree("c").Put(Key(1), Key(1));
            tx.Commit();
        }

        Assert.Equal(2, env.CurrentSnapshot.State.HotTree.EntryCount);
        AssertHolds(env, ("a", 2), ("b", 3), ("c", 2));
    }

    [Fact]
    public void A_tree_changed_alone_in_two_commits_running_takes_the_place_of_an_idle_hot_tree()
    {
        var fs = new MemoryFileSystem();
        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            Commit(env, "meta", 0);
            Commit(env, "docs", 0);
            Commit(env, "docs", 1);
            Assert.Equal(2, env.CurrentSnapshot.State.HotTree.EntryCount);
            var names = env.CurrentSnapshot.State.RootTree;
            for (int i = 2; i < 10; i++) Commit(env, "docs", i);
            Assert.Equal(names, env.CurrentSnapshot.State.RootTree);
            AssertHolds(env, ("meta", 1), ("docs", 10));

            // And back: meta twice running takes the slot again, docs keeps what it had.
            Commit(env, "meta", 1);
            Commit(env, "meta", 2);
            Assert.Equal(3, env.CurrentSnapshot.State.HotTree.EntryCount);
            AssertHolds(env, ("meta", 3), ("docs", 10));
            fs.SimulatePowerLoss();
        }

        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            AssertHolds(env, ("meta", 3), ("docs", 10));
            // A new session finds the hot tree by its mark in the tree of names when docs is about to take over.
            Commit(env, "docs", 10);
            Commit(env, "docs", 11);
            Commit(env, "docs", 12);
            Assert.Equal(13, env.CurrentSnapshot.State.HotTree.EntryCount);
            AssertHolds(env, ("meta", 3), ("docs", 13));
        }
    }

    [Fact]
    public void Single_tree_commits_that_alternate_leave_the_hot_tree_where_it_is()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        var hot = env.CurrentSnapshot.State.HotTree;
        for (int i = 0; i < 10; i++) Commit(env, i % 2 == 0 ? "b" : "c", i / 2);
        Assert.Equal(hot, env.CurrentSnapshot.State.HotTree);
        AssertHolds(env, ("a", 1), ("b", 5), ("c", 5));
    }

    [Fact]
    public void Deleting_the_hot_tree_empties_the_slot_for_the_next_tree_committed_alone()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        Commit(env, "b", 0);
        Assert.Equal(1, env.CurrentSnapshot.State.HotTree.EntryCount);
        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("a"));
            tx.Commit();
        }

        Assert.Equal(0, env.CurrentSnapshot.State.HotTree.RootPage);
        AssertHolds(env, ("b", 1));
        Commit(env, "b", 1);
        Assert.Equal(2, env.CurrentSnapshot.State.HotTree.EntryCount);
        AssertHolds(env, ("b", 2));
    }

    [Fact]
    public void The_hot_tree_deleted_and_created_again_in_one_transaction_is_the_new_tree()
    {
        using var env = StorageEnvironment.CreateInMemory();
        for (int i = 0; i < 5; i++) Commit(env, "a", i);
        using (var tx = env.BeginWrite())
        {
            Assert.True(tx.DeleteTree("a"));
            tx.CreateTree("a", TreeOptions.Int64Keys).Put(7, Key(7));
            tx.Commit();
        }

        using var read = env.BeginRead();
        var tree = read.OpenTree("a");
        Assert.Equal(TreeOptions.Int64Keys, tree.Options);
        Assert.Equal(1, tree.Count);
        Assert.True(env.Check().IsHealthy);
    }

    [Fact]
    public void A_reader_keeps_the_hot_tree_of_its_snapshot()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        using var before = env.BeginRead();
        for (int i = 1; i < 50; i++) Commit(env, "a", i);

        Assert.Equal(1, before.OpenTree("a").Count);
        Assert.False(before.OpenTree("a").TryGet(Key(1), out _));
        AssertHolds(env, ("a", 50));
    }

    [Fact]
    public void The_hot_tree_survives_a_crash_a_checkpoint_and_a_reopen()
    {
        var fs = new MemoryFileSystem();
        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            for (int i = 0; i < 30; i++) Commit(env, "a", i);
            env.Checkpoint();
            for (int i = 30; i < 60; i++) Commit(env, "a", i);
            Commit(env, "b", 0);
            fs.SimulatePowerLoss();
        }

        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            AssertHolds(env, ("a", 60), ("b", 1));
            Commit(env, "a", 60);
            env.Checkpoint();
        }

        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            Assert.Equal(61, env.CurrentSnapshot.State.HotTree.EntryCount);
            AssertHolds(env, ("a", 61), ("b", 1));
        }
    }

    [Fact]
    public void A_names_entry_that_says_its_header_is_in_the_state_of_another_tree_is_reported()
    {
        using var env = StorageEnvironment.CreateInMemory();
        Commit(env, "a", 0);
        Commit(env, "b", 0);
        using (var tx = env.BeginWrite())
        {
            // What damage would look like: "b" says its header is in the state, which holds "a"'s.
            var header = tx.OpenTree("b").BTree.Header;
            header.Flags |= TreeFlags.HeaderInState;
            tx.RootTree!.Put("b"u8, System.Runtime.InteropServices.MemoryMarshal.AsBytes(new ReadOnlySpan<TreeHeader>(in header)));
            tx.Commit();
        }

        var report = env.Check();
        Assert.False(report.IsHealthy);
        Assert.Contains(report.Problems, p => p.Contains("tree 'b'", StringComparison.Ordinal));
        using var read = env.BeginRead();
        Assert.Throws<CorruptionException>(() => read.OpenTree("b"));
    }

    [Fact]
    public void A_format_1_data_file_opens_and_becomes_format_2_at_its_next_checkpoint()
    {
        var fs = new MemoryFileSystem();
        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            using var tx = env.BeginWrite();
            tx.CreateTree("a").Put(Key(0), Key(0));
            tx.CreateTree("b").Put(Key(0), Key(0));
            tx.Commit();
        }

        // What a format-1 build left: no hot tree (two trees committed together made none), version 1 headers.
        using (var file = fs.Open(Path.Combine("/db", StorageEngine.Transactions.EnvironmentFiles.DataFileName), StorageFileMode.Buffered))
        {
            var header = DataFileHeaderStore.ReadNewest(file);
            foreach (long sequence in new[] { header.Sequence, header.Sequence + 1 })
            {
                var copy = header;
                copy.Sequence = sequence;
                copy.FormatVersion = 1;
                copy.Checksum = copy.ComputeChecksum();
                var page = new byte[copy.PageSize];
                System.Runtime.InteropServices.MemoryMarshal.Write(page, in copy);
                file.Write(sequence % 2 * copy.PageSize, page);
            }

            file.Flush();
            Assert.Equal(1u, DataFileHeaderStore.ReadNewest(file).FormatVersion);
        }

        using (var env = StorageEnvironment.Open(TestData.SafeOptions(fs)))
        {
            AssertHolds(env, ("a", 1), ("b", 1));
            Commit(env, "a", 1);
            env.Checkpoint();
        }

        using (var file = fs.Open(Path.Combine("/db", StorageEngine.Transactions.EnvironmentFiles.DataFileName), StorageFileMode.Buffered))
        {
            Assert.Equal(DataFileHeader.CurrentFormatVersion, DataFileHeaderStore.ReadNewest(file).FormatVersion);
        }

        using var reopened = StorageEnvironment.Open(TestData.SafeOptions(fs));
        AssertHolds(reopened, ("a", 2), ("b", 1));
    }

    private static void Commit(StorageEnvironment env, string tree, int key)
    {
        using var tx = env.BeginWrite();
        tx.CreateTree(tree).Put(Key(key), Key(key));
        tx.Commit();
    }

    private static byte[] Key(int i) => TestData.Utf8($"key{i:D5}");

    private static void AssertHolds(StorageEnvironment env, params (string Tree, int Count)[] trees)
    {
        using (var read = env.BeginRead())
        {
            foreach (var (name, count) in trees)
            {
                var tree = read.OpenTree(name);
                Assert.Equal(count, tree.Count);
                for (int i = 0; i < count; i++) Assert.Equal(Key(i), tree.Get(Key(i)));
            }
        }

        Assert.True(env.Check().IsHealthy, string.Join("; ", env.Check().Problems));
    }
}
