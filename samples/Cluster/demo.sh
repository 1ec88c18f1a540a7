#!/usr/bin/env bash
# Three StorageEngine.Cluster nodes as three processes on 127.0.0.1, a client writing through the leader, and
# a kill -9 of the leader in the middle of the load: a new leader is elected, the load carries on, the killed
# node comes back and catches up, and every acknowledged write is read back. Exit code 0 when none is missing.
# Usage: bash samples/Cluster/demo.sh [seconds of load, default 12]
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-12}"
dotnet build -c Release -v quiet --nologo . >/dev/null
app="bin/Release/net10.0/Cluster.dll"
data="$(mktemp -d "${TMPDIR:-/tmp}/cluster-demo.XXXXXX")"
declare -a pids
start_node() { dotnet "$app" node "$1" "$data" & pids[$1]=$!; }
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT

for i in 0 1 2; do start_node "$i"; done
until dotnet "$app" leader >/dev/null 2>&1; do sleep 0.3; done
echo "== cluster up"; dotnet "$app" status

dotnet "$app" load "$seconds" 4 & load=$!
sleep $(( seconds / 3 ))
leader="$(dotnet "$app" leader)"
echo "== kill -9 the leader: node $leader (pid ${pids[$leader]})"
kill -9 "${pids[$leader]}"
sleep $(( seconds / 3 ))
echo "== status after the kill"; dotnet "$app" status
echo "== restart node $leader"
start_node "$leader"
wait "$load"; status=$?
sleep 1
echo "== status at the end (the restarted node caught up)"; dotnet "$app" status
exit $status
