#!/usr/bin/env bash
# Compiles StorageEngine.dll ahead of time (ReadyToRun) for each runtime the package carries an image for, into
# OUT/<rid>/StorageEngine.dll; `dotnet pack src/StorageEngine -p:ReadyToRunImagesDir=OUT` then packs each as
# runtimes/<rid>/lib/net10.0/StorageEngine.dll beside the plain IL assembly in lib/net10.0 (see the package's
# csproj). An application on one of these runtimes loads the image and JIT-compiles only what it could not
# precompile; any other runtime, or a runtime of another major version, uses the IL. Pass the version being packed.
# Usage: bash .ci/readytorun-images.sh OUT VERSION [RID ...]
set -euo pipefail

cd "$(dirname "$0")/.."
out="$1"
version="$2"
shift 2
rids=("$@")
[ ${#rids[@]} -gt 0 ] || rids=(linux-x64 linux-arm64 win-x64 osx-arm64)
mkdir -p "$out"
for rid in "${rids[@]}"; do
    echo "== ReadyToRun image of StorageEngine.dll for $rid"
    dotnet publish src/StorageEngine -c Release -r "$rid" --self-contained false -p:PublishReadyToRun=true \
        -p:Version="$version" -o "$out/publish/$rid" --nologo -v quiet
    mkdir -p "$out/$rid"
    cp "$out/publish/$rid/StorageEngine.dll" "$out/$rid/StorageEngine.dll"
done
