#!/usr/bin/env bash
# Package smoke test: packs StorageEngine, StorageEngine.Gpu, StorageEngine.Extensions.Hosting, StorageEngine.Tool and
# StorageEngine.Cluster into a
# temporary folder feed with a unique version, checks what the packages carry (README, license expression, XML
# docs, symbols, repository commit), then does what a user does: builds and runs tests/PackageConsumer and
# tests/HostingConsumer against the feed by PackageReference, and installs the tool from the feed and runs it.
# Restores go to a fresh packages folder, so no copy left in the machine's NuGet cache can stand in for the
# packages just made.
# Usage: bash .ci/package-smoke.sh        (exits non-zero on the first failure)
set -euo pipefail

cd "$(dirname "$0")/.."
repo="$(pwd)"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

work="$(mktemp -d "${TMPDIR:-/tmp}/storageengine-smoke.XXXXXX")"
trap 'rm -rf "$work"' EXIT
feed="$work/feed"
export NUGET_PACKAGES="$work/packages"
version="0.1.0-smoke.$(date -u +%Y%m%d%H%M%S).$$"

fail() { echo "package-smoke: FAIL: $*" >&2; exit 1; }

echo "== ReadyToRun images of StorageEngine.dll, then dotnet pack (version $version) into $feed"
readytorun_rids=(linux-x64 linux-arm64 win-x64 osx-arm64)
bash .ci/readytorun-images.sh "$work/readytorun" "$version" "${readytorun_rids[@]}"
dotnet pack src/StorageEngine -c Release -o "$feed" -p:Version="$version" -p:ReadyToRunImagesDir="$work/readytorun" --nologo -v quiet
dotnet pack src/StorageEngine.Gpu -c Release -o "$feed" -p:Version="$version" --nologo -v quiet
dotnet pack src/StorageEngine.Tool -c Release -o "$feed" -p:Version="$version" --nologo -v quiet
dotnet pack src/StorageEngine.Extensions.Hosting -c Release -o "$feed" -p:Version="$version" --nologo -v quiet
dotnet pack src/StorageEngine.Cluster -c Release -o "$feed" -p:Version="$version" --nologo -v quiet

package="$feed/StorageEngine.$version.nupkg"
[ -f "$package" ] || fail "no $package"
[ -f "$feed/StorageEngine.$version.snupkg" ] || fail "no symbol package (snupkg)"
[ -f "$feed/StorageEngine.Tool.$version.nupkg" ] || fail "no tool package"
hosting="$feed/StorageEngine.Extensions.Hosting.$version.nupkg"
[ -f "$hosting" ] || fail "no hosting package"
hosting_contents="$(unzip -l "$hosting")"
for entry in README.md lib/net10.0/StorageEngine.Extensions.Hosting.dll lib/net10.0/StorageEngine.Extensions.Hosting.xml; do
    grep -q " $entry\$" <<<"$hosting_contents" || fail "$entry is missing from the hosting package"
done
# Output captured before grep -q reads it: under pipefail, grep -q leaving early fails the pipe with SIGPIPE.
hosting_nuspec="$(unzip -p "$hosting" StorageEngine.Extensions.Hosting.nuspec)"
grep -q "<dependency id=\"StorageEngine\" version=\"$version\"" <<<"$hosting_nuspec" \
    || fail "the hosting package does not depend on StorageEngine $version"
cluster="$feed/StorageEngine.Cluster.$version.nupkg"
[ -f "$cluster" ] || fail "no StorageEngine.Cluster package"
cluster_contents="$(unzip -l "$cluster")"
grep -q " lib/net10.0/StorageEngine.Cluster.xml\$" <<<"$cluster_contents" || fail "StorageEngine.Cluster has no XML docs"
cluster_nuspec="$(unzip -p "$cluster" StorageEngine.Cluster.nuspec)"
grep -q "id=\"StorageEngine\" version=\"$version\"" <<<"$cluster_nuspec" || fail "StorageEngine.Cluster does not depend on StorageEngine $version"
grep -q 'id="DotNext.Net.Cluster"' <<<"$cluster_nuspec" || fail "StorageEngine.Cluster does not depend on DotNext.Net.Cluster"
contents="$(unzip -l "$package")"
for entry in README.md lib/net10.0/StorageEngine.dll lib/net10.0/StorageEngine.xml; do
    grep -q " $entry\$" <<<"$contents" || fail "$entry is missing from the package"
done
for rid in "${readytorun_rids[@]}"; do
    grep -q " runtimes/$rid/lib/net10.0/StorageEngine.dll\$" <<<"$contents" || fail "the package has no ReadyToRun image for $rid"
done
symbols="$(unzip -l "$feed/StorageEngine.$version.snupkg")"
grep -q "lib/net10.0/StorageEngine.pdb" <<<"$symbols" || fail "the snupkg has no pdb"
nuspec="$(unzip -p "$package" StorageEngine.nuspec)"
grep -q '<license type="expression">MIT</license>' <<<"$nuspec" || fail "no license expression in the nuspec"
grep -q '<readme>README.md</readme>' <<<"$nuspec" || fail "no readme in the nuspec"
grep -q '<repository type="git"' <<<"$nuspec" || fail "no repository metadata in the nuspec"
gpu_package="$feed/StorageEngine.Gpu.$version.nupkg"
[ -f "$gpu_package" ] || fail "no $gpu_package"
gpu_contents="$(unzip -l "$gpu_package")"
for entry in README.md lib/net10.0/StorageEngine.Gpu.dll lib/net10.0/StorageEngine.Gpu.xml; do
    grep -q " $entry\$" <<<"$gpu_contents" || fail "$entry is missing from the GPU package"
done
gpu_nuspec="$(unzip -p "$gpu_package" StorageEngine.Gpu.nuspec)"
for dependency in "StorageEngine\" version=\"$version" 'ILGPU" version="1.5.3' 'ILGPU.Algorithms" version="1.5.3'; do
    grep -q "<dependency id=\"$dependency\"" <<<"$gpu_nuspec" || fail "the GPU package does not depend on $dependency"
done
echo "   package contents and metadata: ok"

cat >"$work/nuget.config" <<CONFIG
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="local" value="$feed" />
    <add key="nuget.org" value="https://api.nuget.org/v3/index.json" protocolVersion="3" />
  </packageSources>
</configuration>
CONFIG

echo "== build and run tests/PackageConsumer against the feed"
mkdir -p "$work/consumer"
cp "$repo"/tests/PackageConsumer/*.cs "$repo"/tests/PackageConsumer/*.csproj "$repo"/tests/PackageConsumer/Directory.Build.props "$work/consumer/"
cp "$work/nuget.config" "$work/consumer/nuget.config"
consumer_output="$(dotnet run --project "$work/consumer/PackageConsumer.csproj" -c Release -p:StorageEngineVersion="$version")" \
    || { echo "$consumer_output"; fail "PackageConsumer failed"; }
echo "$consumer_output"
# A portable application on linux-x64 (this machine) loads the package's image for its runtime, not the IL.
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
    grep -q "runtimes/linux-x64/lib/net10.0/StorageEngine.dll (ReadyToRun: yes" <<<"$consumer_output" \
        || fail "the consumer did not load the package's ReadyToRun image for linux-x64"
    # Precompiled code that assumed an instruction set the CPU lacks must be set aside for the JIT's: run the consumer
    # (writes, reopen, check) again with the wide paths switched off.
    for isa in DOTNET_EnableAVX512F=0 DOTNET_EnableAVX512=0 DOTNET_EnableAVX2=0 DOTNET_EnableHWIntrinsic=0; do
        env "$isa" dotnet "$work/consumer/bin/Release/net10.0/PackageConsumer.dll" >/dev/null \
            || fail "PackageConsumer failed with $isa"
    done
    echo "   the consumer on the ReadyToRun image also passes with AVX-512, AVX2 and all hardware intrinsics off"
fi
grep -rq "\"StorageEngine/$version\"" "$work/consumer/obj/project.assets.json" || fail "the consumer did not restore StorageEngine $version"
grep -rq "\"StorageEngine.Gpu/$version\"" "$work/consumer/obj/project.assets.json" || fail "the consumer did not restore StorageEngine.Gpu $version"

echo "== build and run tests/HostingConsumer (the hosting package in a generic host) against the feed"
mkdir -p "$work/hosting-consumer"
cp "$repo"/tests/HostingConsumer/*.cs "$repo"/tests/HostingConsumer/*.csproj "$repo"/tests/HostingConsumer/Directory.Build.props "$work/hosting-consumer/"
cp "$work/nuget.config" "$work/hosting-consumer/nuget.config"
dotnet run --project "$work/hosting-consumer/HostingConsumer.csproj" -c Release -p:StorageEngineVersion="$version" \
    || fail "HostingConsumer failed"

echo "== install StorageEngine.Tool from the feed and run it"
dotnet tool install StorageEngine.Tool --version "$version" --tool-path "$work/tools" --configfile "$work/nuget.config" >/dev/null
tool="$work/tools/storageengine"
printf '%s\n' '{"tree":"t","key":"a","value":"1"}' '{"tree":"t","key":"b","value":"2"}' \
    | "$tool" load "$work/env" --encoding text
"$tool" info "$work/env"
"$tool" check "$work/env"
dumped="$("$tool" dump "$work/env" --encoding text --quiet)"
[ "$(wc -l <<<"$dumped")" -eq 3 ] || fail "dump did not print the tree line and 2 entries: $dumped"
set +e
message="$("$tool" info "$work/no-such-env" 2>&1)"
code=$?
set -e
[ "$code" -eq 1 ] || fail "info on a missing path exited $code, not 1"
grep -q "does not exist" <<<"$message" || fail "unclear message for a missing path: $message"
echo "package-smoke: OK (StorageEngine $version, StorageEngine.Gpu $version, StorageEngine.Extensions.Hosting $version, StorageEngine.Tool $version, StorageEngine.Cluster $version)"
