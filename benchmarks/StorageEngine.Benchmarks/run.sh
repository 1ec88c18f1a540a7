#!/usr/bin/env bash
# Runs the BenchmarkDotNet set with the short job and records, in the same run, the machine and the floor of
# the disk that holds the files (synced direct writes with dd), as BENCHMARKS.md reports them.
# Usage: benchmarks/StorageEngine.Benchmarks/run.sh [extra BenchmarkDotNet arguments]
# The files go to $STORAGEENGINE_BENCH_DIR (default: the system temp directory).
# $STORAGEENGINE_BENCH_FILTER picks the benchmarks (default '*': all, including the peer suite, about 10 minutes
# more on 2 cores; '*Peer*' is the peer suite alone, '*Commit*' '*ReadBenchmarks*' the engine-only classes).
# $STORAGEENGINE_BENCH_ENGINES (comma-separated) narrows the engines of the peer suite; an engine whose library
# is missing is left out with a note.
set -euo pipefail
cd "$(dirname "$0")"
dir="${STORAGEENGINE_BENCH_DIR:-${TMPDIR:-/tmp}}"

echo "== machine ($(date -u '+%Y-%m-%d %H:%M UTC'))"
echo "cpus: $(nproc) x $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
echo "disk: $(df -h "$dir" | awk 'NR==2 {print $1, $2, "mounted on", $6}') ($(findmnt -no FSTYPE -T "$dir" 2>/dev/null || echo '?'))"
echo "os: $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r); $(dotnet --version | sed 's/^/.NET SDK /')"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

echo "== floor: synced direct writes to $dir (dd oflag=direct,dsync)"
probe="$dir/storageengine-dd-probe"
for spec in "4k 2000" "40k 1000"; do
    set -- $spec
    dd if=/dev/zero of="$probe" bs="$1" count="$2" oflag=direct,dsync 2>&1 | tail -1 |
        awk -v bs="$1" -v n="$2" '{ for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%s synced writes: %.0f us each (%d in %s s)\n", bs, s / n * 1e6, n, s }'
done
dd if=/dev/zero of="$probe" bs=1M count=512 oflag=direct 2>&1 | tail -1 | sed 's/^/sequential direct 1 MiB writes: /'
rm -f "$probe"

echo "== BenchmarkDotNet"
dotnet run -c Release --project . -- --filter "${STORAGEENGINE_BENCH_FILTER:-*}" --job short "$@"
