using System.Text;
using StorageEngine.Cluster.Replication;

namespace StorageEngine.Cluster.Tests;

/// <summary>The log entry of a batch: what it applies, and what it refuses with a clear exception before anything is replicated.</summary>
public sealed class ClusterBatchTests
{
    [Fact]
    public void A_batch_applies_its_puts_and_deletes_in_order_in_one_transaction()
    {
        var batch = new ClusterBatch().Put("a", "k1", "v1").Put("b", "k2", "v2").Put("a", "k1", "v3").Delete("b", "k2"u8).Put("a", "k4", "");
        byte[] payload = batch.Encode(Guid.NewGuid());
        Assert.Equal((5, 2, 2), WriteCommand.Validate(payload));

        using var environment = StorageEnvironment.CreateInMemory();
        using (var tx = environment.BeginWrite())
        {
            WriteCommand.Apply(payload, tx);
            tx.Commit();
        }
        using var read = environment.BeginRead();
        Assert.Equal("v3", Encoding.UTF8.GetString(read.OpenTree("a").Get("k1"u8)!));
        Assert.Empty(read.OpenTree("a").Get("k4"u8)!);
        Assert.Equal(0, read.OpenTree("b").Count);
    }

    [Fact]
    public void The_request_id_travels_in_the_entry()
    {
        var id = Guid.NewGuid();
        Assert.True(WriteCommand.TryReadRequestId(new ClusterBatch().Put("t", "k", "v").Encode(id), out var read));
        Assert.Equal(id, read);
        Assert.False(WriteCommand.TryReadRequestId([9, 9, 9], out _));
    }

    [Fact]
    public void Misuse_is_refused_before_anything_is_replicated()
    {
        var batch = new ClusterBatch();
        Assert.Throws<ArgumentException>(() => batch.Put("", "k"u8, "v"u8));
        Assert.Throws<ArgumentException>(() => batch.Put(new string('x', 256), "k"u8, "v"u8));
        // An unpaired surrogate has no UTF-8 encoding: it must not reach the log as U+FFFD, another tree's name.
        Assert.Contains("unpaired surrogate", Assert.Throws<ArgumentException>(() => batch.Put("\uD800", "k"u8, "v"u8)).Message);
        Assert.Throws<ArgumentException>(() => batch.Put(WriteCommand.ClusterTreeName, "k"u8, "v"u8));
        Assert.Throws<ArgumentException>(() => batch.Put("t", ReadOnlySpan<byte>.Empty, "v"u8));
        Assert.Throws<ArgumentException>(() => batch.Put("t", "k"u8, new byte[ClusterBatch.MaxEncodedSize]));
        Assert.Equal(0, batch.Count);
        Assert.Throws<InvalidOperationException>(() => batch.Encode(Guid.NewGuid()));
    }

    [Fact]
    public void A_truncated_or_tampered_entry_is_a_format_error_not_a_partial_apply()
    {
        byte[] payload = new ClusterBatch().Put("t", "k", "v").Put("t", "k2", "v2").Encode(Guid.NewGuid());
        Assert.Throws<FormatException>(() => WriteCommand.Validate(payload.AsSpan(0, payload.Length - 1)));
        Assert.Throws<FormatException>(() => WriteCommand.Validate([.. payload, 0]));
        payload[0] = 99;
        Assert.Throws<FormatException>(() => WriteCommand.Validate(payload));
        byte[] reserved = new ClusterBatch().Put("$clusteR", "k", "v").Encode(Guid.NewGuid());
        // The name's last letter: the first 'R' of the payload may lie in the random id that precedes it.
        reserved[reserved.AsSpan().IndexOf("$clusteR"u8) + 7] = (byte)'r';
        Assert.Throws<FormatException>(() => WriteCommand.Validate(reserved));
    }

    [Fact]
    public void Member_addresses_parse_from_the_form_they_print()
    {
        var member = ClusterMember.Parse("127.0.0.1:7101/7201");
        Assert.Equal(7101, member.RaftEndPoint.Port);
        Assert.Equal(7201, member.ClientEndPoint.Port);
        Assert.Equal(member, ClusterMember.Parse(member.ToString()));
        Assert.Throws<FormatException>(() => ClusterMember.Parse("localhost:7101/7201"));
        Assert.Throws<FormatException>(() => ClusterMember.Parse("127.0.0.1:7101"));
        Assert.Throws<ArgumentException>(() => ClusterMember.Parse("127.0.0.1:7101/7101"));
    }
}
