// Every test runs a cluster of processes with election timeouts of a few hundred milliseconds: two at once on a
// two-core machine starve each other's heartbeats into needless elections.
[assembly: CollectionBehavior(DisableTestParallelization = true)]
