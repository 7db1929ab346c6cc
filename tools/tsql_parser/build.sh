#!/usr/bin/env bash
# Build the T-SQL syntax-check harness (Harness.cs) around Microsoft's own T-SQL parser.
#
# Microsoft.SqlServer.SqlParser.dll is closed source, so it is never committed: this script fetches
# the PyPI wheel that ships it (mssql-scripter), checks the wheel's hash, unzips the dll and the one
# assembly it references besides netstandard (NetCoreGlobalization.dll), and compiles the harness
# with Debian's Mono. Everything lands in a gitignored cache, by default <repo>/.cache/tsql-parser
# (override with TSQL_PARSER_CACHE). Idempotent: a second run only checks the cache.
#
# Needs: mono + mcs + netstandard facade (apt-get install -y --no-install-recommends mono-runtime
# mono-mcs mono-devel), a Python with pip (PYTHON, default python3), network access on first run.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CACHE=${TSQL_PARSER_CACHE:-$ROOT/.cache/tsql-parser}
PYTHON=${PYTHON:-python3}

WHEEL_SPEC="mssql-scripter==1.0.0a23"
# sha256 of mssql_scripter-1.0.0a23-py2.py3-none-manylinux1_x86_64.whl as served by PyPI.
WHEEL_SHA256="5119d148a9750d2cfa9820835da32d5140ebc85807e7ed5403a521052782dd6e"
PARSER_DLL="Microsoft.SqlServer.SqlParser.dll"
PARSER_DLL_SHA256="ab678f8f8a55e80bf3ccf4c93497503b68fd9035b9a87a87e9f1f0b716275022"
WHEEL_BIN_DIR="mssqlscripter/mssqltoolsservice/bin"
DLLS=("$PARSER_DLL" "NetCoreGlobalization.dll")
APT_HINT="apt-get install -y --no-install-recommends mono-runtime mono-mcs mono-devel"

die() {
    echo "tools/tsql_parser/build.sh: $*" >&2
    exit 1
}

missing=()
for tool in mono mcs; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if ((${#missing[@]})); then
    die "${missing[*]} not found. Install Debian's Mono with: $APT_HINT"
fi

# The parser targets .NET Standard 2.0: compiling against it needs Mono's netstandard facade (mono-devel).
NETSTANDARD=""
for candidate in \
    "$(dirname "$(readlink -f "$(command -v mono)")")/../lib/mono/4.5/Facades/netstandard.dll" \
    /usr/lib/mono/4.5/Facades/netstandard.dll \
    /usr/local/lib/mono/4.5/Facades/netstandard.dll; do
    if [[ -f "$candidate" ]]; then
        NETSTANDARD=$(readlink -f "$candidate")
        break
    fi
done
[[ -n "$NETSTANDARD" ]] || die "Mono's Facades/netstandard.dll not found (package mono-devel). Install with: $APT_HINT"

mkdir -p "$CACHE"
# Serialise concurrent builds (e.g. parallel test workers) on the same cache.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$CACHE/.lock"
    flock 9
fi

sha256() { sha256sum "$1" | cut -d' ' -f1; }

have_dlls() {
    local dll
    for dll in "${DLLS[@]}"; do
        [[ -f "$CACHE/$dll" ]] || return 1
    done
    [[ "$(sha256 "$CACHE/$PARSER_DLL")" == "$PARSER_DLL_SHA256" ]]
}

if ! have_dlls; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    echo "fetching $WHEEL_SPEC from PyPI (the dll is not redistributed with qgen)..." >&2
    # The wheel is tagged manylinux1_x86_64 but the .NET assemblies in it are platform neutral:
    # ask for that platform explicitly so the fetch also works on other architectures.
    "$PYTHON" -m pip download --no-deps --disable-pip-version-check --quiet \
        --only-binary=:all: --platform manylinux1_x86_64 \
        "$WHEEL_SPEC" -d "$tmp" >&2 \
        || die "pip download $WHEEL_SPEC failed (network? pip installed for $PYTHON?)"
    wheel=$(find "$tmp" -maxdepth 1 -name 'mssql_scripter-*.whl' | head -n 1)
    [[ -n "$wheel" ]] || die "pip download produced no mssql_scripter wheel in $tmp"
    [[ "$(sha256 "$wheel")" == "$WHEEL_SHA256" ]] \
        || die "sha256 of $(basename "$wheel") is $(sha256 "$wheel"), expected $WHEEL_SHA256"
    "$PYTHON" - "$wheel" "$CACHE" "$WHEEL_BIN_DIR" "${DLLS[@]}" <<'PY' || die "could not unzip the dlls from the wheel"
import os, sys, zipfile
wheel, cache, bin_dir, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
with zipfile.ZipFile(wheel) as zf:
    for name in names:
        target = os.path.join(cache, name)
        with zf.open(f"{bin_dir}/{name}") as src, open(target + ".tmp", "wb") as dst:
            dst.write(src.read())
        os.replace(target + ".tmp", target)
PY
    [[ "$(sha256 "$CACHE/$PARSER_DLL")" == "$PARSER_DLL_SHA256" ]] || die "unexpected sha256 for $PARSER_DLL"
fi

# Recompile when Harness.cs (or the compiler command line) changed; the stamp records what was built.
MCS_ARGS=(-nologo -optimize+ -target:exe -r:"$NETSTANDARD" -r:"$CACHE/$PARSER_DLL" -r:System.Runtime.Serialization.dll)
stamp="$( (sha256 "$HERE/Harness.cs"; printf '%s\n' "${MCS_ARGS[@]}") | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$CACHE/Harness.exe" || "$(cat "$CACHE/Harness.stamp" 2>/dev/null)" != "$stamp" ]]; then
    mcs "${MCS_ARGS[@]}" -out:"$CACHE/Harness.exe.tmp" "$HERE/Harness.cs" >&2 || die "mcs failed to compile $HERE/Harness.cs"
    mv -f "$CACHE/Harness.exe.tmp" "$CACHE/Harness.exe"
    (cd "$CACHE" && mono Harness.exe --selftest >/dev/null) || die "the compiled harness failed its self test"
    echo "$stamp" >"$CACHE/Harness.stamp"
fi

echo "parser:  $CACHE/$PARSER_DLL"
echo "harness: $CACHE/Harness.exe"
echo "usage:   mono $CACHE/Harness.exe < batches.json   (JSON array of GO-free T-SQL batches)"
