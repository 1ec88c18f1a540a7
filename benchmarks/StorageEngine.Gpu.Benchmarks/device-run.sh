#!/usr/bin/env bash
# Runs the published GPU benchmark (publish.sh's one file) on a machine with a CUDA GPU and no .NET SDK, within a
# time limit, and writes everything to $OUT: nvidia-smi's view of the device, the benchmark's output as it comes
# (a run cut by the limit keeps what it printed), and its exit status.
# Usage: benchmarks/StorageEngine.Gpu.Benchmarks/device-run.sh [benchmark options]
#   default options: --max-sort 67108864 --repeats 2 (the 64M-key sort is the largest the targets name; the 256M
#   one and a third timed run per figure are left out so that the pass is likely to end within the limit on a
#   machine lent for minutes; not yet timed on a GPU)
# Environment: OUT (default ./gpu-out), STORAGEENGINE_GPU_BENCH_FILE (default bin/publish/StorageEngine.Gpu.Benchmarks
# next to this script), STORAGEENGINE_GPU_BENCH_TIMEOUT in seconds (default 540).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
file="${STORAGEENGINE_GPU_BENCH_FILE:-$here/bin/publish/StorageEngine.Gpu.Benchmarks}"
out="${OUT:-./gpu-out}"
limit="${STORAGEENGINE_GPU_BENCH_TIMEOUT:-540}"
mkdir -p "$out"
if [ ! -x "$file" ]; then
    echo "no benchmark at $file: run publish.sh first (and carry bin/publish to this machine)" | tee "$out/gpu-benchmark.txt" >&2
    exit 2
fi
if [ "$#" -eq 0 ]; then set -- --max-sort 67108864 --repeats 2; fi
{ nvidia-smi; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > "$out/nvidia-smi.txt" 2>&1 || true
# The single file unpacks its native libraries here: a writable place on any machine.
export DOTNET_BUNDLE_EXTRACT_BASE_DIR="${DOTNET_BUNDLE_EXTRACT_BASE_DIR:-${TMPDIR:-/tmp}/storageengine-gpu-bench-extract}"
echo "command: $file $*" > "$out/gpu-benchmark.txt"
# SIGINT at the limit, SIGKILL 20 s later if it is still running; what it printed is already in the file.
timeout --signal=INT --kill-after=20 "$limit" "$file" "$@" 2>&1 | tee -a "$out/gpu-benchmark.txt"
status="${PIPESTATUS[0]}"
echo "exit status: $status$([ "$status" = 124 ] && echo " (cut at ${limit} s)")" | tee -a "$out/gpu-benchmark.txt"
exit "$status"
