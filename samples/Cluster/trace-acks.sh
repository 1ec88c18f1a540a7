#!/usr/bin/env bash
# Evidence for docs/cluster.md's durability promise: starts the three sample nodes, traces one follower with
# strace while clients write for 3 s, and checks that every AppendEntries answer that acknowledges new entries
# (a 17-byte send: term, last index, result) left only after the log's checkpoint (a 20-byte pwrite64 to
# raft/checkpoint, opened write-through, holding the last durable index at offset 12) named that index.
# Usage: bash samples/Cluster/trace-acks.sh [clients, default 8]   (needs strace and python3)
set -uo pipefail
cd "$(dirname "$0")"
clients="${1:-8}"
dotnet build -c Release -v quiet --nologo . >/dev/null
app="bin/Release/net10.0/Cluster.dll"
data="$(mktemp -d "${TMPDIR:-/tmp}/cluster-trace.XXXXXX")"
trace="$data/follower.strace"
declare -a pids
for i in 0 1 2; do dotnet "$app" node "$i" "$data" >"$data/node$i.log" 2>&1 & pids[$i]=$!; done
until leader="$(dotnet "$app" leader 2>/dev/null)"; do sleep 0.3; done
follower=$(( (leader + 1) % 3 ))  # "leader" prints the leader's node number
fpid=${pids[$follower]}
checkpoint_fd="$(ls -l "/proc/$fpid/fd" | awk '/raft\/checkpoint$/ {print $9}')"
strace -f -tt -e trace=pwrite64,sendto -p "$fpid" -o "$trace" 2>/dev/null & spid=$!
sleep 1
dotnet "$app" load 3 "$clients" | tail -1
sleep 0.5
kill -INT "$spid"; wait "$spid" 2>/dev/null
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done; wait 2>/dev/null
echo "leader: $leader; traced follower node $follower (checkpoint fd $checkpoint_fd)"
python3 - "$trace" "$checkpoint_fd" <<'PY'
import re, sys
path, fd = sys.argv[1], sys.argv[2]
unescape = lambda s: s.encode('latin1').decode('unicode_escape').encode('latin1')
pending, durable, previous, answers, early = {}, None, None, 0, []
for line in open(path):
    parts = line.split(None, 2)
    if len(parts) < 3: continue
    pid, ts, call = parts
    m = re.match(r'pwrite64\(' + fd + r', "((?:[^"\\]|\\.)*)", 20, 0(\) = 20| <unfinished)', call)
    if m:
        last = int.from_bytes(unescape(m.group(1))[12:20], 'little')
        if m.group(2).startswith(')'): durable = last if durable is None else max(durable, last)
        else: pending[pid] = last
        continue
    if call.startswith('<... pwrite64 resumed>') and pid in pending:
        last = pending.pop(pid); durable = last if durable is None else max(durable, last); continue
    m = re.match(r'sendto\(\d+, "((?:[^"\\]|\\.)*)", 17,', call)
    if m:
        index = int.from_bytes(unescape(m.group(1))[8:16], 'little')
        new = previous is not None and index > previous
        previous = index if previous is None else max(previous, index)
        if durable is None or not new: continue
        answers += 1
        if index > durable: early.append(f"{ts} answered index {index} while the checkpoint named {durable}")
print(f"{answers} answers acknowledging new entries, {len(early)} sent before the checkpoint named their index")
for e in early[:3]: print("  e.g.", e)
sys.exit(1 if early else 0)
PY
status=$?
rm -rf "$data"
exit $status
