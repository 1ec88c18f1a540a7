using System.Net;

namespace StorageEngine.Cluster;

/// <summary>
/// One member of a static cluster: the endpoint its Raft traffic uses and the endpoint its
/// <see cref="ClusterServer"/> answers clients on. Every node is given the same list.
/// </summary>
public sealed class ClusterMember : IEquatable<ClusterMember>
{
    /// <summary>Creates a member.</summary>
    /// <param name="raftEndPoint">Where the node listens for Raft messages from the other nodes.</param>
    /// <param name="clientEndPoint">Where the node's <see cref="ClusterServer"/> listens for clients.</param>
    public ClusterMember(IPEndPoint raftEndPoint, IPEndPoint clientEndPoint)
    {
        ArgumentNullException.ThrowIfNull(raftEndPoint);
        ArgumentNullException.ThrowIfNull(clientEndPoint);
        if (raftEndPoint.Equals(clientEndPoint))
            throw new ArgumentException($"The Raft and the client endpoint of a member must differ; both are {raftEndPoint}.", nameof(clientEndPoint));
        RaftEndPoint = raftEndPoint;
        ClientEndPoint = clientEndPoint;
    }

    /// <summary>Where the node listens for Raft messages.</summary>
    public IPEndPoint RaftEndPoint { get; }

    /// <summary>Where the node answers clients.</summary>
    public IPEndPoint ClientEndPoint { get; }

    /// <summary>
    /// Parses <c>host:raftPort/clientPort</c> (for example <c>127.0.0.1:7001/8001</c>); the host is an IP address.
    /// </summary>
    /// <exception cref="FormatException">The text is not of that form.</exception>
    public static ClusterMember Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        int slash = text.LastIndexOf('/');
        int colon = slash < 0 ? -1 : text.LastIndexOf(':', slash);
        if (slash < 0 || colon < 0
            || !IPAddress.TryParse(text.AsSpan(0, colon), out var address)
            || !ushort.TryParse(text.AsSpan(colon + 1, slash - colon - 1), out ushort raftPort) || raftPort == 0
            || !ushort.TryParse(text.AsSpan(slash + 1), out ushort clientPort) || clientPort == 0)
            throw new FormatException($"'{text}' is not a member of the form ip:raftPort/clientPort (for example 127.0.0.1:7001/8001).");
        return new ClusterMember(new IPEndPoint(address, raftPort), new IPEndPoint(address, clientPort));
    }

    /// <inheritdoc/>
    public bool Equals(ClusterMember? other) =>
        other is not null && RaftEndPoint.Equals(other.RaftEndPoint) && ClientEndPoint.Equals(other.ClientEndPoint);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => Equals(obj as ClusterMember);

    /// <inheritdoc/>
    public override int GetHashCode() => HashCode.Combine(RaftEndPoint, ClientEndPoint);

    /// <summary>The form <see cref="Parse"/> reads.</summary>
    public override string ToString() => $"{RaftEndPoint.Address}:{RaftEndPoint.Port}/{ClientEndPoint.Port}";
}
