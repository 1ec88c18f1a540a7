#!/usr/bin/env bash
# Publishes the GPU benchmark as one self-contained linux-x64 file (PublishSingleFile, compressed, not trimmed:
# trimming breaks ILGPU), to run on a GPU machine that has no .NET SDK: copy the file there and run it.
# Usage: benchmarks/StorageEngine.Gpu.Benchmarks/publish.sh [--quick]
#   --quick: after publishing, run the file here with ILGPU's CPU accelerator at small sizes.
# Output: $STORAGEENGINE_GPU_BENCH_OUT (default benchmarks/StorageEngine.Gpu.Benchmarks/bin/publish).
set -euo pipefail
cd "$(dirname "$0")"
out="${STORAGEENGINE_GPU_BENCH_OUT:-bin/publish}"
dotnet publish -c Release -r linux-x64 --self-contained true \
    -p:PublishSingleFile=true -p:EnableCompressionInSingleFile=true -p:PublishTrimmed=false \
    -p:IncludeNativeLibrariesForSelfExtract=true -o "$out"
file="$out/StorageEngine.Gpu.Benchmarks"
echo "published: $file ($(du -h "$file" | cut -f1))"
if [ "${1:-}" = "--quick" ]; then
    "$file" --quick
fi
