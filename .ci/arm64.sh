#!/usr/bin/env bash
# ARM64 leg of CI, under user-mode emulation: publishes self-contained linux-arm64 builds (the runtime pack comes
# from NuGet) and runs them through qemu-aarch64-static: the CPU-path report (it must show Crc32.Arm64, the
# engine's ARM64 CRC-32C path), the QuickStart, and the engine's test suite through StorageEngine.TestRunner, with
# the process-kill tests killing a self-contained ARM64 crash child. Exits non-zero when anything fails,
# including when the emulator or the ARM64 libraries cannot be installed: it never passes without running.
set -euo pipefail

cd "$(dirname "$0")/.."

fail() {
    echo "ARM64 LEG FAILED: $*" >&2
    exit 1
}

# qemu-user-static, and the ARM64 C runtime, C++ runtime and OpenSSL the .NET runtime loads (globalization runs
# invariant below, so no ICU). Debian multiarch: dpkg --add-architecture arm64.
arm64_libs_present() {
    [ -e /lib/ld-linux-aarch64.so.1 ] && [ -e /usr/lib/aarch64-linux-gnu/libstdc++.so.6 ] \
        && ls /usr/lib/aarch64-linux-gnu/libssl.so.3 >/dev/null 2>&1
}
if ! command -v qemu-aarch64-static >/dev/null 2>&1 || ! arm64_libs_present; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        fail "qemu-aarch64-static or the arm64 libraries are missing, and installing them needs apt-get as root (packages: qemu-user-static libc6:arm64 libstdc++6:arm64 libssl3:arm64)."
    fi
    echo "== apt-get install qemu-user-static libc6:arm64 libstdc++6:arm64 libssl3:arm64"
    { dpkg --add-architecture arm64 && apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static libc6:arm64 libstdc++6:arm64 libssl3:arm64 >/dev/null; } \
        || fail "installing qemu-user-static and the arm64 libraries failed (see apt-get's output above)."
    command -v qemu-aarch64-static >/dev/null 2>&1 && arm64_libs_present \
        || fail "after the install, qemu-aarch64-static or an arm64 library is still missing."
fi

# Under the repository (artifacts/ is ignored), so the documentation test finds docs/ above the test assembly.
out="$PWD/artifacts/arm64"
rm -rf "$out"
# The crash child reaches the runner's publish twice (through the tests, and as an executable beside them).
publish() {
    local project="$1" name="$2"
    shift 2
    dotnet publish "$project" -c Release -r linux-arm64 --self-contained -p:ErrorOnDuplicatePublishOutputFiles=false \
        -o "$out/$name" -v:q -nologo "$@" \
        || fail "dotnet publish -r linux-arm64 of $project failed."
}
echo "== dotnet publish -r linux-arm64 --self-contained: CPU paths, QuickStart (ReadyToRun), crash child, test runner"
publish tests/StorageEngine.CpuPaths cpupaths
# The QuickStart precompiled (ReadyToRun) as the package's linux-arm64 image is: that image's code runs here; the
# tests below run the engine's code as the JIT compiles it.
publish samples/QuickStart quickstart -p:PublishReadyToRun=true
publish tests/StorageEngine.CrashChild crashchild
publish tests/StorageEngine.TestRunner tests

# Without W^X off the runtime crashes under qemu (it maps the same pages twice, which qemu-user does not emulate).
export DOTNET_EnableWriteXorExecute=0
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1
export DOTNET_CLI_TELEMETRY_OPTOUT=1
run_arm64() { qemu-aarch64-static "$@"; }

echo "== CPU paths under qemu-aarch64 (the ARM64 CRC-32C path must be the one taken)"
run_arm64 "$out/cpupaths/StorageEngine.CpuPaths" --require Crc32.Arm64=yes --require AdvSimd=yes \
    || fail "the emulated CPU does not offer Crc32.Arm64 (or the runtime did not start): the ARM64 CRC path would not run."

quickstart_items=100000
echo "== QuickStart under qemu-aarch64 ($quickstart_items items)"
quickstart_dir="$(mktemp -d)"
started=$SECONDS
run_arm64 "$out/quickstart/QuickStart" "$quickstart_dir/data" "$quickstart_items" \
    || { rm -rf "$quickstart_dir"; fail "the QuickStart failed under qemu-aarch64."; }
rm -rf "$quickstart_dir"
echo "QuickStart: $((SECONDS - started)) s"

echo "== engine tests under qemu-aarch64 (StorageEngine.TestRunner; the kill tests start the ARM64 crash child through qemu)"
export STORAGEENGINE_CRASH_CHILD="$out/crashchild/StorageEngine.CrashChild"
export STORAGEENGINE_CRASH_CHILD_LAUNCHER="$(command -v qemu-aarch64-static)"
# Each emulated child takes seconds to start: fewer kill cycles per test than the x64 runs' 15-50.
export STORAGEENGINE_CRASH_CYCLES="${STORAGEENGINE_CRASH_CYCLES:-10}"
started=$SECONDS
# The runner prints a line per test; the log keeps them, the console gets failures, skips and the totals.
log="$out/tests.log"
set +e
(cd "$out/tests" && run_arm64 ./StorageEngine.TestRunner) >"$log" 2>&1
status=$?
set -e
grep -E '^  (FAIL|skip|ERROR)|^ {8}|^tests:|^Running' "$log" | grep -vE '^ {8}at |^ {3}at ' || true
echo "engine tests under qemu-aarch64: $((SECONDS - started)) s (exit $status; full log: $log)"
[ "$status" = 0 ] || fail "the engine's tests failed under qemu-aarch64 (exit $status); see $log."
echo "ARM64 leg passed."
