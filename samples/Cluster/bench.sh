#!/usr/bin/env bash
# Figures of docs/cluster.md: starts the three sample nodes on 127.0.0.1, runs `Cluster.dll bench` (replicated
# writes with 1, 4 and 16 clients, then the same writes on one Safe environment), stops the nodes.
# Usage: bash samples/Cluster/bench.sh [seconds per measurement, default 10]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-10}"
dotnet build -c Release -v quiet --nologo . >/dev/null
app="bin/Release/net10.0/Cluster.dll"
data="$(mktemp -d "${TMPDIR:-/tmp}/cluster-bench.XXXXXX")"
declare -a pids
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
logs="${TMPDIR:-/tmp}/cluster-bench-logs"
mkdir -p "$logs"
for i in 0 1 2; do dotnet "$app" node "$i" "$data" >"$logs/node$i.log" 2>&1 & pids[$i]=$!; done
until dotnet "$app" leader >/dev/null 2>&1; do sleep 0.3; done
dotnet "$app" bench "$seconds"
echo "(node logs: $logs)"
