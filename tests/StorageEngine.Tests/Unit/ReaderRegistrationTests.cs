using StorageEngine.Transactions;

namespace StorageEngine.Tests.Unit;

/// <summary>
/// The reader table tells the readers registered at some moment from those registered later at the same
/// snapshot: what lets the pages a checkpoint retired be freed while readers keep coming and no commit does.
/// </summary>
public sealed class ReaderRegistrationTests
{
    [Fact]
    public void A_reader_seen_when_registrations_were_taken_ends_only_when_its_slot_is_freed()
    {
        var readers = new ReaderTable(8);
        int first = readers.Register(41);
        int second = readers.Register(41);
        var taken = readers.TakeRegistrations();
        Assert.Equal(2, taken.Length);

        Assert.False(readers.HaveEnded(taken));
        readers.Release(first);
        Assert.False(readers.HaveEnded(taken));
        readers.Release(second);
        Assert.True(readers.HaveEnded(taken));
    }

    [Fact]
    public void A_slot_claimed_again_at_the_same_snapshot_is_a_new_reader()
    {
        var readers = new ReaderTable(1);
        int slot = readers.Register(7);
        var taken = readers.TakeRegistrations();

        readers.Release(slot);
        Assert.Equal(slot, readers.Register(7));

        // The same slot and the same snapshot, but not the reader that was registered when they were taken.
        Assert.True(readers.HaveEnded(taken));
    }

    [Fact]
    public void Readers_registered_after_the_registrations_were_taken_are_not_waited_for()
    {
        var readers = new ReaderTable(8);
        var taken = readers.TakeRegistrations();
        Assert.Empty(taken);
        readers.Register(3);
        Assert.True(readers.HaveEnded(taken));
    }

    [Fact]
    public void Moving_a_registered_reader_to_a_newer_snapshot_does_not_end_it()
    {
        var readers = new ReaderTable(4);
        int slot = readers.Register(5);
        var taken = readers.TakeRegistrations();
        readers.Update(slot, 6);
        Assert.False(readers.HaveEnded(taken));
    }
}
