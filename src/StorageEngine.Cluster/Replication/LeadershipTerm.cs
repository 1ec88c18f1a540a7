using DotNext.Net.Cluster;
using DotNext.Net.Cluster.Consensus.Raft;

namespace StorageEngine.Cluster.Replication;

/// <summary>
/// The term in which this node last became leader, taken when DotNext reports the change (inside its state
/// transition, before any message of a later term can change the term), so the entries it appends as leader
/// carry the term they belong to.
/// </summary>
internal sealed class LeadershipTerm
{
    private long _term = -1;

    public long Term => Volatile.Read(ref _term);

    public void OnLeaderChanged(RaftCluster<RaftClusterMember> cluster, RaftClusterMember? leader)
    {
        if (leader is { IsRemote: false })
            Volatile.Write(ref _term, cluster.Term);
    }
}
