#!/usr/bin/env bash
# Native AOT smoke test: publishes samples/AotConsumer (an application using the library) and the storageengine
# tool as Native AOT, fails on any warning of the publish (trim and AOT analysis included), and runs both.
# Needs clang and zlib's headers for the native link; installs them with apt-get when run as root, else says so.
# Usage: bash .ci/aot-smoke.sh        (exits non-zero on the first failure)
set -euo pipefail

cd "$(dirname "$0")/.."
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

fail() { echo "aot-smoke: FAIL: $*" >&2; exit 1; }

if ! command -v clang >/dev/null 2>&1 || ! { [ -f /usr/include/zlib.h ] || [ -f /usr/local/include/zlib.h ]; }; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== apt-get install clang zlib1g-dev (the Native AOT linker's prerequisites)"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang zlib1g-dev >/dev/null \
            || fail "clang and zlib1g-dev could not be installed"
    else
        fail "Native AOT needs clang and zlib's headers (Debian: apt-get install clang zlib1g-dev); run as root or install them"
    fi
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/storageengine-aot.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Publishes $1 as Native AOT into $2 and fails if the publish printed any warning.
publish() {
    local project="$1" out="$2" log="$work/publish-$(basename "$2").log"
    echo "== dotnet publish $project -p:PublishAot=true"
    if ! dotnet publish "$project" -c Release -p:PublishAot=true -o "$out" --nologo 2>&1 | tee "$log"; then
        fail "publishing $project as Native AOT failed"
    fi
    # MSBuild prints each warning twice (as it happens and in the summary); any at all fails the smoke test.
    if grep -Eq ': warning [A-Z]+[0-9]+' "$log"; then
        grep -E ': warning [A-Z]+[0-9]+' "$log" | sort -u >&2
        fail "publishing $project as Native AOT printed warnings"
    fi
}

publish samples/AotConsumer "$work/consumer"
"$work/consumer/AotConsumer" | tee "$work/consumer.out"
grep -q '^AotConsumer: OK$' "$work/consumer.out" || fail "the Native AOT consumer did not finish"

publish src/StorageEngine.Tool "$work/tool"
tool="$work/tool/StorageEngine.Tool"
printf '%s\n' '{"tree":"t","key":"a","value":"1"}' '{"tree":"t","key":"b","value":"2"}' \
    | "$tool" load "$work/env" --encoding text
info_json="$("$tool" info "$work/env" --json)"
grep -q '"entryCount": 2' <<<"$info_json" || fail "the Native AOT tool's info --json lacks the entry count"
"$tool" stats "$work/env" --json >/dev/null
"$tool" check "$work/env"
"$tool" backup "$work/env" "$work/env.backup"
"$tool" restore "$work/env.backup" "$work/restored"
[ "$("$tool" dump "$work/restored" --encoding text --quiet | wc -l)" -eq 3 ] || fail "the restored copy does not dump its tree line and 2 entries"
echo "aot-smoke: OK (AotConsumer and storageengine published as Native AOT with no warnings, and ran)"
