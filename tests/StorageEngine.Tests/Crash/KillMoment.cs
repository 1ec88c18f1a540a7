namespace StorageEngine.Tests.Crash;

/// <summary>When a crash cycle kills the child.</summary>
internal enum KillMoment
{
    /// <summary>A random time after launch: often before or while it opens (creates, recovers) the environment.</summary>
    AfterLaunchDelay,

    /// <summary>Just after it reports the environment open: during its first commit or right before it.</summary>
    AfterReady,

    /// <summary>Just after it acknowledges a random number of commits: inside the next one.</summary>
    AfterCommits,
}
